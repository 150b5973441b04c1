"""Virtual models in a session: each routed request carries the routed provider's own key and headers,
and the last route the footer shows is kept where it is recorded (right after resume, /tree and fork)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi.ai.types import Model
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.modes.interactive.footer import Footer
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.entries import MessageEntry
from pi.session.manager import SessionManager
from pi.tui.theme import Theme
from tests.support.http_server import RecordedRequest, ScriptedServer
from tests.support.openai_chunks import text_reply


@pytest.fixture(autouse=True)
def _team_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.endswith(("_API_KEY", "_OAUTH_TOKEN", "_AUTH_TOKEN")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ALPHA_TEAM", "team-a")
    monkeypatch.setenv("BETA_TEAM", "team-b")


def _provider(server: ScriptedServer, name: str, key: str, header: str, variable: str) -> dict[str, Any]:
    return {
        "baseUrl": f"{server.url}/{name}/v1",
        "api": "openai-completions",
        "apiKey": key,
        "headers": {header: f"${variable}"},
        "models": [{"id": f"{name}-model", "reasoning": True}],
    }


def _router(plan: list[str]) -> Any:
    """A virtual model `router/auto` that sends the n-th routed request to provider `plan[n]`."""

    def setup(pi: Any) -> None:
        def route(request: Any, ctx: Any) -> Any:
            count = (request.state or {}).get("count", 0)
            target = plan[count % len(plan)]
            level = "low" if target == "alpha" else "high"
            return {"model": f"{target}/{target}-model", "thinkingLevel": level, "state": {"count": count + 1}}

        pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Auto", "route": route})

    return setup


def two_provider_session(
    server: ScriptedServer,
    tmp_path: Path,
    plan: list[str],
    manager: SessionManager | None = None,
    extra: list[Any] | None = None,
) -> AgentSession:
    """A session whose models.json has providers `alpha` (key ka, x-alpha) and `beta` (key kb, x-beta)."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o700, exist_ok=True)
    providers = {
        "alpha": _provider(server, "alpha", "ka", "x-alpha", "ALPHA_TEAM"),
        "beta": _provider(server, "beta", "kb", "x-beta", "BETA_TEAM"),
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    registry = ModelRegistry(AuthStorage.in_memory(), agent_dir / "models.json")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find("alpha", "alpha-model"),
            tools=[],
            settings=SettingsManager.in_memory({"retry": {"enabled": False}}),
            model_registry=registry,
            resources=Resources(),
            session_manager=manager or SessionManager.in_memory(str(tmp_path)),
            extension_factories=[_router(plan), *(extra or [])],
        )
    )


def _registered(session: AgentSession, provider: str, model_id: str) -> Model:
    """The registry's model, which the test expects to be there."""
    model = session.model_registry.find(provider, model_id)
    assert model is not None, f"{provider}/{model_id} is not registered"
    return model


def _credentials(request: RecordedRequest) -> tuple[str, str, str | None, str | None]:
    headers = {k.lower(): v for k, v in request.headers.items()}
    return request.path.split("/")[1], headers["authorization"], headers.get("x-alpha"), headers.get("x-beta")


ALPHA = ("alpha", "Bearer ka", "team-a", None)
BETA = ("beta", "Bearer kb", None, "team-b")


async def test_each_routed_request_carries_only_its_providers_key_and_headers(
    server: ScriptedServer, tmp_path: Path
) -> None:
    session = two_provider_session(server, tmp_path, ["alpha", "beta"])
    await session.bind_extensions()
    virtual = _registered(session, "router", "auto")
    session.set_model(virtual)
    server.queue(*(text_reply(f"answer {n}") for n in range(5)))
    await session.prompt("one")  # routed to alpha
    await session.prompt("two")  # routed to beta
    session.set_model(_registered(session, "beta", "beta-model"))
    await session.prompt("three")  # beta itself
    session.set_model(virtual)
    await session.prompt("four")  # routed to alpha again
    await session.prompt("five")  # routed to beta again
    assert [_credentials(r) for r in server.requests] == [ALPHA, BETA, BETA, ALPHA, BETA]
    assert all("pi-virtual" not in json.dumps(r.headers) for r in server.requests)


async def test_a_direct_request_to_a_virtual_model_merges_like_one_to_the_routed_model(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """The caller's own headers and the routed provider's configured ones, with the routed provider's key."""
    replies: list[Any] = []

    async def ask(args: str, ctx: Any) -> None:
        registry = ctx.model_registry
        context = {"messages": [{"role": "user", "content": "q", "timestamp": 1}]}
        for model in (registry.find("router", "auto"), registry.find("beta", "beta-model")):
            replies.append(await registry.complete(model, context, {"headers": {"x-caller": "c"}}))

    session = two_provider_session(server, tmp_path, ["beta"], extra=[lambda pi: pi.register_command("ask", ask)])
    await session.bind_extensions()
    server.queue(text_reply("routed"), text_reply("physical"))
    assert await session.run_extension_command("/ask")
    assert [r.stop_reason for r in replies] == ["stop", "stop"], [r.error_message for r in replies]
    routed, physical = ({k.lower(): v for k, v in r.headers.items()} for r in server.requests)
    assert routed["x-caller"] == physical["x-caller"] == "c"
    assert routed["authorization"] == physical["authorization"] == "Bearer kb"
    assert routed["x-beta"] == physical["x-beta"] == "team-b" and "x-alpha" not in routed


# -- the last route ---------------------------------------------------------------------------------

ON_ALPHA = ("alpha-model", "low")
ON_BETA = ("beta-model", "high")


def _entry_of(session: AgentSession, role: str, text: str) -> str:
    """The id of the branch's message entry of `role` whose text contains `text`."""
    for entry in session.session.get_branch():
        message = entry.message if isinstance(entry, MessageEntry) else None
        content = getattr(message, "content", None)
        texts = [content] if isinstance(content, str) else [getattr(part, "text", "") for part in content or []]
        if getattr(message, "role", None) == role and any(text in t for t in texts):
            return entry.id
    raise AssertionError(f"no {role} message with {text!r} on the branch")


def _branch_reads(session: AgentSession, monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """Counts the walks over the session's branch or entries from now on."""
    reads: list[None] = []
    manager = session.session
    for name in ("get_branch", "get_entries"):
        original = getattr(manager, name)

        def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            reads.append(None)
            return _original(*args, **kwargs)

        monkeypatch.setattr(manager, name, counted)
    return reads


async def test_the_last_route_follows_tree_moves_forks_and_resumes(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = tmp_path / "sessions"
    session = two_provider_session(server, tmp_path, ["alpha", "beta"], SessionManager.create(str(tmp_path), sessions))
    await session.bind_extensions()

    def on_virtual() -> tuple[str, str | None] | None:
        """The last route, once the virtual model is current again (a move restores the routed one)."""
        session.set_model(_registered(session, "router", "auto"))
        return session.routed_model()

    assert on_virtual() is None
    server.queue(*(text_reply(f"answer {n}") for n in range(1, 4)))
    await session.prompt("one")
    assert session.routed_model() == ON_ALPHA
    await session.prompt("two")
    assert session.routed_model() == ON_BETA
    original, leaf = session.session_file, session.session.get_leaf_id()
    assert original is not None and leaf is not None

    await session.navigate_tree(_entry_of(session, "assistant", "answer 1"))
    assert on_virtual() == ON_ALPHA
    await session.navigate_tree(leaf)
    assert on_virtual() == ON_BETA

    await session.fork(_entry_of(session, "user", "two"))
    assert session.session_file != original and on_virtual() == ON_ALPHA
    await session.prompt("three")  # the fork's own second route: beta
    assert session.routed_model() == ON_BETA and _credentials(server.requests[-1]) == BETA

    await session.navigate_tree(_entry_of(session, "assistant", "answer 1"))
    assert on_virtual() == ON_ALPHA
    assert (await session.switch_session(original))["cancelled"] is False
    assert on_virtual() == ON_BETA

    reopened = two_provider_session(server, tmp_path, ["alpha", "beta"], SessionManager.open(original, sessions))
    await reopened.bind_extensions()
    reopened.set_model(_registered(reopened, "router", "auto"))
    assert reopened.routed_model() == ON_BETA


async def test_a_footer_render_does_not_walk_the_branch(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = two_provider_session(server, tmp_path, ["beta"])
    await session.bind_extensions()
    session.set_model(_registered(session, "router", "auto"))
    server.queue(text_reply("routed"))
    await session.prompt("one")
    footer = Footer(session, Theme.plain(), str(tmp_path))
    reads = _branch_reads(session, monkeypatch)
    for width in (60, 80, 100):
        footer.invalidate()
        assert "(router) auto → beta-model • high" in footer.render(width)[1]
    assert reads == []
