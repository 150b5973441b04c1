"""`ctx.ui` dialogs in the terminal: select, confirm, input and editor in the editor's place, answered by
keys, cancelled with Esc, timed out with a live countdown, aborted by a signal (extensions.md §1.8)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi.ai.abort import AbortController
from tests.app.interactive.core_support import faux_provider
from tests.app.interactive.extension_ui_support import CTRL_C, DOWN, ENTER, ESC, make_extension_app, settle, ui_of

pytestmark = pytest.mark.asyncio


async def test_select_answers_the_chosen_option_and_gives_the_editor_back(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        task = asyncio.ensure_future(ui.select("Allow dangerous command?", ["Allow", "Block"]))
        text = await h.wait("Allow dangerous command?")
        assert "→ Allow" in text and "Block" in text
        assert "↑↓ navigate" in text
        h.keys(DOWN)
        await h.wait("→ Block")
        h.keys(ENTER)
        assert await settle(task) == "Block"
        await h.wait(lambda s: "Allow dangerous command?" not in s)
        h.type("typed after")
        await h.wait("typed after")
        assert h.app.slot.selector is None
        h.check_frames()


async def test_select_escape_and_ctrl_c_cancel_to_none(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        for key in (ESC, CTRL_C):
            task = asyncio.ensure_future(ui.select("Pick one", ["a", "b"]))
            await h.wait("Pick one")
            h.keys(key)
            assert await settle(task) is None
            await h.wait(lambda s: "Pick one" not in s)
        h.check_frames()


async def test_confirm_yes_no_and_escape(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        task = asyncio.ensure_future(ui.confirm("Clear session?", "All messages will be lost."))
        text = await h.wait("Clear session?")
        assert "All messages will be lost." in text and "→ Yes" in text
        h.keys(ENTER)
        assert await settle(task) is True
        task = asyncio.ensure_future(ui.confirm("Clear session?", "Really?"))
        await h.wait("Really?")
        h.keys(DOWN, ENTER)
        assert await settle(task) is False
        task = asyncio.ensure_future(ui.confirm("Clear session?", "Once more?"))
        await h.wait("Once more?")
        h.keys(ESC)
        assert await settle(task) is False


async def test_timed_select_counts_down_in_its_title_then_answers_none(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        task = asyncio.ensure_future(ui.select("Continue?", ["Yes", "No"], timeout_ms=2000))
        await h.wait("Continue? (2s)")
        await h.wait("Continue? (1s)")
        assert await settle(task) is None
        await h.wait(lambda s: "Continue?" not in s)
        h.check_frames()


async def test_timed_confirm_answers_false(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        assert await settle(ui.confirm("Sure?", "Think about it", timeout_ms=300)) is False


async def test_abort_signal_resolves_the_default_and_an_aborted_one_shows_nothing(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        controller = AbortController()
        task = asyncio.ensure_future(ui.input("Name?", "type something...", signal=controller.signal))
        await h.wait("Name?")
        controller.abort()
        assert await settle(task) is None
        await h.wait(lambda s: "Name?" not in s)
        assert await settle(ui.confirm("Never shown", "x", signal=controller.signal)) is False
        assert "Never shown" not in h.screen()


async def test_input_shows_placeholder_and_returns_the_typed_text(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        task = asyncio.ensure_future(ui.input("Enter a value", "type something..."))
        await h.wait("type something...")
        h.type("hello world")
        await h.wait("> hello world")
        h.keys(ENTER)
        assert await settle(task) == "hello world"
        # Another title: waiting for the first one could match the closing dialog's last frame.
        task = asyncio.ensure_future(ui.input("Enter another value"))
        await h.wait("Enter another value")
        h.type("abc")
        h.keys(ESC)
        assert await settle(task) is None
        assert h.app.editor.get_text() == ""
        h.check_frames()


async def test_editor_dialog_is_prefilled_and_submits_all_lines(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        task = asyncio.ensure_future(ui.editor("Edit some text", "Line 1\nLine 2"))
        text = await h.wait("Edit some text")
        assert "Line 1" in text and "Line 2" in text
        h.type(" more")
        h.keys(ENTER)
        assert await settle(task) == "Line 1\nLine 2 more"
        task = asyncio.ensure_future(ui.editor("Edit again"))
        await h.wait("Edit again")
        h.keys(ESC)
        assert await settle(task) is None
        h.check_frames()


async def test_a_second_dialog_stacks_on_the_first_and_gives_it_back(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        first = asyncio.ensure_future(ui.select("First question", ["one", "two"]))
        await h.wait("First question")
        second = asyncio.ensure_future(ui.confirm("Second question", "?"))
        await h.wait(lambda s: "Second question" in s and "First question" not in s)
        h.keys(ENTER)
        assert await settle(second) is True
        await h.wait("First question")
        h.keys(DOWN, ENTER)
        assert await settle(first) == "two"
        assert h.app.slot.selector is None
