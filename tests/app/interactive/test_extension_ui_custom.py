"""`ctx.ui.custom` (inline and overlay, with focus and a done callback), header/footer/editor replacement,
raw terminal input and autocomplete providers (extensions.md §1.8, tui.md §15)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi.tui.editor import Editor
from tests.app.interactive.core_support import faux_provider
from tests.app.interactive.extension_ui_support import ENTER, ESC, TAB, make_extension_app, settle, ui_of

pytestmark = pytest.mark.asyncio


class Guess:
    """A tiny number game: digits are guesses, Enter finishes with the last guess, Esc gives up."""

    def __init__(self, tui: Any, done: Any) -> None:
        self.tui = tui
        self.done = done
        self.guess = ""
        self.focused = False
        self.disposed = False

    def handle_input(self, data: str) -> None:
        if data.isdigit():
            self.guess = data
        elif data == "\r":
            self.done(int(self.guess or 0))
        elif data == "\x1b":
            self.done(None)
        self.tui.request_render()

    def render(self, width: int) -> list[str]:
        return ["+" + "-" * (width - 2) + "+", f"| guess: {self.guess or '?'} focused={self.focused}"]

    def invalidate(self) -> None:
        return None

    def dispose(self) -> None:
        self.disposed = True


async def test_inline_custom_component_takes_keys_until_done(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        made: list[Guess] = []

        def factory(tui: Any, theme: Any, keybindings: Any, done: Any) -> Guess:
            made.append(Guess(tui, done))
            return made[-1]

        task = asyncio.ensure_future(ui.custom(factory))
        await h.wait("guess: ? focused=True")
        h.keys("7")
        await h.wait("guess: 7")
        assert h.app.editor.get_text() == ""  # the keys went to the component, not the editor
        h.keys(ENTER)
        assert await settle(task) == 7
        assert made[0].disposed
        await h.wait(lambda s: "guess:" not in s)
        h.type("back in the editor")
        await h.wait("back in the editor")
        h.check_frames()


async def test_overlay_custom_component_with_handle(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        handles: list[Any] = []
        task = asyncio.ensure_future(
            ui.custom(
                lambda tui, theme, kb, done: Guess(tui, done),
                overlay=True,
                overlay_options={"anchor": "top", "width": 30},
                on_handle=handles.append,
                blocked=True,
            )
        )
        text = await h.wait("guess: ? focused=True")
        assert "+" + "-" * 28 + "+" in text
        handle = handles[0]
        handle.unfocus()
        h.type("x")
        await h.wait("focused=False")
        assert h.app.editor.get_text() == "x"
        handle.focus()
        await h.wait("focused=True")
        handle.set_hidden(True)
        assert handle.is_hidden()
        await h.wait(lambda s: "guess:" not in s)
        handle.set_hidden(False)
        handle.focus()
        await h.wait("guess: ?")
        h.keys("3")
        await h.wait("guess: 3")
        h.keys(ESC)
        assert await settle(task) is None
        await h.wait(lambda s: "guess:" not in s)
        assert h.app.tui.overlays == []
        assert h.app.tui.focused is h.app.slot


async def test_custom_factory_that_raises_returns_none_and_reports(tmp_path: Path) -> None:
    def broken(*_args: Any) -> Any:
        raise RuntimeError("no game today")

    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        assert await settle(ui.custom(broken)) is None
        await h.wait("Extension custom component error: no game today")


class Banner:
    def __init__(self, text: str) -> None:
        self.text = text

    def render(self, width: int) -> list[str]:
        return [self.text]


async def test_header_and_footer_replacement_and_restore(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        seen: list[Any] = []

        def footer(tui: Any, theme: Any, data: Any) -> Banner:
            seen.append(data)
            return Banner(f"MY FOOTER statuses={sorted(data.get_extension_statuses())}")

        ui.set_status("k", "v")
        ui.set_header(lambda tui, theme: Banner("MY HEADER"))
        ui.set_footer(footer)
        text = await h.wait("MY FOOTER statuses=['k']")
        assert "MY HEADER" in text and "▀▀█" not in text
        assert h.terminal.display()[-1].startswith("MY FOOTER")
        assert seen[0].get_git_branch() is None
        ui.set_header(None)
        ui.set_footer(None)
        text = await h.wait("▀▀█")
        assert "MY FOOTER" not in text and "MY HEADER" not in text
        assert h.terminal.display()[-1].startswith("v")  # pi's footer again, with the status line
        h.check_frames()


class ShoutingEditor(Editor):
    """A replacement editor: typed letters come out in upper case."""

    def handle_input(self, data: str) -> bool:
        return super().handle_input(data.upper() if data.isalpha() and len(data) == 1 else data)


async def test_editor_component_replacement_keeps_text_and_submit(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([])
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        h.type("abc")
        await h.wait("abc")
        factory = lambda tui, theme, kb: ShoutingEditor(theme, kb)  # noqa: E731
        ui.set_editor_component(factory)
        assert ui.get_editor_component() is factory
        h.type("def")
        await h.wait("abcDEF")
        assert isinstance(h.app.editor, ShoutingEditor) and h.app.slot.editor is h.app.editor
        ui.set_editor_component(None)
        assert ui.get_editor_component() is None
        h.type("g")
        await h.wait("abcDEFg")
        with pytest.raises(TypeError, match=r"pi\.tui\.editor\.Editor"):
            ui.set_editor_component(lambda tui, theme, kb: Banner("not an editor"))


async def test_terminal_input_handler_consumes_and_rewrites(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        seen: list[str] = []

        def handler(data: str) -> Any:
            seen.append(data)
            if data == "q":
                return {"consume": True}
            if data == "z":
                return {"data": "Z!"}
            return None

        remove = ui.on_terminal_input(handler)
        h.type("aqz")
        await h.wait("aZ!")
        assert seen[:3] == ["a", "q", "z"]
        remove()
        h.type("q")
        await h.wait("aZ!q")


async def test_autocomplete_provider_comes_first_and_can_be_removed(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)

        def provider(line: str, cursor: int) -> Any:
            if line[:cursor].endswith("#is"):
                return [{"value": "#issue-42", "label": "#issue-42", "description": "Fix the footer"}]
            return None

        remove = ui.add_autocomplete_provider(provider)
        assert remove is not None
        h.type("see #is")
        text = await h.wait("Fix the footer")
        assert "#issue-42" in text
        h.keys(TAB)
        await h.wait("see #issue-42")
        remove()
        h.app.editor.clear()
        h.type("again #is")
        await h.wait("again #is")
        assert "Fix the footer" not in h.screen()
