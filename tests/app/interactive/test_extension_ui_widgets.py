"""`ctx.ui` statuses, widgets, notices, title, editor text, working line, thinking label, tool expansion
and themes on the running app (extensions.md §1.8, tui.md §2, §4, §15)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import faux_assistant_message, faux_text, faux_thinking
from pi.ai.types import AssistantMessage
from pi.app.modes.interactive.components.extension_widgets import TRUNCATED
from tests.app.interactive.core_support import faux_provider
from tests.app.interactive.extension_ui_support import ENTER, make_extension_app, ui_of

pytestmark = pytest.mark.asyncio


async def test_statuses_fill_the_third_footer_line_sorted_by_key(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        ui.set_status("b-ext", "Turn 3 running...")
        ui.set_status("a-ext", "ready\x07")
        await h.wait("ready Turn 3 running...")
        assert h.terminal.display()[-1].startswith("ready Turn 3 running...")
        ui.set_status("a-ext", None)
        await h.wait(lambda s: "ready" not in s and "Turn 3 running..." in s)
        ui.set_status("b-ext", None)
        await h.wait(lambda s: "Turn 3" not in s)
        assert h.terminal.display()[-1].endswith(faux.model.id)
        h.check_frames()


async def test_text_widgets_above_and_below_the_editor_keyed_and_truncated(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        ui.set_widget("todo", ["TODO one", "TODO two"])
        ui.set_widget("below", ["under the editor"], placement="belowEditor")
        await h.wait("under the editor")
        rows = h.terminal.display()
        top_rule = max(i for i, row in enumerate(rows) if row.startswith("───") and i < len(rows) - 4)
        above = rows.index(" TODO one")
        assert rows[above + 1] == " TODO two"
        assert rows[above - 1] == ""
        assert above < top_rule < rows.index(" under the editor")
        ui.set_widget("todo", [f"line {n}" for n in range(15)])
        text = await h.wait(TRUNCATED)
        assert " line 9" in text and " line 10" not in text
        ui.set_widget("todo", None)
        ui.set_widget("below", None)
        await h.wait(lambda s: "line 0" not in s and "under the editor" not in s)
        h.check_frames()


class Counter:
    """A component widget whose content changes; it asks for a redraw through the tui it was given."""

    def __init__(self, tui: Any) -> None:
        self.tui = tui
        self.count = 0

    def bump(self) -> None:
        self.count += 1
        self.tui.request_render()

    def render(self, width: int) -> list[str]:
        return [f"count={self.count} " + "x" * (width + 10)]

    def invalidate(self) -> None:
        return None


async def test_component_widget_factory_redraws_and_is_cut_to_width(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        made: list[Counter] = []

        def factory(tui: Any, theme: Any) -> Counter:
            made.append(Counter(tui))
            return made[-1]

        ui.set_widget("counter", factory)
        await h.wait("count=0")
        made[0].bump()
        await h.wait("count=1")
        h.check_frames()  # also: no line wider than the terminal


async def test_failing_widget_factory_and_render_are_reported_not_fatal(tmp_path: Path) -> None:
    class Broken:
        def render(self, width: int) -> list[str]:
            raise RuntimeError("render exploded")

    def bad_factory(tui: Any, theme: Any) -> Any:
        raise ValueError("factory exploded")

    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        ui.set_widget("bad", bad_factory)
        await h.wait('Extension widget "bad" error: factory exploded')
        ui.set_widget("broken", lambda tui, theme: Broken())
        await h.wait('[widget "broken" failed: render exploded]')
        await h.wait('Extension widget "broken" error: render exploded')
        with pytest.raises(TypeError, match="expected a list of strings"):
            ui.set_widget("wrong", 42)
        h.type("still typing")
        await h.wait("still typing")
        h.check_frames()


async def test_notify_levels_title_and_editor_text(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        ui.notify("plain info")
        ui.notify("careful now", "warning")
        ui.notify("it broke", "error")
        text = await h.wait("Error: it broke")
        assert "plain info" in text and "Warning: careful now" in text
        ui.set_title("pi - my project")
        assert h.terminal.output.endswith("\x1b]0;pi - my project\x07")
        ui.set_editor_text("prefilled text")
        await h.wait("prefilled text")
        assert ui.get_editor_text() == "prefilled text"
        ui.paste_to_editor(" and pasted")
        await h.wait("prefilled text and pasted")
        ui.paste_to_editor("\n".join(f"row {n}" for n in range(20)))
        await h.wait("[paste #")
        assert "row 19" in h.app.editor.get_expanded_text()


async def test_working_message_indicator_and_visibility(tmp_path: Path) -> None:
    with faux_provider() as faux:
        gate = asyncio.Event()

        async def slow(context: Any, options: Any, state: Any, model: Any) -> AssistantMessage:
            await gate.wait()
            return faux_assistant_message("done now")

        faux.set_responses([slow])
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        ui.set_working_message("Crunching numbers")
        ui.set_working_indicator({"frames": ["*"], "interval_ms": 100})
        h.type("go")
        h.keys(ENTER)
        await h.wait("── * Crunching numbers ──")
        ui.set_working_visible(False)
        await h.wait(lambda s: "Crunching" not in s)
        ui.set_working_visible(True)
        ui.set_working_message(None)
        ui.set_working_indicator(None)
        await h.wait(lambda s: " Working " in s and "*" not in s.split("Working")[0][-3:])
        with pytest.raises(TypeError):
            ui.set_working_indicator({"frames": [1, 2]})
        gate.set()
        await h.wait("done now")
        h.check_frames()


async def test_hidden_thinking_label_and_tools_expanded(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message([faux_thinking("secret plan"), faux_text("visible answer")])])
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        h.app.chat.set_thinking_hidden(True)
        h.type("think")
        h.keys(ENTER)
        await h.wait("visible answer")
        await h.wait("Thinking...")
        ui.set_hidden_thinking_label("Pondering quietly")
        await h.wait("Pondering quietly")
        ui.set_hidden_thinking_label(None)
        await h.wait("Thinking...")
        assert ui.get_tools_expanded() is False
        ui.set_tools_expanded(True)
        assert ui.get_tools_expanded() is True and h.app.chat.tools_expanded is True
        ui.set_tools_expanded(False)
        assert h.app.chat.tools_expanded is False


async def test_themes_listed_loaded_and_switched(tmp_path: Path) -> None:
    import json

    themes = tmp_path / "agent" / "themes"
    themes.mkdir(parents=True)
    (themes / "sunset.json").write_text(json.dumps({"name": "sunset", "colors": {}}))
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path)
        await h.start()
        ui = ui_of(h)
        listed = ui.get_all_themes()
        assert [t["name"] for t in listed][:2] == ["dark", "light"]
        assert {"name": "sunset", "path": str(themes / "sunset.json")} in listed
        assert ui.get_theme("light") is not None and ui.get_theme("nope") is None
        result = ui.set_theme("nope")
        assert result["success"] is False and "nope" in result["error"]
        assert ui.set_theme("light") == {"success": True}
        assert ui.theme.name == "light"
        assert ui.set_theme(ui.get_theme("dark")) == {"success": True}
        assert ui.theme.name == "dark"
