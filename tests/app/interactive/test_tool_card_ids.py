"""Tool calls whose ids repeat an earlier call's id (some providers number calls `call_0`, `call_1`
… afresh every turn): each call still gets its own card with its own output."""

from __future__ import annotations

from pathlib import Path

from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from tests.app.interactive.core_support import Harness, faux_provider, make_app

ENTER = "\r"
CTRL_C = "\x03"
NOT_FOUND = "Tool mystery not found"


async def _one_run_calling_call_0_twice(faux: FauxProvider, tmp_path: Path) -> Harness:
    """The app after "go" was sent, in a run whose two tool calls both have the id ``call_0``."""
    faux.set_responses(
        [
            faux_assistant_message([faux_tool_call("mystery", {"turn": 1}, id="call_0")]),
            faux_assistant_message([faux_tool_call("mystery", {"turn": 2}, id="call_0")]),
            faux_assistant_message("all done"),
        ]
    )
    h = make_app(faux, tmp_path, rows=60)
    await h.start()
    h.type("go")
    h.keys(ENTER)
    return h


async def test_a_reused_call_id_in_a_later_run_gets_a_new_card(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses(
            [
                faux_assistant_message([faux_tool_call("mystery", {"first": 1}, id="call_0")]),
                faux_assistant_message("first run done"),
                faux_assistant_message([faux_tool_call("mystery", {"second": 2}, id="call_0")]),
                faux_assistant_message("second run done"),
            ]
        )
        h = make_app(faux, tmp_path, rows=60)
        await h.start()
        h.type("one")
        h.keys(ENTER)
        await h.wait(lambda s: "first run done" in s and "Working" not in s)
        h.type("two")
        h.keys(ENTER)
        text = await h.wait(lambda s: "second run done" in s and "Working" not in s)
        assert '"second": 2' in text
        assert text.count(NOT_FOUND) == 2
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_a_reused_call_id_within_one_run_gets_a_new_card(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = await _one_run_calling_call_0_twice(faux, tmp_path)
        text = await h.wait(lambda s: "all done" in s and "Working" not in s)
        assert '"turn": 1' in text and '"turn": 2' in text
        assert text.count(NOT_FOUND) == 2
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_a_resumed_transcript_draws_every_call_with_a_reused_id(tmp_path: Path) -> None:
    """`rebuild` (resume, compaction) pairs each result with the latest call of that id."""
    with faux_provider() as faux:
        h = await _one_run_calling_call_0_twice(faux, tmp_path)
        await h.wait(lambda s: "all done" in s and "Working" not in s)
        h.app.chat.rebuild(h.app.session.messages)
        h.app.request_render()
        text = await h.wait(lambda s: "all done" in s and '"turn": 2' in s)
        assert text.count(NOT_FOUND) == 2
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0


def test_a_stored_failed_reply_marks_its_calls_as_never_run(tmp_path: Path) -> None:
    """A rebuilt reply that errored or was aborted mid-call: its cards say so, as they did live."""
    from pi.app.modes.interactive.chat_view import ChatView
    from pi.tui.text_width import strip_ansi
    from pi.tui.theme import builtin_theme

    chat = ChatView(builtin_theme("dark"), tmp_path, tool_names=set)
    aborted = faux_assistant_message([faux_tool_call("mystery", {"a": 1}, id="call_0")], stop_reason="aborted")
    failed = faux_assistant_message(
        [faux_tool_call("mystery", {"b": 2}, id="call_1")], stop_reason="error", error_message="stream broke"
    )
    chat.rebuild([aborted, failed])
    text = "\n".join(strip_ansi(line) for line in chat.render(80))
    assert "Operation aborted" in text
    assert "stream broke" in text
    assert not chat.tool_cards
