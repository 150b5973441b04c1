"""Extensions and the session's model requests: the system message with its tools, raw provider frames,
`ctx.model_registry` requests, virtual models, boundary drafts that edit or compact, idle custom messages."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.auth import AuthStorage
from pi.app.extensions.api import ExtensionAPI
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.session_extension_virtual import STATE_ENTRY
from pi.app.settings import SettingsManager
from pi.session.entries import CompactionEntry, ContextEditEntry, CustomEntry
from pi.session.manager import SessionManager
from pi.session.messages import CustomMessage
from tests.app.extensions.test_session_binding import make_session
from tests.app.oauth.wire import anthropic_reply
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply, tool_reply

NOW_MS = int(time.time() * 1000)


@pytest.fixture(autouse=True)
def _no_env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_OAUTH_TOKEN", "_AUTH_TOKEN")):
            monkeypatch.delenv(name)


def loop_session(
    server: ScriptedServer, tmp_path: Path, factories: list[Any], auth: dict[str, Any] | None = None, **options: Any
) -> Any:
    """A session on provider `loop` (model `m`, key `k`) at the loopback server; `anthropic` there too."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o700, exist_ok=True)
    providers = {
        "loop": {"baseUrl": f"{server.url}/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]},
        "anthropic": {"baseUrl": server.url},
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    (agent_dir / "auth.json").write_text(json.dumps(auth or {}))
    os.chmod(agent_dir / "auth.json", 0o600)
    registry = ModelRegistry(AuthStorage(agent_dir / "auth.json"), agent_dir / "models.json")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find("loop", "m"),
            tools=options.pop("tools", []),
            settings=SettingsManager.in_memory({"retry": {"enabled": False}}),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=factories,
            **options,
        )
    )


def _errors(session: Any) -> list[Any]:
    found: list[Any] = []
    session.on_extension_error(found.append)
    return found


# -- context_with_system ------------------------------------------------------------------------------


async def test_context_with_system_carries_the_tool_declarations(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("context_with_system")
        def only_read(event: Any, ctx: Any) -> Any:
            leading = event.messages[0]
            seen.append((leading.role, leading.content, [t["name"] for t in leading.tools_added]))
            kept = leading.model_copy(update={"tools_added": [t for t in leading.tools_added if t["name"] == "read"]})
            return {"messages": [kept, *event.messages[1:]]}

    session = make_session(faux, tmp_path, [setup], tool_names=["read", "ls"])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("done")])
    await session.prompt("hi")
    role, content, names = seen[0]
    assert role == "system" and content == session.agent.state.system_prompt and names == ["read", "ls"]
    sent = faux.contexts[0].tools or []
    assert [t.name for t in sent] == ["read"] and sent[0].parameters["properties"]["path"]
    assert faux.contexts[0].system_prompt == content


async def test_a_replaced_leading_message_without_tools_sends_none(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        pi.on("context_with_system", lambda e, c: {"messages": [{"role": "system", "content": "P"}, *e.messages[1:]]})

    session = make_session(faux, tmp_path, [setup], tool_names=["read"])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("done")])
    await session.prompt("hi")
    assert faux.contexts[0].system_prompt == "P" and not faux.contexts[0].tools


# -- provider_stream_event ----------------------------------------------------------------------------


async def test_provider_stream_event_carries_the_raw_frames(server: ScriptedServer, tmp_path: Path) -> None:
    frames: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        pi.on("provider_stream_event", lambda e, c: frames.append((e.provider, e.api, e.model, e.data)))

    session = loop_session(server, tmp_path, [setup])
    await session.bind_extensions()
    server.queue(text_reply("hello world"))
    await session.prompt("go")
    assert session.last_assistant_text() == "hello world"
    assert {f[:3] for f in frames} == {("loop", "openai-completions", "m")}
    chunks = [f[3] for f in frames]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "hello world" and chunks[-1]["usage"]["completion_tokens"] == 10


# -- ctx.model_registry -------------------------------------------------------------------------------


async def test_model_registry_requests_use_the_sessions_credentials(server: ScriptedServer, tmp_path: Path) -> None:
    results: dict[str, Any] = {}

    async def ask(args: str, ctx: Any) -> None:
        registry = ctx.model_registry
        model = registry.find("loop", "m")
        results["available"] = [m.id for m in registry.get_available() if m.provider == "loop"]
        results["provider"] = registry.get_provider("loop")["api"]
        results["auth"] = await registry.get_provider_auth("loop")
        reply = await registry.complete(model, {"messages": [{"role": "user", "content": "q1", "timestamp": 1}]})
        results["complete"] = reply.content[0].text
        stream = registry.stream_simple(model, {"messages": [{"role": "user", "content": "q2", "timestamp": 1}]})
        results["kinds"] = [event.type async for event in stream]
        results["streamed"] = (await stream.result()).content[0].text

    session = loop_session(server, tmp_path, [lambda pi: pi.register_command("ask", ask)])
    await session.bind_extensions()
    server.queue(text_reply("first answer"), text_reply("second answer"))
    assert await session.run_extension_command("/ask")
    assert results["available"] == ["m"] and results["provider"] == "openai-completions"
    assert results["auth"] == {"type": "api_key", "apiKey": "k"}
    assert results["complete"] == "first answer" and results["streamed"] == "second answer"
    assert results["kinds"][0] == "start" and results["kinds"][-1] == "done"
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer k", "Bearer k"]
    assert [r.json()["messages"][-1]["content"] for r in server.requests] == ["q1", "q2"]


async def test_model_registry_complete_uses_an_oauth_login(server: ScriptedServer, tmp_path: Path) -> None:
    login = {"type": "oauth", "access": "sk-ant-oat01-live", "refresh": "r", "expires": NOW_MS + 3600_000}
    results: dict[str, Any] = {}

    async def ask(args: str, ctx: Any) -> None:
        registry = ctx.model_registry
        model = next(m for m in registry.all_models() if m.provider == "anthropic")
        results["auth"] = await registry.get_provider_auth("anthropic")
        results["reply"] = await registry.complete(
            model, {"messages": [{"role": "user", "content": "q", "timestamp": 1}]}
        )

    session = loop_session(server, tmp_path, [lambda pi: pi.register_command("ask", ask)], {"anthropic": login})
    await session.bind_extensions()
    server.queue(anthropic_reply("from claude"))
    assert await session.run_extension_command("/ask")
    assert results["reply"].content[0].text == "from claude"
    assert results["auth"]["type"] == "oauth" and results["auth"]["apiKey"] == "sk-ant-oat01-live"
    assert server.requests[0].headers["authorization"] == "Bearer sk-ant-oat01-live"


# -- virtual models -----------------------------------------------------------------------------------


def router(seen: list[Any]) -> Any:
    def setup(pi: ExtensionAPI) -> None:
        def route(request: Any, ctx: Any) -> Any:
            seen.append((request.reason, request.state, request.thinking_level))
            count = (request.state or {}).get("count", 0) + 1
            return {"model": ctx.model_registry.find("loop", "m"), "thinkingLevel": "off", "state": {"count": count}}

        pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Auto", "route": route})

    return setup


async def test_a_virtual_model_routes_each_request(server: ScriptedServer, tmp_path: Path) -> None:
    seen: list[Any] = []

    async def execute(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        return {"content": [{"type": "text", "text": "pong"}], "details": None}

    def tool(pi: Any) -> None:
        schema = {"type": "object", "properties": {}}
        pi.register_tool({"name": "ping", "description": "d", "parameters": schema, "execute": execute})

    session = loop_session(server, tmp_path, [router(seen), tool])
    await session.bind_extensions()
    virtual = session.model_registry.find("router", "auto")
    assert virtual is not None and virtual.name == "Auto"
    session.set_model(virtual)
    server.queue(tool_reply([("ping", {})]), text_reply("routed"))
    await session.prompt("go")
    assert session.last_assistant_text() == "routed"
    assert [s[:2] for s in seen] == [("user", None), ("tool", {"count": 1})]
    assert all(r.json()["model"] == "m" and r.headers["authorization"] == "Bearer k" for r in server.requests)
    states = [
        e.data for e in session.session.get_entries() if isinstance(e, CustomEntry) and e.custom_type == STATE_ENTRY
    ]
    assert [s["state"] for s in states] == [{"count": 1}, {"count": 2}]
    assert states[-1]["routed"] == {"provider": "loop", "id": "m"}


async def test_a_failing_route_fails_the_request_with_its_reason(server: ScriptedServer, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        def route(request: Any, ctx: Any) -> Any:
            raise RuntimeError("no backend today")

        pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Auto", "route": route})

    session = loop_session(server, tmp_path, [setup])
    await session.bind_extensions()
    session.set_model(session.model_registry.find("router", "auto"))
    await session.prompt("go")
    last = session.messages[-1]
    assert last.stop_reason == "error" and not server.requests
    assert 'Virtual model "router/auto" could not route the request: no backend today' in last.error_message


async def test_a_virtual_model_cannot_take_over_a_provider_with_models(server: ScriptedServer, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        pi.register_virtual_model({"provider": "loop", "id": "v", "route": lambda r, c: None})

    session = loop_session(server, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    assert [e.event for e in errors] == ["register_virtual_model"]
    assert 'provider "loop" already has models' in str(errors[0].error)
    assert session.model_registry.find("loop", "m") is not None and session.model_registry.find("loop", "v") is None


# -- boundary drafts ----------------------------------------------------------------------------------


async def test_boundary_context_edit_and_compaction_drafts(faux: FauxProvider, tmp_path: Path) -> None:
    contexts: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("turn_end")
        def hide_first_prompt(event: Any, ctx: Any) -> Any:
            if contexts:  # only in the first run
                return None
            first = next(e for e in ctx.session_manager.get_branch() if getattr(e, "role", None) == "user")
            drafts = [{"type": "context_edit", "targetId": first.id, "replacement": {"content": "(hidden)"}}]
            return {"entries": drafts}

        @pi.on("agent_before_settle")
        def compact(event: Any, ctx: Any) -> Any:
            contexts.append(event.context["llm_messages"])
            if len(contexts) != 2:
                return None
            kept = event.context["context_entries"][-1].id
            return {"entries": [{"type": "compaction", "summary": "all about cats", "firstKeptEntryId": kept}]}

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message(t) for t in ("one", "two", "three")])
    await session.prompt("secret first prompt")
    await session.prompt("second")
    await session.prompt("third")
    sent = [json.dumps([m.model_dump(mode="json") for m in c.messages]) for c in faux.contexts]
    assert "secret first prompt" in sent[0] and "secret first prompt" not in sent[1] and "(hidden)" in sent[1]
    assert "all about cats" in sent[2] and "second" not in sent[2]
    entries = session.session.get_entries()
    assert sum(isinstance(e, ContextEditEntry) for e in entries) >= 1
    compactions = [e for e in entries if isinstance(e, CompactionEntry)]
    assert [(c.summary, c.from_hook) for c in compactions] == [("all about cats", True)]


async def test_a_draft_for_an_unknown_entry_is_rejected_whole(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        drafts = [
            {"type": "custom", "customType": "note"},
            {"type": "context_edit", "targetId": "nope", "replacement": None},
        ]
        pi.on("turn_end", lambda e, c: {"entries": drafts})

    session = make_session(faux, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("x")])
    await session.prompt("go")
    assert [str(e.error) for e in errors] == ["Invalid boundary entries: Entry nope not found"]
    assert not any(isinstance(e, (CustomEntry, ContextEditEntry)) for e in session.session.get_entries())


# -- custom messages while idle -----------------------------------------------------------------------


async def test_an_idle_custom_message_is_announced_at_once(faux: FauxProvider, tmp_path: Path) -> None:
    captured: dict[str, Any] = {}

    def setup(pi: ExtensionAPI) -> None:
        captured["pi"] = pi
        pi.on("message_end", lambda e, c: captured.setdefault("handler", e.message.role))

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    events: list[Any] = []
    session.subscribe(events.append, awaited=True)
    captured["pi"].send_message({"customType": "note", "content": "look", "display": True})
    await session.shutdown_extensions()  # waits for the message's fire-and-forget delivery
    shown = [(e.type, e.message.role) for e in events if e.type in ("message_start", "message_end")]
    assert shown == [("message_start", "custom"), ("message_end", "custom")]
    last = session.messages[-1]
    assert isinstance(last, CustomMessage)
    assert captured["handler"] == "custom" and last.custom_type == "note"


async def test_a_retried_request_is_routed_with_the_failure(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        def route(request: Any, ctx: Any) -> Any:
            failed = request.failed["message"].error_message if request.failed else None
            seen.append((request.reason, failed))
            return {"model": faux.model}

        pi.register_virtual_model({"provider": "router", "id": "auto", "route": route})

    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            tools=[],
            settings=SettingsManager.in_memory({"retry": {"baseDelayMs": 1, "maxRetries": 1}}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=[setup],
        )
    )
    await session.bind_extensions()
    router = session.model_registry.find("router", "auto")
    assert router is not None
    session.set_model(router)
    failure = faux_assistant_message(stop_reason="error", error_message="429 rate limit exceeded")
    faux.set_responses([failure, faux_assistant_message("second try")])
    await session.prompt("go")
    assert session.last_assistant_text() == "second try"
    assert seen == [("user", None), ("retry", "429 rate limit exceeded")]


async def test_model_registry_complete_routes_a_virtual_model_directly(server: ScriptedServer, tmp_path: Path) -> None:
    seen: list[Any] = []
    replies: list[str] = []

    async def ask(args: str, ctx: Any) -> None:
        virtual = ctx.model_registry.find("router", "auto")
        reply = await ctx.model_registry.complete(
            virtual, {"messages": [{"role": "user", "content": "q", "timestamp": 1}]}
        )
        replies.append(reply.content[0].text)

    session = loop_session(server, tmp_path, [router(seen), lambda pi: pi.register_command("ask", ask)])
    await session.bind_extensions()
    server.queue(text_reply("direct answer"))
    assert await session.run_extension_command("/ask")
    assert replies == ["direct answer"] and [s[0] for s in seen] == ["direct"]
    assert server.requests[0].json()["model"] == "m" and server.requests[0].headers["authorization"] == "Bearer k"


async def test_registering_the_same_virtual_model_replaces_it_and_unregistering_removes_it(
    server: ScriptedServer, tmp_path: Path
) -> None:
    captured: dict[str, Any] = {}

    def setup(pi: ExtensionAPI) -> None:
        captured["pi"] = pi
        pi.register_virtual_model({"provider": "router", "id": "auto", "name": "First", "route": lambda r, c: None})

    session = loop_session(server, tmp_path, [setup])
    await session.bind_extensions()
    pi = captured["pi"]
    pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Second", "route": lambda r, c: None})
    pi.register_virtual_model({"provider": "router", "id": "other", "name": "Other", "route": lambda r, c: None})
    assert session.model_registry.find("router", "auto").name == "Second"
    pi.unregister_virtual_model("router", "auto")
    assert session.model_registry.find("router", "auto") is None
    assert session.model_registry.find("router", "other") is not None
    pi.unregister_virtual_model("router", "other")
    assert "router" not in session.model_registry.providers()


async def test_virtual_models_come_back_with_a_reload(server: ScriptedServer, tmp_path: Path) -> None:
    seen: list[Any] = []
    session = loop_session(server, tmp_path, [router(seen)])
    await session.bind_extensions()
    session.set_model(session.model_registry.find("router", "auto"))
    await session.reload_extensions()
    assert session.model_registry.find("router", "auto") is not None
    server.queue(text_reply("after reload"))
    await session.prompt("go")
    assert session.last_assistant_text() == "after reload" and [s[0] for s in seen] == ["user"]


async def test_models_by_type_are_the_chat_catalog_and_other_types_say_they_are_missing(
    server: ScriptedServer, tmp_path: Path
) -> None:
    results: dict[str, Any] = {}

    async def ask(args: str, ctx: Any) -> None:
        registry = ctx.model_registry
        results["chat"] = [m.id for m in registry.get_models_of_type("chat") if m.provider == "loop"]
        results["available"] = [m.id for m in registry.get_available_of_type("chat") if m.provider == "loop"]
        results["image"] = {m.type for m in registry.get_models_of_type("image")}
        results["found"] = registry.get_model_of_type("chat", "loop", "m").id
        results["classifier"] = registry.find_of_type("classifier", "loop", "m")
        for name, call in (("classify", registry.classify), ("generate", registry.generate_images)):
            results[name] = (await call("text", {})).error_message
        try:
            registry.get_models_of_type("video")
        except ValueError as error:
            results["bad"] = str(error)

    session = loop_session(server, tmp_path, [lambda pi: pi.register_command("ask", ask)])
    await session.bind_extensions()
    assert await session.run_extension_command("/ask")
    assert results["chat"] == ["m"] and results["available"] == ["m"] and results["found"] == "m"
    assert results["image"] == {"image"} and results["classifier"] is None
    assert results["classify"].startswith("No classifier models are available: set an API key")
    assert results["generate"].startswith("No image models are available")
    assert results["bad"] == 'model type must be one of "chat", "image", "classifier", got \'video\''
