"""Resuming a long session, or switching to one, builds none of its message objects until something
reads the messages.

`get_state` (RPC) needs only their number; the first request needs all of them, in order.
"""

from __future__ import annotations

from pathlib import Path

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage, TextContent, UserMessage
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.modes.rpc_shapes import state_json
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.entries import MessageEntry
from pi.session.manager import SessionManager

TURNS = 25


def _write_history(tmp_path: Path, faux: FauxProvider) -> Path:
    manager = SessionManager.create(str(tmp_path), session_dir=tmp_path / "sessions")
    model = faux.model
    for turn in range(TURNS):
        manager.append_message(UserMessage(content=f"question {turn}"))
        manager.append_message(
            AssistantMessage(
                content=[TextContent(text=f"answer {turn}")], api=model.api, provider=model.provider, model=model.id
            )
        )
    file = manager.get_session_file()
    assert file is not None
    return file


def _resume(faux: FauxProvider, tmp_path: Path, file: Path) -> tuple[AgentSession, SessionManager]:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    manager = SessionManager.open(file)
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            tools=[],
            settings=SettingsManager.in_memory({}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=manager,
        )
    )
    return session, manager


def _parsed(manager: SessionManager) -> int:
    return sum(1 for e in manager.get_entries() if isinstance(e, MessageEntry) and e.parsed is not None)


async def test_get_state_of_a_resumed_session_builds_no_message(faux: FauxProvider, tmp_path: Path) -> None:
    session, manager = _resume(faux, tmp_path, _write_history(tmp_path, faux))
    state = state_json(session)
    assert state["messageCount"] == 2 * TURNS
    assert session.message_count == 2 * TURNS
    assert _parsed(manager) == 0


async def test_the_first_request_after_resuming_carries_the_whole_history(faux: FauxProvider, tmp_path: Path) -> None:
    session, manager = _resume(faux, tmp_path, _write_history(tmp_path, faux))
    faux.set_responses([faux_assistant_message("the last answer")])
    await session.prompt("one more question")
    sent = faux.contexts[-1].messages
    texts = [m.content if isinstance(m.content, str) else m.content[0].text for m in sent]  # type: ignore[union-attr]
    expected = [text for turn in range(TURNS) for text in (f"question {turn}", f"answer {turn}")]
    assert texts[: 2 * TURNS] == expected
    assert texts[-1] == "one more question"
    assert _parsed(manager) >= 2 * TURNS
    assert session.message_count == len(session.messages)
    assert [m.role for m in session.messages][-2:] == ["user", "assistant"]
    reopened = SessionManager.open(manager.get_session_file() or "")
    assert len(reopened.build_session_context().messages) == len(session.messages)


async def test_switching_to_a_long_session_builds_no_message_until_read(faux: FauxProvider, tmp_path: Path) -> None:
    long_file = _write_history(tmp_path, faux)
    other = SessionManager.create(str(tmp_path), session_dir=tmp_path / "other")
    other.append_message(UserMessage(content="elsewhere"))
    session, _ = _resume(faux, tmp_path, other.get_session_file() or Path())
    await session.switch_session(str(long_file))
    manager = session.session
    assert session.message_count == 2 * TURNS
    assert state_json(session)["messageCount"] == 2 * TURNS
    assert _parsed(manager) == 0
    texts = [m.content if isinstance(m.content, str) else m.content[0].text for m in session.messages]  # type: ignore[union-attr]
    assert texts == [text for turn in range(TURNS) for text in (f"question {turn}", f"answer {turn}")]
    assert _parsed(manager) == 2 * TURNS
