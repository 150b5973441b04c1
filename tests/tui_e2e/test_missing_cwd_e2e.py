"""A session whose stored cwd is gone (delta-1.6 §1.1.6): the UI asks Continue / Fork / Cancel.

The project lives under a short temporary folder so that the option lines, which hold the current
directory, fit the pane's width whole.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi, tmux_available

USAGE = {
    "input": 1,
    "output": 1,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 2,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


@pytest.fixture
def short_pi(server: ScriptedServer) -> Iterator[TmuxPi]:
    if not tmux_available():
        pytest.fail("tmux is needed for the terminal UI tests (.ci/run installs it)")
    root = Path(tempfile.mkdtemp(prefix="pc", dir="/tmp"))
    pi = TmuxPi(server, root)
    try:
        yield pi
    finally:
        pi.close()
        shutil.rmtree(root, ignore_errors=True)


def _sessions_of(pi: TmuxPi, cwd: str) -> Path:
    """The folder pi keeps the sessions of `cwd` in."""
    return pi.agent_dir / "sessions" / ("--" + cwd[1:].replace("/", "-") + "--")


def _session_of_gone_dir(pi: TmuxPi) -> tuple[Path, str]:
    """A two-message session recorded in `<root>/gone`, a folder that does not exist."""
    gone = str(pi.root / "gone")
    session_id = str(uuid.uuid4())
    folder = _sessions_of(pi, gone)
    folder.mkdir(parents=True)
    path = folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": gone},
        {
            "type": "message",
            "id": "a1a1a1a1",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "where was I"}], "timestamp": 1},
        },
        {
            "type": "message",
            "id": "b2b2b2b2",
            "parentId": "a1a1a1a1",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "In the folder that is gone."}],
                "api": "anthropic-messages",
                "provider": "fakea",
                "model": "fake-claude",
                "usage": USAGE,
                "stopReason": "stop",
                "timestamp": 2,
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, gone


@pytest.fixture
def gone(short_pi: TmuxPi) -> tuple[TmuxPi, Path, str]:
    """`(pi, session file, its cwd)`: the pi to run, and a session of a folder that does not exist."""
    path, cwd = _session_of_gone_dir(short_pi)
    return short_pi, path, cwd


def _dialog_shown(pi: TmuxPi, gone: str) -> str:
    cwd = str(pi.cwd)
    return pi.wait_for(
        lambda s: (
            f"Session cwd does not exist: {gone}" in s
            and f"→ Continue in {cwd} (asks again next time)" in s
            and f"Fork into {cwd} (new session ID, original kept)" in s
            and "   Cancel" in s
        )
    )


def _header(path: Path) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(path.read_text().splitlines()[0])
    return header


def _shows_the_old_conversation(pi: TmuxPi) -> None:
    pi.wait_for(lambda s: "In the folder that is gone." in s and "fake-claude •" in s)


def _pick_from_all_folders(pi: TmuxPi, gone: str) -> None:
    """In the open session picker: list every folder's sessions and pick the gone folder's, up to the question."""
    pi.wait_for("Resume Session (Current Folder)")
    pi.keys("Tab")
    pi.wait_for(lambda s: "Resume Session (All)" in s and "where was I" in s)
    pi.keys("Enter")
    _dialog_shown(pi, gone)


def _import_asks(pi: TmuxPi, path: Path, gone: str) -> None:
    """`/import <path>`, agreeing to replace the current session, up to the question."""
    pi.submit(f"/import {path}")
    pi.wait_for("Replace current session with")
    pi.keys("Enter")  # Yes
    _dialog_shown(pi, gone)


def _resume_asks(pi: TmuxPi, gone: str) -> None:
    pi.submit("/resume")
    _pick_from_all_folders(pi, gone)


def test_continue_runs_here_and_keeps_the_file_asking_again(
    gone: tuple[TmuxPi, Path, str], server: ScriptedServer
) -> None:
    pi, path, cwd = gone
    before = path.read_text()
    pi.start("--session", str(path))
    _dialog_shown(pi, cwd)
    pi.keys("Enter")
    _shows_the_old_conversation(pi)
    server.queue(anthropic_reply("Carrying on here."))
    pi.chat("and now?", "Carrying on here.")
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    assert _header(path)["cwd"] == cwd  # the file still names the old folder: asked again next time
    assert path.read_text().startswith(before)
    assert "and now?" in path.read_text()
    sent = server.requests[-1].json()
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    pi.close()
    pi.start("--session", str(path))
    _dialog_shown(pi, cwd)


def test_fork_continues_in_a_copy_for_the_current_folder(
    gone: tuple[TmuxPi, Path, str], server: ScriptedServer
) -> None:
    pi, path, cwd = gone
    before = path.read_text()
    pi.start("--session", str(path))
    _dialog_shown(pi, cwd)
    pi.keys("Down")
    pi.wait_for(f"→ Fork into {pi.cwd}")
    pi.keys("Enter")
    _shows_the_old_conversation(pi)
    server.queue(anthropic_reply("Forked and running."))
    pi.chat("in the fork", "Forked and running.")
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    assert path.read_text() == before  # the original is kept as it was
    (fork,) = _sessions_of(pi, str(pi.cwd)).glob("*.jsonl")
    header = _header(fork)
    assert header["cwd"] == str(pi.cwd)
    assert header["parentSession"] == str(path)
    assert header["id"] != _header(path)["id"]
    text = fork.read_text()
    assert "where was I" in text and "in the fork" in text


def test_cancel_opens_nothing(gone: tuple[TmuxPi, Path, str], server: ScriptedServer) -> None:
    pi, path, cwd = gone
    before = path.read_text()
    pi.start("--session", str(path))
    _dialog_shown(pi, cwd)
    pi.keys("Escape")
    assert pi.wait_exit() == 0
    assert "In the folder that is gone." not in pi.text(history=True)
    assert path.read_text() == before
    assert server.requests == []


def test_import_of_such_a_session_asks_too(gone: tuple[TmuxPi, Path, str], server: ScriptedServer) -> None:
    pi, path, cwd = gone
    pi.start()
    pi.wait_for("fake-claude • medium")
    _import_asks(pi, path, cwd)
    pi.keys("Down", "Down")
    pi.wait_for("→ Cancel")
    pi.keys("Enter")
    pi.wait_for(lambda s: "Import cancelled" in s and "In the folder that is gone." not in s)
    _import_asks(pi, path, cwd)
    pi.keys("Down")
    pi.wait_for(f"→ Fork into {pi.cwd}")
    pi.keys("Enter")
    pi.wait_for(lambda s: "In the folder that is gone." in s and "Session imported from: " in s)
    forks = [p for p in _sessions_of(pi, str(pi.cwd)).glob("*.jsonl") if _header(p).get("parentSession") == str(path)]
    assert len(forks) == 1
    assert _header(forks[0])["cwd"] == str(pi.cwd)


def test_resume_from_the_picker_asks_too(gone: tuple[TmuxPi, Path, str], server: ScriptedServer) -> None:
    pi, path, cwd = gone
    pi.start()
    pi.wait_for("fake-claude • medium")
    _resume_asks(pi, cwd)
    pi.keys("Escape")
    pi.wait_for(lambda s: "Resume cancelled" in s and "In the folder that is gone." not in s)
    _resume_asks(pi, cwd)
    pi.keys("Enter")  # Continue
    pi.wait_for(lambda s: "In the folder that is gone." in s and "Resumed session" in s)
    assert _header(path)["cwd"] == cwd


def test_resume_picker_at_startup_asks_too(gone: tuple[TmuxPi, Path, str], server: ScriptedServer) -> None:
    pi, path, cwd = gone
    pi.start("-r")
    _pick_from_all_folders(pi, cwd)
    pi.keys("Enter")
    _shows_the_old_conversation(pi)
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    assert _header(path)["cwd"] == cwd
