"""`pi --resume` in tmux (tui.md §16 check 47) and resuming a session with its transcript."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi


def test_check_47_resume_picker_cancel(make_pi: Any) -> None:
    """Check 47: `pi --resume`, then Esc, prints `No session selected` and exits 0."""
    pi: TmuxPi = make_pi()
    pi.start("--resume")
    pi.wait_for("Resume Session")
    pi.keys("Escape")
    assert pi.wait_exit() == 0
    assert "No session selected" in pi.text(history=True)


def test_resume_picker_opens_the_chosen_session(make_pi: Any, server: ScriptedServer) -> None:
    """A session made in one run is listed by `pi -r`; Enter opens it with its transcript and history."""
    pi: TmuxPi = make_pi()
    server.queue(anthropic_reply("Remember the number 42."))
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.type("first run prompt")
    pi.keys("Enter")
    pi.wait_for("Remember the number 42.")
    pi.wait_idle()
    pi.keys("C-d")
    assert pi.wait_exit() == 0
    pi.close()
    pi.start("-r")
    pi.wait_for("first run prompt")
    pi.keys("Enter")
    # One predicate for the whole frame: a capture can land while the frame is still being drawn.
    pi.wait_for(lambda s: "Remember the number 42." in s and " first run prompt" in s and "fake-claude • medium" in s)
    pi.keys("Up")
    pi.wait_for(lambda s: s.count("first run prompt") >= 2)
