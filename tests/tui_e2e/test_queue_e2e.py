"""Steering and follow-up queue of the real `pi` in tmux (tui.md §16 checks 35–38)."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply, anthropic_tool_reply
from tests.tui_e2e.harness import TmuxPi

LONG = " ".join(f"Sentence number {i} keeps the stream going for a while." for i in range(1, 80))
HINT = "↳ Alt+Up to edit all queued messages"


def _slow() -> Any:
    return anthropic_reply(LONG, chunk_delay=0.05, pieces=6)


def _started(make_pi: Any, server: ScriptedServer, *responses: Any) -> TmuxPi:
    pi: TmuxPi = make_pi()
    server.queue(*responses)
    pi.start("--tui-mode", "regular")
    pi.wait_for("fake-claude • medium")
    return pi


def _editor_rows(pi: TmuxPi) -> list[str]:
    rows = pi.screen()
    while rows and not rows[-1].strip():
        rows.pop()
    rules = [i for i, row in enumerate(rows) if row.startswith("──")]
    return [r.strip() for r in rows[rules[-2] + 1 : rules[-1]]]


def test_check_35_queue_display(make_pi: Any, server: ScriptedServer) -> None:
    """Check 35: Enter while streaming shows the steer and the hint; Alt+Enter adds the follow-up."""
    pi = _started(make_pi, server, _slow(), anthropic_reply("ok"), anthropic_reply("ok"))
    pi.type("Tell me a long story")
    pi.keys("Enter")
    pi.wait_for("Sentence number 2")
    pi.type("please be brief")
    pi.keys("Enter")
    text = pi.wait_for(" Steering: please be brief")
    assert HINT in text
    pi.type("then list")
    pi.keys("M-Enter")
    text = pi.wait_for(" Follow-up: then list")
    assert text.index("Steering: please be brief") < text.index("Follow-up: then list") < text.index(HINT)
    pi.keys("Escape")
    pi.wait_for("Operation aborted", history=True)


def test_check_36_delivery_order(make_pi: Any, server: ScriptedServer) -> None:
    """Check 36: the steer goes out after the tool finishes (request 2: tool result, then the steer);
    the follow-up waits for the next request."""
    pi = _started(
        make_pi,
        server,
        anthropic_tool_reply("bash", {"command": "sleep 3; echo slept"}, text="Waiting first."),
        anthropic_reply("OK, I will be brief."),
        anthropic_reply("Follow-up handled."),
    )
    pi.type("go")
    pi.keys("Enter")
    pi.wait_for("Elapsed")
    pi.type("please be brief")
    pi.keys("Enter")
    pi.wait_for("Steering: please be brief")
    pi.type("then list the files")
    pi.keys("M-Enter")
    pi.wait_for("Follow-up: then list the files")
    text = pi.wait_for("Follow-up handled.", history=True)
    assert text.index("Took 3.") < text.index(" please be brief") < text.index("OK, I will be brief.")
    assert text.index("OK, I will be brief.") < text.index(" then list the files") < text.index("Follow-up handled.")
    second = server.requests[1].json()["messages"]
    assert second[-2]["role"] == "user" and second[-2]["content"][0]["type"] == "tool_result"
    assert "please be brief" in str(second[-1]) and "then list" not in str(second)
    assert "then list the files" in str(server.requests[2].json()["messages"][-1])


def test_check_37_escape_restores_queue(make_pi: Any, server: ScriptedServer) -> None:
    """Check 37: Esc aborts (`Operation aborted`), the queue lines go, the editor holds both messages."""
    pi = _started(make_pi, server, _slow())
    pi.type("Another long one")
    pi.keys("Enter")
    pi.wait_for("Sentence number 2")
    pi.type("queued one")
    pi.keys("Enter")
    pi.wait_for("Steering: queued one")
    pi.type("queued two")
    pi.keys("M-Enter")
    pi.wait_for("Follow-up: queued two")
    pi.keys("Escape")
    text = pi.wait_for("Operation aborted")
    pi.wait_idle()
    text = pi.text()
    assert HINT not in text and "Steering:" not in text
    assert _editor_rows(pi) == ["queued one", "", "queued two"]


def test_check_38_alt_up_restores_queue(make_pi: Any, server: ScriptedServer) -> None:
    """Check 38: Alt+Up with nothing queued says so; with two queued it restores both while streaming."""
    pi = _started(make_pi, server, _slow())
    pi.keys("M-Up")
    pi.wait_for("No queued messages to restore")
    pi.type("stream now")
    pi.keys("Enter")
    pi.wait_for("Sentence number 2")
    pi.type("first queued")
    pi.keys("Enter")
    pi.type("second queued")
    pi.keys("Enter")
    pi.wait_for("Steering: second queued")
    pi.keys("M-Up")
    text = pi.wait_for("Restored 2 queued messages to editor")
    assert "Working" in text
    assert _editor_rows(pi) == ["first queued", "", "second queued"]
    pi.keys("Escape")
    pi.wait_for("Operation aborted", history=True)
