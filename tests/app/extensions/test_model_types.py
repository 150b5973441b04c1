"""`ctx.model_registry` with image and classifier models: the catalog by type, what credentials make
available (a ChatGPT login hides OpenAI's classifiers), per-request keys that follow the model's
provider, and providers an extension registers with its own classifier and image code."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.app.auth import AuthStorage
from pi.app.extensions.typed_calls import CHATGPT_LOGIN_REFUSED
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support.http_server import ScriptedServer, json_response

LATER_MS = int(time.time() * 1000) + 3_600_000
QUESTION = {"spam": {"type": "bool", "instructions": "Is it spam?", "criteria": {"true": "ad", "false": "real"}}}
NOUL = {"answers": {"spam": {"type": "noul", "noul": 0.9}}, "usage": {"input_tokens": 7, "output_tokens": 1}}


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_OAUTH_TOKEN", "_AUTH_TOKEN")):
            monkeypatch.delenv(name)


@pytest.fixture
def other() -> Iterator[ScriptedServer]:
    second = ScriptedServer().start()
    yield second
    second.stop()


def session_with(
    tmp_path: Path, providers: dict[str, Any], auth: dict[str, Any], factories: list[Any] | None = None
) -> Any:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    (agent_dir / "auth.json").write_text(json.dumps(auth))
    os.chmod(agent_dir / "auth.json", 0o600)
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=None,
            tools=[],
            settings=SettingsManager.in_memory({"retry": {"enabled": False}}),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=factories or [],
        )
    )


def with_command(body_holder: dict[str, Any]) -> Any:
    def setup(pi: Any) -> None:
        async def command(args: str, ctx: Any) -> None:
            body_holder["value"] = await body_holder["body"](ctx)

        pi.register_command("typed", command)

    return setup


async def ask(tmp_path: Path, providers: dict[str, Any], auth: dict[str, Any], body: Any, extra: Any = None) -> Any:
    holder: dict[str, Any] = {"body": body}
    session = session_with(tmp_path, providers, auth, [with_command(holder), *([extra] if extra else [])])
    await session.bind_extensions()
    assert await session.run_extension_command("/typed")
    return holder["value"]


async def test_models_of_each_type_and_what_a_key_makes_available(tmp_path: Path) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        return {
            "images": [m.id for m in registry.get_models_of_type("image")],
            "classifiers": {(m.provider, m.id) for m in registry.get_models_of_type("classifier")},
            "available_images": [m.id for m in registry.get_available_of_type("image")],
            "available_classifiers": [m.id for m in registry.get_available_of_type("classifier")],
            "luna": registry.get_model_of_type("classifier", "openai", "gpt-6-luna"),
            "jev": registry.find_of_type("classifier", "typesafe", "jev-latest"),
            "not_chat": registry.get_model_of_type("chat", "typesafe", "jev-latest"),
            "chat_has_no_typed": [m.id for m in registry.get_all() if getattr(m, "type", "chat") != "chat"],
            "by_provider": [m.id for m in registry.get_models_of_type("classifier", "opencode")],
            "typesafe": registry.get_provider("typesafe"),
        }

    auth = {"typesafe": {"type": "api_key", "key": "ts-key"}}
    found = await ask(tmp_path, {}, auth, body)
    assert len(found["images"]) == 74 and "google/gemini-3-pro-image" in found["images"]
    assert {("openai", "gpt-6-luna"), ("github-copilot", "microsoft-decision-1"), ("typesafe", "jev-latest")} <= (
        found["classifiers"]
    )
    assert ("cloudflare-workers-ai", "@cf/cloudflare/clef") in found["classifiers"]
    assert found["available_images"] == [] and found["available_classifiers"] == ["jev-latest"]
    assert found["luna"].name == "GPT-6 Luna" and found["luna"].api == "openai-decisions"
    assert found["jev"].to_json_dict()["type"] == "classifier" and "maxTokens" not in found["jev"].to_json_dict()
    assert found["not_chat"] is None and found["chat_has_no_typed"] == []
    assert found["by_provider"] == ["jev-1.13", "jev-1.13-free"]
    assert found["typesafe"]["api"] == "typesafe-system-one" and [m.id for m in found["typesafe"]["models"]] == [
        "jev-latest"
    ]


async def test_a_chatgpt_login_hides_openai_classifiers_and_refuses_them(
    server: ScriptedServer, tmp_path: Path
) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        luna = registry.get_model_of_type("classifier", "openai", "gpt-6-luna")
        result = await registry.classify(luna, {"state": {}, "questions": QUESTION})
        return {
            "available": [(m.provider, m.id) for m in registry.get_available_of_type("classifier")],
            "chat_available": any(m.provider == "openai" for m in registry.get_available_of_type("chat")),
            "result": result,
        }

    login = {"type": "oauth", "access": "chatgpt-token", "refresh": "r", "expires": LATER_MS}
    providers = {"openai": {"baseUrl": f"{server.url}/v1"}}
    found = await ask(tmp_path, providers, {"openai": login}, body)
    assert found["chat_available"] is True
    assert ("openai", "gpt-6-luna") not in found["available"]
    assert found["result"].stop_reason == "error" and found["result"].error_message == CHATGPT_LOGIN_REFUSED
    assert server.requests == []

    server.queue(
        json_response(
            200, {"answers": [{"name": "spam", "type": "predicate", "probability": 0.25}], "usage": {"input_tokens": 3}}
        )
    )
    keyed = await ask(tmp_path / "keyed", providers, {"openai": {"type": "api_key", "key": "sk-real"}}, body)
    assert ("openai", "gpt-6-luna") in keyed["available"]
    assert keyed["result"].stop_reason == "stop", keyed["result"].error_message
    assert keyed["result"].answers == {"spam": {"type": "bool", "probability": 0.25}}
    assert server.requests[0].path == "/v1/decisions"
    assert server.requests[0].headers["authorization"] == "Bearer sk-real"


async def test_each_call_takes_the_key_and_server_of_its_own_models_provider(
    server: ScriptedServer, other: ScriptedServer, tmp_path: Path
) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        jev = registry.get_model_of_type("classifier", "typesafe", "jev-latest")
        opencode = {"provider": "opencode", "id": "jev-1.13"}
        context = {"state": {"text": "hi"}, "questions": QUESTION}
        return [
            await registry.classify(jev, context),
            await registry.classify(opencode, context),
            await registry.classify(jev, context),
        ]

    providers = {"typesafe": {"baseUrl": server.url}, "opencode": {"baseUrl": f"{other.url}/inference"}}
    auth = {"typesafe": {"type": "api_key", "key": "key-typesafe"}, "opencode": {"type": "api_key", "key": "key-oc"}}
    server.queue(json_response(200, NOUL), json_response(200, NOUL))
    other.queue(json_response(200, NOUL))
    results = await ask(tmp_path, providers, auth, body)
    assert [r.stop_reason for r in results] == ["stop", "stop", "stop"], [r.error_message for r in results]
    assert [(r.path, r.headers["authorization"]) for r in server.requests] == [
        ("/systemone", "Bearer key-typesafe"),
        ("/systemone", "Bearer key-typesafe"),
    ]
    assert [(r.path, r.headers["authorization"]) for r in other.requests] == [("/inference/systemone", "Bearer key-oc")]
    assert [r.json()["model"] for r in [*server.requests, *other.requests]] == ["jev-latest", "jev-latest", "jev-1.13"]


async def test_a_key_changed_between_calls_is_used_by_the_next_call(server: ScriptedServer, tmp_path: Path) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        jev = {"provider": "typesafe", "id": "jev-latest"}
        context = {"state": {}, "questions": QUESTION}
        first = await registry.classify(jev, context)
        registry.auth.set_api_key("typesafe", "rotated")
        second = await registry.classify(jev, context)
        return [first, second]

    server.queue(json_response(200, NOUL), json_response(200, NOUL))
    auth = {"typesafe": {"type": "api_key", "key": "original"}}
    results = await ask(tmp_path, {"typesafe": {"baseUrl": server.url}}, auth, body)
    seen = [r.headers["authorization"] for r in server.requests]
    assert [r.stop_reason for r in results] == ["stop", "stop"]
    assert seen == ["Bearer original", "Bearer rotated"]


async def test_unknown_models_and_wrong_types_come_back_as_errors_that_say_what_to_do(tmp_path: Path) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        return [
            await registry.classify({"provider": "typesafe", "id": "nope"}, {"state": {}, "questions": QUESTION}),
            await registry.classify(None, {"state": {}, "questions": QUESTION}),
            await registry.generate_images(registry.get_model_of_type("classifier", "typesafe", "jev-latest"), "x"),
        ]

    unknown, missing, wrong = await ask(tmp_path, {}, {}, body)
    assert unknown.error_message == (
        'Unknown classifier model typesafe/nope: list the known ones with get_models_of_type("classifier").'
    )
    assert missing.error_message.startswith("No classifier models are available: set an API key for a provider")
    assert wrong.error_message == "Model typesafe/jev-latest is not an image model"


def provider_extension(calls: list[Any]) -> Any:
    class Judge:
        async def classify(self, model: Any, context: Any, options: Any) -> Any:
            calls.append(("classify", model.id, options.api_key, sorted(context["questions"])))
            calls.append(("options", options.temperature, options.timeout_s, options.max_retries))
            return {
                "api": model.api,
                "provider": model.provider,
                "model": model.id,
                "answers": {"spam": {"type": "bool", "probability": 0.5}},
            }

    def painter(model: Any, context: Any, options: Any) -> Any:
        calls.append(("images", model.id, options.api_key, context))
        return {
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "output": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        }

    def setup(pi: Any) -> None:
        pi.register_provider(
            "studio",
            {
                "baseUrl": "http://127.0.0.1:9",
                "apiKey": "studio-key",
                "models": [
                    {"id": "judge", "name": "Judge", "type": "classifier", "api": "judge-api", "contextWindow": 1000},
                    {"id": "painter", "name": "Painter", "type": "image", "api": "paint-api", "output": ["image"]},
                ],
                "classifiers": {"judge-api": Judge()},
                "images": {"paint-api": {"generate_images": painter}},
            },
        )

    return setup


async def test_an_extension_registers_classifier_and_image_models_with_their_code(tmp_path: Path) -> None:
    calls: list[Any] = []

    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        judge = registry.get_model_of_type("classifier", "studio", "judge")
        painter = registry.get_model_of_type("image", "studio", "painter")
        return {
            "available": [m.id for m in registry.get_available_of_type("classifier", "studio")],
            "chat": [m.id for m in registry.get_all() if m.provider == "studio"],
            "classified": await registry.classify(
                judge,
                {"state": {"a": 1}, "questions": QUESTION},
                {"temperature": 0.5, "timeoutMs": 2500, "maxRetries": 0},
            ),
            "painted": await registry.generate_images(painter, {"input": [{"type": "text", "text": "sun"}]}),
        }

    found = await ask(tmp_path, {}, {}, body, provider_extension(calls))
    assert found["available"] == ["judge"] and found["chat"] == []
    assert found["classified"].answers == {"spam": {"type": "bool", "probability": 0.5}}
    assert found["painted"].stop_reason == "stop" and found["painted"].output[0].mime_type == "image/png"
    assert calls == [
        ("classify", "judge", "studio-key", ["spam"]),
        ("options", 0.5, 2.5, 0),
        ("images", "painter", "studio-key", {"input": [{"type": "text", "text": "sun"}]}),
    ]


async def test_models_json_adds_a_classifier_on_a_local_server(server: ScriptedServer, tmp_path: Path) -> None:
    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        local = registry.get_model_of_type("classifier", "local", "decider")
        return local, await registry.classify(local, {"state": {}, "questions": QUESTION})

    providers = {
        "local": {
            "baseUrl": server.url,
            "api": "typesafe-system-one",
            "apiKey": "local-key",
            "headers": {"X-Team": "pi"},
            "models": [{"id": "decider", "type": "classifier", "contextWindow": 8000}],
        }
    }
    server.queue(json_response(200, NOUL))
    local, result = await ask(tmp_path, providers, {}, body)
    assert local.api == "typesafe-system-one" and local.base_url == server.url and local.headers is None
    assert result.stop_reason == "stop", result.error_message
    assert server.requests[0].headers["x-team"] == "pi"
    assert server.requests[0].headers["authorization"] == "Bearer local-key"


async def test_an_oauth_login_and_an_api_key_each_reach_their_own_server(
    server: ScriptedServer, other: ScriptedServer, tmp_path: Path
) -> None:
    """Copilot's classifier takes the login's token per request, TypeSafe's its key; neither leaks."""

    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        context = {"state": {"text": "hi"}, "questions": QUESTION}
        decision = await registry.classify({"provider": "github-copilot", "id": "microsoft-decision-1"}, context)
        jev = await registry.classify({"provider": "typesafe", "id": "jev-latest"}, context)
        return decision, jev

    login = {"type": "oauth", "access": "copilot-token", "refresh": "gh-token", "expires": LATER_MS}
    providers = {"github-copilot": {"baseUrl": server.url}, "typesafe": {"baseUrl": other.url}}
    auth = {"github-copilot": login, "typesafe": {"type": "api_key", "key": "ts-key"}}
    server.queue(json_response(200, NOUL))
    other.queue(json_response(200, NOUL))
    decision, jev = await ask(tmp_path, providers, auth, body)
    assert decision.stop_reason == "stop" and jev.stop_reason == "stop", (decision, jev)
    (copilot_request,) = server.requests
    (typesafe_request,) = other.requests
    assert copilot_request.path == "/v1/systemone"
    assert copilot_request.headers["authorization"] == "Bearer copilot-token"
    assert copilot_request.headers["copilot-integration-id"] == "vscode-chat"
    assert copilot_request.json()["model"] == "microsoft-decision-1"
    assert typesafe_request.headers["authorization"] == "Bearer ts-key"
    assert "copilot-integration-id" not in typesafe_request.headers


async def test_a_registered_implementation_that_answers_wrongly_is_an_error_result(tmp_path: Path) -> None:
    def setup(pi: Any) -> None:
        model = {"id": "odd", "name": "Odd", "type": "classifier", "api": "odd-api", "contextWindow": 10}
        pi.register_provider(
            "odd",
            {
                "baseUrl": "http://127.0.0.1:9",
                "apiKey": "k",
                "models": [model],
                "classifiers": {"odd-api": lambda model, context, options: {"answers": "yes"}},
            },
        )
        pi.register_provider(
            "empty", {"baseUrl": "http://127.0.0.1:9", "models": [{**model, "id": "e"}], "classifiers": {"odd-api": 5}}
        )

    async def body(ctx: Any) -> Any:
        registry = ctx.model_registry
        context = {"state": {}, "questions": QUESTION}
        return [
            await registry.classify({"provider": "odd", "id": "odd"}, context),
            await registry.classify({"provider": "empty", "id": "e"}, context),
        ]

    wrong, missing = await ask(tmp_path, {}, {}, body, setup)
    assert wrong.stop_reason == "error"
    assert wrong.error_message == (
        'The "odd-api" implementation of provider odd returned an invalid result: '
        "answers: Input should be a valid dictionary"
    )
    assert missing.error_message.startswith(
        'The "odd-api" implementation registered for provider empty has no classify'
    )
