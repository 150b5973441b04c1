"""Every change of session state is an event, with pi's names and camelCase fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager


async def test_model_thinking_name_entries_and_session_moves_are_reported(faux: FauxProvider, tmp_path: Path) -> None:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    reasoning = faux.model.model_copy(update={"reasoning": True})
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model.model_copy(update={"reasoning": False}),
            tools=[],
            settings=SettingsManager.in_memory(),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.create(str(tmp_path), agent_dir=tmp_path / "agent"),
        )
    )
    events: list[dict[str, Any]] = []
    session.subscribe(lambda event: events.append(event.to_json_dict()))
    faux.set_responses([faux_assistant_message("stored")])
    await session.prompt("make a file")
    first_file = session.session_file
    events.clear()

    session.set_model(reasoning)
    session.set_thinking_level("high")
    session.set_thinking_level("high")  # no change, no event
    session.set_session_name("  named  ")
    entry_id = session.append_entry("my-ext", {"n": 1})
    await session.new_session()
    assert first_file is not None
    await session.switch_session(first_file)
    await session.drain_events()

    kinds = [e["type"] for e in events if e["type"] != "queue_update"]
    assert kinds == [
        "model_select",
        "thinking_level_changed",
        "session_info_changed",
        "entry_appended",
        "session_start",
        "session_start",
    ]
    by_type = {e["type"]: e for e in events}
    select = by_type["model_select"]
    assert select["source"] == "set" and select["model"]["reasoning"] is True
    assert select["previousModel"]["reasoning"] is False
    assert by_type["thinking_level_changed"] == {"type": "thinking_level_changed", "level": "high"}
    assert by_type["session_info_changed"] == {"type": "session_info_changed", "name": "named"}
    assert by_type["entry_appended"]["entry"]["id"] == entry_id
    assert by_type["entry_appended"]["entry"]["customType"] == "my-ext"
    starts = [e for e in events if e["type"] == "session_start"]
    assert starts[0] == {"type": "session_start", "reason": "new", "previousSessionFile": first_file}
    assert starts[1]["reason"] == "resume" and starts[1]["previousSessionFile"] != first_file
    assert session.session_file == first_file and session.last_assistant_text() == "stored"
