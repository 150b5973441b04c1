"""The router's model list as the `llama.cpp` provider's chat and classifier models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.app.auth import AuthStorage
from pi.app.llama.catalog import literal_key, provider_config
from pi.app.llama.client import LlamaError, format_bytes, inference_url, normalize_server_url
from pi.app.llama.config import resolve_router
from pi.app.model_registry import ModelRegistry
from pi.app.typed_models import typed_models
from tests.support.llama_router import router_model

SERVER = "http://127.0.0.1:9931"


def _ids(config: dict[str, object], kind: str) -> list[str]:
    models = config["models"]
    assert isinstance(models, list)
    return [m["id"] for m in models if (m.get("type") == "classifier") == (kind == "classifier")]


def test_only_loaded_and_sleeping_models_are_offered_without_autoload() -> None:
    catalog = [
        router_model("a", "loaded"),
        router_model("b", "sleeping"),
        router_model("c", "unloaded"),
        router_model("d", "unloaded", source="preset"),
        router_model("e", "loading"),
    ]
    config = provider_config(catalog, SERVER, "local")
    assert _ids(config, "chat") == ["a", "b"]
    assert _ids(config, "classifier") == ["a", "b"]
    with_autoload = provider_config(catalog, SERVER, "local", autoload=True)
    assert _ids(with_autoload, "chat") == ["a", "b", "d"]
    failed = [{**router_model("d", source="preset"), "status": {"value": "unloaded", "failed": True}}]
    assert _ids(provider_config(failed, SERVER, "local", autoload=True), "chat") == []


def test_chat_entries_use_the_openai_api_under_v1_with_llama_compat() -> None:
    model = router_model("qwen", "loaded", meta={"n_ctx": 32768, "n_ctx_train": 262144})
    config = provider_config([model], SERVER, "local", templates={"qwen": "{% if enable_thinking %}"})
    assert config["baseUrl"] == f"{SERVER}/v1" and config["api"] == "openai-completions"
    chat = config["models"][0]
    assert chat["contextWindow"] == chat["maxTokens"] == 32768
    assert chat["reasoning"] is True and chat["compat"]["thinkingFormat"] == "qwen-chat-template"
    assert chat["compat"]["maxTokensField"] == "max_tokens" and chat["compat"]["supportsStore"] is False
    assert chat["thinkingLevelMap"]["medium"] == "medium" and chat["thinkingLevelMap"]["low"] is None
    plain = provider_config([router_model("p", "loaded")], SERVER, "local")["models"][0]
    assert plain["reasoning"] is False and "thinkingFormat" not in plain["compat"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"meta": {"n_ctx": 4096, "n_ctx_train": 8192}}, 4096),
        ({"status": {"value": "loaded", "args": ["llama-server", "--ctx-size", "16384"]}}, 16384),
        ({"status": {"value": "loaded", "args": ["-c", "2048"]}, "meta": {"n_ctx_train": 9000}}, 2048),
        ({"meta": {"n_ctx_train": 9000}}, 9000),
        ({}, 128000),
    ],
)
def test_the_context_window_comes_from_the_running_model_then_its_arguments(
    extra: dict[str, Any], expected: int
) -> None:
    model = {**router_model("m", "loaded"), **extra}
    assert provider_config([model], SERVER, "local")["models"][0]["contextWindow"] == expected


def test_decision_models_are_classifiers_only_and_answer_at_systemone() -> None:
    decision = router_model(
        "clef", "loaded", architecture={"input_modalities": ["text", "image"], "output_modalities": ["decisions"]}
    )
    chat = router_model("qwen", "loaded", architecture={"input_modalities": ["text"], "output_modalities": ["text"]})
    config = provider_config([decision, chat], SERVER, "local")
    assert _ids(config, "chat") == ["qwen"]
    classifiers = {m["id"]: m for m in config["models"] if m.get("type") == "classifier"}
    assert classifiers["clef"]["api"] == "typesafe-system-one" and classifiers["clef"]["baseUrl"] == f"{SERVER}/v1"
    assert classifiers["clef"]["input"] == ["text", "image"]
    assert classifiers["clef"]["compat"] == {"imageInput": "images", "sendImageOptInHeader": False}
    assert classifiers["qwen"]["api"] == "llama-cpp-classify" and classifiers["qwen"]["baseUrl"] == SERVER


def test_the_registry_takes_the_config_as_a_provider(tmp_path: Path) -> None:
    registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), None)
    catalog = [router_model("qwen", "loaded"), router_model("other", "unloaded")]
    registry.register_provider("llama.cpp", provider_config(catalog, SERVER, "$ecret"))
    model = registry.find("llama.cpp", "qwen")
    assert model is not None and model.base_url == f"{SERVER}/v1"
    assert registry.find("llama.cpp", "other") is None
    assert registry.get_api_key("llama.cpp") == "$ecret"
    (classifier,) = typed_models(registry, "classifier", "llama.cpp")
    assert classifier.id == "qwen" and classifier.api == "llama-cpp-classify"


def test_keys_are_taken_literally() -> None:
    assert literal_key("plain") == "plain"
    assert literal_key("$HOME") == "$$HOME"
    assert literal_key("!rm") == "$!rm"


def test_server_urls_are_normalized() -> None:
    assert normalize_server_url(" http://host:8080/v1/ ") == "http://host:8080"
    assert normalize_server_url("https://host/base/?q=1#x") == "https://host/base"
    assert inference_url("http://host:1") == "http://host:1/v1"
    with pytest.raises(LlamaError, match="Server URL must use http or https"):
        normalize_server_url("ftp://host")
    assert format_bytes(512) == "512 B" and format_bytes(1536 * 1024) == "1.50 MiB"
    assert format_bytes(12.5 * 1024**3) == "12.5 GiB"


def test_the_router_is_configured_by_credential_then_environment() -> None:
    stored = {"type": "api_key", "key": "k1", "env": {"LLAMA_BASE_URL": "http://stored:1/v1"}}
    config = resolve_router(stored, {"LLAMA_BASE_URL": "http://env:2", "LLAMA_API_KEY": "k2"})
    assert config is not None and (config.server_url, config.api_key) == ("http://stored:1", "k1")
    config = resolve_router(None, {"LLAMA_BASE_URL": "http://env:2", "LLAMA_API_KEY": "k2"})
    assert config is not None and (config.server_url, config.api_key, config.source) == (
        "http://env:2",
        "k2",
        "LLAMA_BASE_URL",
    )
    keyless = resolve_router({"type": "api_key", "env": {"LLAMA_BASE_URL": "http://s:3"}}, {})
    assert keyless is not None and keyless.api_key == "local"
    assert resolve_router({"type": "api_key", "key": "k"}, {}) is None
    assert resolve_router(None, {}) is None


async def test_a_router_chat_model_classifies_through_the_router(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import math

    from pi.ai.model_operations import classify
    from pi.ai.options import StreamOptions
    from tests.support.llama_router import LlamaRouter

    router = LlamaRouter(
        models=[router_model("qwen", "loaded")], label_logprobs={"Yes": math.log(0.8), "No": math.log(0.2)}
    )
    router.start()
    try:
        registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), None)
        registry.register_provider("llama.cpp", provider_config(router.models, router.url, "router-key"))
        (model,) = typed_models(registry, "classifier", "llama.cpp")
        question = {"type": "bool", "instructions": "Is it spam?", "criteria": "Yes when it sells something"}
        context = {"state": {"text": "buy now"}, "questions": {"spam": question}}
        options = StreamOptions(api_key=registry.get_api_key("llama.cpp"))
        result = await classify(model, context, options)  # type: ignore[arg-type]
        assert result.stop_reason == "stop", result.error_message
        assert abs(result.answers["spam"]["probability"] - 0.8) < 1e-6
        paths = router.paths("POST")
        assert {"/tokenize", "/apply-template", "/completion"} <= set(paths)
        assert {r.headers.get("authorization") for r in router.requests} == {"Bearer router-key"}
        assert {r.body["model"] for r in router.requests if r.method == "POST"} == {"qwen"}
    finally:
        router.stop()
