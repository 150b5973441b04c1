"""InteractiveApp in-process on a FakeTerminal with the faux model: layout, streaming, keys, queue,
exit; every frame equals a full redraw and no line is wider than the terminal (tui.md §16 checks
1, 2, 9, 18, 19, 35, 37, 38, 61 in-process; the tmux runs in tests/tui_e2e cover them end to end)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.ai.faux import faux_assistant_message, faux_thinking, faux_tool_call
from pi.ai.types import TextContent
from tests.app.interactive.core_support import faux_provider, make_app

pytestmark = pytest.mark.asyncio

ENTER = "\r"
ESC = "\x1b"
ALT_ENTER = "\x1b[13;3u"
ALT_UP = "\x1b[1;3A"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_O = "\x0f"
CTRL_T = "\x14"
SHIFT_TAB = "\x1b[Z"


async def test_startup_layout_and_quit_with_ctrl_d(tmp_path: Path) -> None:
    """Checks 1, 2: header, footer rows; Ctrl+D on an empty editor ends the run with 0."""
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        text = await h.wait("escape interrupt")
        rows = h.terminal.display()
        assert rows[-5] == "─" * 100 and rows[-3] == "─" * 100
        assert rows[-1].startswith("0.0%/") and rows[-1].endswith(faux.model.id)
        assert " ▀▀█  v1.2.3" in text and "Press ctrl+o to show full startup help and loaded resources." in text
        h.keys(CTRL_D)
        assert await h.finished() == 0
        h.check_frames()
        assert not h.terminal.modes


async def test_streamed_reply_with_thinking_and_tool_card(tmp_path: Path) -> None:
    """Checks 9, 17: the working rule while streaming, thinking and text, an unknown tool's card."""
    with faux_provider(tokens_per_second=400) as faux:
        faux.set_responses(
            [
                faux_assistant_message([faux_thinking("Planning the work."), faux_tool_call("mystery", {"a": 1})]),
                faux_assistant_message("## Plan\n\nAll **done** with `code` here."),
            ]
        )
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("hello there")
        h.keys(ENTER)
        await h.wait(" Working ")
        text = await h.wait("All done with code here.")
        await h.wait(lambda s: "Working" not in s)
        text = h.screen()
        assert " hello there" in text and "Planning the work." in text
        assert "Tool mystery not found" in text
        assert "Plan" in text and "##" not in text
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_toggles_show_statuses(tmp_path: Path) -> None:
    """Checks 18, 19 and Shift+Tab: Ctrl+O twice replaces its status; Ctrl+T hides thinking."""
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message([faux_thinking("Hidden idea."), TextContent(text="Visible.")])])
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("go")
        h.keys(ENTER)
        await h.wait("Visible.")
        await h.wait(lambda s: "Working" not in s)
        h.keys(CTRL_O)
        await h.wait("Tool output: expanded")
        h.keys(CTRL_O)
        text = await h.wait("Tool output: collapsed")
        assert "Tool output: expanded" not in text
        h.keys(CTRL_T)
        text = await h.wait("Thinking blocks: hidden")
        assert "Thinking..." in text and "Hidden idea." not in text
        assert h.app.settings.get("hideThinkingBlock") is True
        h.keys(SHIFT_TAB)
        await h.wait("Current model does not support thinking")
        h.keys(ALT_UP)
        await h.wait("No queued messages to restore")
        h.keys(CTRL_D)
        assert await h.finished() == 0
        h.check_frames()


async def test_queue_display_escape_restore(tmp_path: Path) -> None:
    """Checks 35, 37: steer and follow-up lines with the hint; Esc aborts and restores both in order."""
    with faux_provider(tokens_per_second=40) as faux:
        faux.set_responses([faux_assistant_message(" ".join(f"word{i}" for i in range(400)))])
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("long story")
        h.keys(ENTER)
        await h.wait("word3")
        h.type("queued one")
        h.keys(ENTER)
        await h.wait(" Steering: queued one")
        h.type("queued two")
        h.keys(ALT_ENTER)
        text = await h.wait(" Follow-up: queued two")
        assert "↳ Alt+Up to edit all queued messages" in text
        h.type("draft")
        h.keys(ESC)
        text = await h.wait("Operation aborted")
        await h.wait(lambda s: "Steering:" not in s and "Working" not in s)
        assert h.app.editor.get_text() == "queued one\n\nqueued two\n\ndraft"
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_alt_up_restores_while_streaming(tmp_path: Path) -> None:
    """Check 38: Alt+Up restores two queued messages without aborting the reply."""
    with faux_provider(tokens_per_second=60) as faux:
        faux.set_responses([faux_assistant_message(" ".join(f"tok{i}" for i in range(200)))])
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("stream")
        h.keys(ENTER)
        await h.wait("tok2")
        h.type("a1")
        h.keys(ENTER)
        h.type("a2")
        h.keys(ENTER)
        await h.wait("Steering: a2")
        h.keys(ALT_UP)
        await h.wait("Restored 2 queued messages to editor")
        assert h.app.session.is_streaming
        assert h.app.editor.get_text() == "a1\n\na2"
        h.keys(ESC)
        await h.wait("Operation aborted")
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0


async def test_resize_keeps_frames_consistent(tmp_path: Path) -> None:
    """A resize lays everything out again: the new screen equals a full redraw at the new size."""
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("A reply long enough to wrap differently. " * 6)])
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("hi")
        h.keys(ENTER)
        await h.wait(lambda s: "Working" not in s and "differently" in s)
        before = h.terminal.frames_checked
        h.terminal.resize(60, 20)
        await h.wait(lambda s: h.terminal.frames_checked > before)
        assert max(len(r) for r in h.terminal.display()) <= 60
        rows = h.terminal.display()
        assert rows[-1].endswith(faux.model.id)
        h.keys(CTRL_D)
        assert await h.finished() == 0
        h.check_frames()


async def test_regular_mode_frames(tmp_path: Path) -> None:
    """The regular renderer draws the same tree inline; every frame equals a full redraw."""
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("Inline answer.")])
        h = make_app(faux, tmp_path, mode="regular")
        await h.start()
        h.type("hi")
        h.keys(ENTER)
        await h.wait("Inline answer.")
        await h.wait(lambda s: "Working" not in s)
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_without_a_model_the_ui_opens_and_explains(tmp_path: Path) -> None:
    """No model: the UI still opens and says how to connect one; a prompt gets a clear error."""
    with faux_provider() as faux:
        h = make_app(faux, tmp_path, no_model=True)
        await h.start()
        text = await h.wait("No model available")
        assert "API key" in " ".join(text.split()) and "models.json" in text.replace("\n", "")
        h.type("hello")
        h.keys(ENTER)
        await h.wait("Error:")
        h.keys(CTRL_D)
        assert await h.finished() == 0


async def test_esc_right_after_enter_keeps_the_command_from_running(tmp_path: Path) -> None:
    """Esc pressed before the `!` command's task has started must still cancel it, not be lost."""
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        marker = tmp_path / "ran"
        h.type(f"!sleep 30; touch {marker}")
        h.keys(ENTER)
        h.keys(ESC)  # nothing awaited in between: the command's task has not run yet
        await h.wait("(cancelled)")
        assert not h.app.bash.running
        assert not marker.exists()


async def test_slash_quit_and_bash_refusal(tmp_path: Path) -> None:
    """`!` output streams into a block; a second `!` while one runs is refused; `/quit` ends the run."""
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        h.type("!sleep 2; echo done")
        h.keys(ENTER)
        await h.wait("Running...")
        h.type("!echo other")
        h.keys(ENTER)
        await h.wait("A bash command is already running. Press Esc to cancel it first.")
        assert h.app.editor.get_text() == "!echo other"
        h.keys(ESC)
        await h.wait("(cancelled)")
        h.keys(CTRL_C)
        h.type("/quit")
        h.keys(ENTER)
        assert await h.finished() == 0
        h.check_frames()
