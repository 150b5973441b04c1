"""`/llama`: listing, loading, unloading and downloading through `ctx.ui`, against a loopback router."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pi.app.auth import AuthStorage
from pi.app.llama.config import NOT_CONFIGURED
from pi.app.llama.extension import LlamaProvider
from pi.app.llama.manager import DOWNLOAD_ROW, run_llama_command
from pi.app.model_registry import ModelRegistry
from tests.support.http_server import ScriptedServer, json_response
from tests.support.llama_router import LlamaRouter, router_model

Answer = Callable[[str, list[str]], str | None]


@dataclass
class ScriptedUI:
    """Answers each dialog with the next scripted function of (title, options); records everything."""

    answers: list[Answer]
    dialogs: list[tuple[str, list[str]]] = field(default_factory=list)
    notes: list[tuple[str, str | None]] = field(default_factory=list)
    statuses: list[str | None] = field(default_factory=list)

    def _next(self, title: str, options: list[str]) -> str | None:
        self.dialogs.append((title, options))
        return self.answers.pop(0)(title, options) if self.answers else None

    async def select(self, title: str, options: list[str], **_: Any) -> str | None:
        return self._next(title, list(options))

    async def confirm(self, title: str, message: str, **_: Any) -> bool:
        return self._next(f"{title}|{message}", ["Yes", "No"]) == "Yes"

    async def input(self, title: str, placeholder: str | None = None, **_: Any) -> str | None:
        return self._next(title, [placeholder or ""])

    def notify(self, message: str, type: str | None = None) -> None:
        self.notes.append((message, type))

    def set_status(self, key: str, text: str | None) -> None:
        self.statuses.append(text)


@dataclass
class Ctx:
    ui: ScriptedUI
    model_registry: ModelRegistry
    mode: str = "tui"


class RegisteringPi:
    def __init__(self, registry: ModelRegistry) -> None:
        self.registry = registry

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        self.registry.register_provider(name, config)


def pick(text: str) -> Answer:
    """Choose the option starting with `text`."""
    return lambda _title, options: next(o for o in options if o.startswith(text))


def close(_title: str, _options: list[str]) -> None:
    return None


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, router: LlamaRouter) -> ModelRegistry:
    monkeypatch.setenv("LLAMA_BASE_URL", router.url)
    return ModelRegistry(AuthStorage(tmp_path / "auth.json"), None)


async def _run(registry: ModelRegistry, *answers: Answer, mode: str = "tui") -> ScriptedUI:
    ui = ScriptedUI(list(answers))
    await run_llama_command(LlamaProvider(RegisteringPi(registry)), Ctx(ui, registry, mode))  # type: ignore[arg-type]
    return ui


async def test_the_list_shows_each_model_with_its_state(router: LlamaRouter, registry: ModelRegistry) -> None:
    router.models = [
        router_model("zeta", "unloaded"),
        router_model("alpha", "loaded", meta={"n_ctx": 32768}),
        router_model("beta", "downloading"),
    ]
    ui = await _run(registry, close)
    title, rows = ui.dialogs[0]
    assert title == f"llama.cpp models  {router.url}"
    assert rows == ["alpha  ·  loaded · 33k context", "beta  ·  downloading", "zeta", DOWNLOAD_ROW]
    assert [m.id for m in registry.provider_models("llama.cpp")] == ["alpha"]


async def test_loading_with_another_model_loaded_can_unload_it_first(
    router: LlamaRouter, registry: ModelRegistry
) -> None:
    router.models = [router_model("alpha", "loaded"), router_model("zeta")]
    ui = await _run(registry, pick("zeta"), pick("Unload all and load"), close)
    assert ui.dialogs[1] == ("1 model is loaded", ["Unload all and load", "Keep loaded and load", "Cancel"])
    assert ("Loaded zeta", None) in ui.notes
    assert {m["id"]: m["status"]["value"] for m in router.models} == {"alpha": "unloaded", "zeta": "loaded"}
    assert [m.id for m in registry.provider_models("llama.cpp")] == ["zeta"]
    assert ui.dialogs[-1][1][0] == "zeta  ·  loaded" and ui.statuses[-1] is None
    assert "Loading model zeta: Loading model" in ui.statuses


async def test_keeping_the_others_loaded_and_cancelling(router: LlamaRouter, registry: ModelRegistry) -> None:
    router.models = [router_model("alpha", "loaded"), router_model("zeta")]
    await _run(registry, pick("zeta"), pick("Cancel"), close)
    assert router.paths("POST") == []
    await _run(registry, pick("zeta"), pick("Keep loaded and load"), close)
    assert {m["id"]: m["status"]["value"] for m in router.models} == {"alpha": "loaded", "zeta": "loaded"}


async def test_a_failed_load_restores_the_unloaded_models(router: LlamaRouter, registry: ModelRegistry) -> None:
    router.models = [router_model("alpha", "loaded"), router_model("bad")]
    router.fail_loading = {"bad"}
    ui = await _run(registry, pick("bad"), pick("Unload all and load"), close)
    assert ("Restoring previously loaded models", None) in ui.notes
    assert ("Model exited with code 1", "error") in ui.notes
    assert router.models[0]["status"]["value"] == "loaded"


async def test_unloading_asks_first(router: LlamaRouter, registry: ModelRegistry) -> None:
    router.models = [router_model("alpha", "loaded")]
    ui = await _run(registry, pick("alpha"), pick("No"), pick("alpha"), pick("Yes"), close)
    assert ui.dialogs[1][0] == "Unload model?|alpha"
    assert ui.notes == [("Unloaded alpha", None)]
    assert router.paths("POST") == ["/models/unload"]
    assert registry.provider_models("llama.cpp") == []


@pytest.fixture
def hub(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    """The Hugging Face API, played back by the loopback server."""
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_TOKEN", "hf-secret")
    return server


def _repository(gated: object = False) -> dict[str, object]:
    mib = 1024 * 1024
    files = [
        {"rfilename": "tiny-Q8_0.gguf", "size": 2 * mib},
        {"rfilename": "Q4/tiny-Q4_K_M-00001-of-00002.gguf", "size": mib // 2},
        {"rfilename": "Q4/tiny-Q4_K_M-00002-of-00002.gguf", "size": mib // 2},
        {"rfilename": "mmproj-F16.gguf", "size": mib},
        {"rfilename": "README.md", "size": 10},
    ]
    return {"id": "ggml-org/tiny-GGUF", "gated": gated, "siblings": files}


async def test_an_exact_repository_and_quantization_is_downloaded_by_the_router(
    router: LlamaRouter, registry: ModelRegistry, hub: ScriptedServer
) -> None:
    hub.queue(json_response(200, _repository()))
    ui = await _run(registry, pick(DOWNLOAD_ROW), lambda _t, _o: "ggml-org/tiny-GGUF:Q4_K_M", close)
    assert ui.dialogs[1] == ("Download model", ["Model name or owner/repository[:quant]"])
    assert ("Downloaded ggml-org/tiny-GGUF:Q4_K_M", None) in ui.notes
    assert ui.dialogs[-1][1] == ["ggml-org/tiny-GGUF:Q4_K_M", DOWNLOAD_ROW]
    assert any("50%" in (s or "") and "512.0 KiB / 1.00 MiB" in (s or "") for s in ui.statuses)
    (details,) = hub.requests
    assert details.path == "/api/models/ggml-org/tiny-GGUF?blobs=true"
    assert details.headers["authorization"] == "Bearer hf-secret"
    assert next(r for r in router.requests if r.method == "POST").body == {"model": "ggml-org/tiny-GGUF:Q4_K_M"}


async def test_a_search_then_the_quantization_choose_the_download(
    router: LlamaRouter, registry: ModelRegistry, hub: ScriptedServer
) -> None:
    hub.queue(
        json_response(200, [{"id": "ggml-org/tiny-GGUF", "downloads": 12345}, {"id": "other/x", "downloads": 7}]),
        json_response(200, _repository(gated="auto")),
    )
    ui = await _run(
        registry, pick(DOWNLOAD_ROW), lambda _t, _o: "tiny", pick("ggml-org"), pick("Continue"), pick("Q8_0"), close
    )
    assert ui.dialogs[2] == (
        "Download model: tiny",
        ["ggml-org/tiny-GGUF  ·  12.3k downloads", "other/x  ·  7 downloads"],
    )
    assert ui.dialogs[3][0].startswith("Hugging Face access required for ggml-org/tiny-GGUF: Accept the access terms")
    assert ui.dialogs[4] == (
        "Select quantization for ggml-org/tiny-GGUF",
        ["Q4_K_M · 1.00 MiB · recommended", "Q8_0 · 2.00 MiB"],
    )
    assert ("Downloaded ggml-org/tiny-GGUF:Q8_0", None) in ui.notes
    search = hub.requests[0]
    assert search.path == "/api/models?search=tiny&filter=gguf&sort=downloads&direction=-1&limit=20"


async def test_hugging_face_failures_are_shown(
    router: LlamaRouter, registry: ModelRegistry, hub: ScriptedServer
) -> None:
    hub.queue(json_response(200, []), json_response(429, {}, {"retry-after": "30"}))
    ui = await _run(
        registry, pick(DOWNLOAD_ROW), lambda _t, _o: "nothing", pick(DOWNLOAD_ROW), lambda _t, _o: "x/y", close
    )
    assert ui.notes == [("No GGUF models found", "warning"), ("Hugging Face rate limit reached; retry in 30s", "error")]
    assert [r.path for r in router.requests if r.method == "POST"] == []


async def test_an_unreachable_router_offers_retry_and_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, router: LlamaRouter
) -> None:
    monkeypatch.setenv("LLAMA_BASE_URL", "http://127.0.0.1:1")
    registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), None)
    ui = await _run(registry, pick("Retry"), pick("Close"))
    assert ui.dialogs[0] == (
        "llama.cpp unavailable: http://127.0.0.1:1 (Could not connect to the server.)",
        ["Retry", "Close"],
    )
    assert len(ui.dialogs) == 2


async def test_outside_the_terminal_ui_and_unconfigured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: ModelRegistry
) -> None:
    ui = await _run(registry, mode="print")
    assert ui.notes == [("/llama is available in interactive mode", "warning")]
    monkeypatch.delenv("LLAMA_BASE_URL")
    ui = await _run(registry)
    assert ui.notes == [(NOT_CONFIGURED, "warning")]
