"""System messages of a session driven in process: patches on tool changes, no-op reorders, resumed files."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from pi.session.messages import SystemMessage
from pi.tools import create_tool

FIXTURES = Path(__file__).parent.parent / "session" / "fixtures" / "ts16"


def _session(faux: FauxProvider, tmp_path: Path, manager: SessionManager | None = None) -> AgentSession:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            thinking_level="off",
            tool_names=["read", "bash", "edit", "write"],
            settings=SettingsManager.in_memory({}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=manager or SessionManager.in_memory(str(tmp_path)),
        )
    )


def _systems(session: AgentSession) -> list[SystemMessage]:
    messages = (getattr(e, "message", None) for e in session.session.get_entries())
    return [m for m in messages if isinstance(m, SystemMessage)]


async def test_a_tool_change_is_stored_as_a_patch_and_sent_as_the_whole_new_prompt(
    faux: FauxProvider, tmp_path: Path
) -> None:
    faux.set_responses([faux_assistant_message("one"), faux_assistant_message("two"), faux_assistant_message("3")])
    session = _session(faux, tmp_path)
    await session.prompt("first")
    first = _systems(session)[0]
    assert first.sections is not None and first.tools_added is not None
    assert [t["name"] for t in first.tools_added] == ["read", "bash", "edit", "write"]
    # The model is sent the prompt the sections make, and never the system message as a message.
    assert faux.contexts[0].system_prompt == "\n\n".join(v for v in first.sections.values() if v)
    assert [m.role for m in faux.contexts[0].messages] == ["user"]

    tools = session.agent.state.tools
    session.agent.set_tools([*(t for t in tools if t.name != "write"), create_tool("grep", str(tmp_path))])
    await session.prompt("second")
    patch = _systems(session)[1]
    assert patch.tools_removed == [{"name": "write"}]
    assert patch.tools_added is not None and [t["name"] for t in patch.tools_added] == ["grep"]
    assert patch.sections is not None and "tools" in patch.sections and "cwd" not in patch.sections
    sent_prompt = faux.contexts[1].system_prompt
    assert sent_prompt is not None and "- grep:" in sent_prompt
    assert "- grep:" in session.agent.state.system_prompt
    assert [m.role for m in faux.contexts[1].messages] == ["user", "assistant", "user"]

    session.agent.set_tools(list(reversed(session.agent.state.tools)))
    await session.prompt("third")
    assert len(_systems(session)) == 2


async def test_a_resumed_session_of_the_typescript_pi_gets_a_patch_to_the_current_prompt(
    faux: FauxProvider, tmp_path: Path
) -> None:
    path = tmp_path / "ts16_simple.jsonl"
    shutil.copy(FIXTURES / "ts16_simple.jsonl", path)
    faux.set_responses([faux_assistant_message("again")])
    session = _session(faux, tmp_path, SessionManager.open(path))
    stored = session.session.get_system_state()
    assert stored is not None and list(stored.tools) == ["read", "bash", "edit", "write"]
    await session.prompt("continue")
    patch = _systems(session)[-1]
    assert patch.sections is not None and patch.sections["cwd"] == f"<cwd>\n{tmp_path}\n</cwd>"
    assert patch.tools_removed is None
    state = session.session.get_system_state()
    assert state is not None and state.prompt == faux.contexts[0].system_prompt
    entries = session.session.get_entries()
    assert [getattr(e, "message", None).role for e in entries[-3:]] == ["system", "user", "assistant"]  # type: ignore[union-attr]
