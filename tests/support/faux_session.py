"""An AgentSession on the scripted faux model, in memory, for tests of retries and compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.app.system_prompt import PREAMBLE
from pi.session.manager import SessionManager


def make_faux_session(
    faux: FauxProvider, tmp_path: Path, settings: dict[str, Any] | None = None, context_window: int = 128000
) -> AgentSession:
    """No tools, no resources, retries 1 ms apart unless `settings` says otherwise."""
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    model = faux.model.model_copy(update={"context_window": context_window})
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=model,
            thinking_level="off",
            tools=[],
            settings=SettingsManager.in_memory({"retry": {"baseDelayMs": 1}, **(settings or {})}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


def words(n: int) -> str:
    return ("word " * n).strip()


def scripted_chat(chat: list[AssistantMessage], summary: str) -> Any:
    """Chat requests get the next scripted reply; summary requests (any number) get `summary`."""

    def reply(context: Any, options: Any, state: Any, model: Any) -> AssistantMessage:
        if (context.system_prompt or "").startswith(PREAMBLE):
            return chat.pop(0)
        return faux_assistant_message(summary)

    return reply
