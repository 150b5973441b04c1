"""Extensions loaded by the session, seen through the terminal UI: `session_start` handlers drawing,
commands in the `/` menu running with a ctx whose dialogs answer keys, shortcuts, message and tool
renderers, extension errors in the chat (extensions.md §1.4, §1.8, §1.10; tui.md §5, §6.8, §15)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import faux_assistant_message, faux_tool_call
from pi.app.modes.interactive.extension_ui import TerminalExtensionUI
from tests.app.interactive.core_support import faux_provider
from tests.app.interactive.extension_ui_support import DOWN, ENTER, ESC, make_extension_app

pytestmark = pytest.mark.asyncio


def status_extension(pi: Any) -> None:
    async def start(event: Any, ctx: Any) -> None:
        assert ctx.mode == "tui" and ctx.has_ui
        ctx.ui.set_status("demo", "demo ready")
        ctx.ui.set_widget("demo", ["widget from session_start"])

    pi.on("session_start", start)


async def test_session_start_handlers_draw_through_the_terminal_ui(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [status_extension])
        await h.start()
        text = await h.wait("demo ready")
        assert " widget from session_start" in text
        assert isinstance(h.app.extension_ui.ui if h.app.extension_ui else None, TerminalExtensionUI)
        h.check_frames()


def command_extension(pi: Any) -> None:
    async def pick(args: str, ctx: Any) -> None:
        choice = await ctx.ui.select(f"Pick a colour for {args}", ["red", "green", "blue"])
        ctx.ui.notify(f"picked {choice}")

    def completions(prefix: str) -> list[dict[str, str]]:
        return [{"value": v, "label": v} for v in ("apple", "avocado", "banana") if v.startswith(prefix)]

    pi.register_command("colour", pick, description="Choose a colour", get_argument_completions=completions)
    pi.register_command("model", lambda args, ctx: None, description="clashes with the built-in")


async def test_extension_command_in_menu_runs_and_its_dialog_answers_keys(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [command_extension])
        await h.start()
        text = await h.wait("Extension command '/model' conflicts with built-in interactive command.")
        h.type("/col")
        text = await h.wait("Choose a colour")
        assert "colour" in text
        h.keys("\t")
        await h.wait(lambda s: h.app.editor.get_text() == "/colour ")
        h.type("a")
        text = await h.wait("avocado")
        assert "banana" not in text
        h.keys(ESC)
        h.type("pple")
        h.keys(ENTER, ENTER)  # the first accepts the completion `apple`, the second submits
        await h.wait("Pick a colour for apple")
        h.keys(DOWN, ENTER)
        await h.wait("picked green")
        assert faux.pending_response_count == 0 and not h.app.session.messages
        h.check_frames()


def shortcut_extension(pi: Any) -> None:
    def handler(ctx: Any) -> None:
        ctx.ui.notify("shortcut fired")

    pi.register_shortcut("ctrl+y", handler, description="Say something")
    pi.register_shortcut("ctrl+c", handler, description="Reserved: refused")


async def test_extension_shortcut_runs_and_reserved_keys_are_refused(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [{"name": "keys", "factory": shortcut_extension}])
        await h.start()
        text = await h.wait("Extension shortcut 'ctrl+c' from <inline:keys> conflicts with built-in shortcut.")
        assert "Extension shortcut conflict: 'ctrl+y' from <inline:keys> replaces built-in" in text
        h.type("abc")
        h.keys("\x19")  # ctrl+y: an editor binding (yank) that the extension takes
        await h.wait("shortcut fired")
        assert h.app.editor.get_text() == "abc"
        h.keys("\x03")  # ctrl+c still clears the editor
        await h.wait(lambda s: "abc" not in s.split("shortcut fired")[-1])
        h.type("/hotkeys")
        h.keys(ENTER)
        text = await h.wait("Say something")
        assert "Extensions" in text and "Ctrl+Y" in text.split("Extensions")[-1]
        assert "Reserved: refused" not in text


def message_extension(pi: Any) -> None:
    class Note:
        def __init__(self, message: Any, expanded: bool) -> None:
            self.text = f"NOTE[{'open' if expanded else 'shut'}]: {message.content}"

        def render(self, width: int) -> list[str]:
            return [self.text]

    pi.register_message_renderer("note", lambda message, options, theme: Note(message, options["expanded"]))

    async def send(args: str, ctx: Any) -> None:
        pi.send_message({"customType": "plain", "content": "no renderer here", "display": True})
        pi.send_message({"customType": "hidden", "content": "never shown", "display": False})
        pi.send_message({"customType": "note", "content": args, "display": True}, trigger_turn=True)

    pi.register_command("note", send, description="Add a note")


async def test_custom_messages_use_the_registered_renderer_or_the_default_panel(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("noted")])
        h = make_extension_app(faux, tmp_path, [message_extension])
        await h.start()
        h.type("/note remember the milk")
        h.keys(ENTER)
        await h.wait("NOTE[shut]: remember the milk")  # shown live as its run starts
        await h.wait("noted")
        h.keys("\x0f")  # ctrl+o re-renders with expanded=True
        await h.wait("NOTE[open]: remember the milk")
        h.app.chat.rebuild(h.app.session.messages)  # as after a resume or a compaction
        h.app.request_render()
        text = await h.wait("no renderer here")
        assert "[plain]" in text and "NOTE[open]: remember the milk" in text
        assert "never shown" not in text
        h.check_frames()


def tool_extension(pi: Any) -> None:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        return {"content": [{"type": "text", "text": f"hello, {params['name']}"}], "details": {"n": 1}}

    pi.register_tool(
        {
            "name": "greet",
            "description": "Greet someone",
            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
            "execute": execute,
            "render_call": lambda args, theme, context: f"GREETING {args.get('name', '...')}",
            "render_result": lambda result, options, theme, context: [
                "RESULT " + result["content"][0]["text"] + (" (partial)" if options["is_partial"] else "")
            ],
        }
    )


async def test_tool_renderers_of_an_extension_tool_draw_its_card(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses(
            [faux_assistant_message([faux_tool_call("greet", {"name": "Ada"})]), faux_assistant_message("greeted")]
        )
        h = make_extension_app(faux, tmp_path, [tool_extension])
        await h.start()
        h.type("say hi")
        h.keys(ENTER)
        text = await h.wait("RESULT hello, Ada")
        assert "GREETING Ada" in text and "(partial)" not in text
        await h.wait("greeted")
        h.check_frames()


def failing_extension(pi: Any) -> None:
    def boom(event: Any, ctx: Any) -> None:
        raise RuntimeError("handler went wrong")

    pi.on("agent_start", boom)


async def test_extension_errors_are_shown_in_the_chat_and_pi_carries_on(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("still answering")])
        h = make_extension_app(faux, tmp_path, [{"name": "bad", "factory": failing_extension}])
        await h.start()
        h.type("hello")
        h.keys(ENTER)
        await h.wait('Extension "<inline:bad>" error: handler went wrong')
        await h.wait("still answering")


def entry_extension(pi: Any) -> None:
    pi.register_entry_renderer("mark", lambda entry, options, theme: [f"MARK {entry.data['n']}"])

    def mark(args: str, ctx: Any) -> None:
        pi.append_entry("mark", {"n": int(args or 1)})
        pi.append_entry("unrendered", {"n": 0})

    pi.register_command("mark", mark, description="Add a mark entry")


async def test_custom_entries_with_an_entry_renderer_are_drawn(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [entry_extension])
        await h.start()
        h.type("/mark 5")
        h.keys(ENTER)
        text = await h.wait("MARK 5")
        assert "unrendered" not in text


def reload_extension(pi: Any) -> None:
    def start(event: Any, ctx: Any) -> None:
        ctx.ui.set_status("life", f"started:{event.reason}")

    def widget(args: str, ctx: Any) -> None:
        ctx.ui.set_widget("temp", ["temporary widget"])
        ctx.ui.set_footer(lambda tui, theme, data: ["REPLACED FOOTER"])

    pi.on("session_start", start)
    pi.register_command("temp", widget, description="Show a temporary widget")


async def test_reload_clears_what_old_instances_drew_and_lists_extensions(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [{"name": "life", "factory": reload_extension}])
        await h.start()
        text = await h.wait("started:startup")
        assert "[Extensions]" in text and "<inline:life>" in text
        h.type("/temp")
        h.keys(ENTER)
        await h.wait("temporary widget")
        await h.wait("REPLACED FOOTER")
        await h.app.reload_resources()
        h.app.request_render()
        text = await h.wait("started:reload")
        assert "temporary widget" not in text and "REPLACED FOOTER" not in text
        h.check_frames()


def shouting_extension(pi: Any) -> None:
    pi.register_markdown_transformer(lambda text, context: text.replace("quiet", "LOUD"))


async def test_markdown_transformers_change_what_is_shown_not_what_is_stored(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses([faux_assistant_message("a quiet reply")])
        h = make_extension_app(faux, tmp_path, [shouting_extension])
        await h.start()
        h.type("be quiet")
        h.keys(ENTER)
        text = await h.wait("a LOUD reply")
        assert "be LOUD" in text and "quiet" not in text
        stored = [getattr(m, "content", None) for m in h.app.session.messages]
        assert "be quiet" in str(stored) and "a quiet reply" in str(stored)
        h.check_frames()


def resolver_extension(pi: Any) -> None:
    def resolve(tool_name: str, next_: Any) -> Any:
        if tool_name != "mystery":
            return next_()
        return {"render_call": lambda args, theme, context: f"MYSTERY CALL x={args.get('x')}"}

    pi.register_tool_renderer(resolve)


async def test_a_tool_renderer_resolver_draws_tools_it_does_not_own(tmp_path: Path) -> None:
    with faux_provider() as faux:
        faux.set_responses(
            [faux_assistant_message([faux_tool_call("mystery", {"x": 3})]), faux_assistant_message("after")]
        )
        h = make_extension_app(faux, tmp_path, [resolver_extension])
        await h.start()
        h.type("go")
        h.keys(ENTER)
        await h.wait("MYSTERY CALL x=3")
        await h.wait("after")
        h.check_frames()


def lifecycle_extension(marker: Path) -> Any:
    def setup(pi: Any) -> None:
        def bye(event: Any, ctx: Any) -> None:
            marker.write_text(f"shutdown:{event.reason}")

        pi.on("session_shutdown", bye)
        pi.register_command("leave", lambda args, ctx: ctx.shutdown(), description="Quit pi")

    return setup


async def test_ctx_shutdown_quits_and_extensions_get_session_shutdown(tmp_path: Path) -> None:
    marker = tmp_path / "marker.txt"
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [lifecycle_extension(marker)])
        await h.start()
        h.type("/leave")
        h.keys(ENTER)
        assert await h.finished() == 0
        assert marker.read_text() == "shutdown:quit"


async def test_dialog_and_widget_in_regular_mode(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [status_extension], mode="regular")
        await h.start()
        await h.wait("demo ready")
        ui = h.app.extension_ui.ui if h.app.extension_ui is not None else None
        assert ui is not None
        task = asyncio.ensure_future(ui.select("Regular question", ["first", "second"]))
        await h.wait("Regular question")
        h.keys(DOWN, ENTER)
        assert await asyncio.wait_for(task, 10) == "second"
        await h.wait(lambda s: "→ second" not in s)
        h.check_frames()


def async_completion_extension(pi: Any) -> None:
    async def completions(prefix: str) -> list[dict[str, str]]:
        return [
            {"value": v, "label": v, "description": "a branch"} for v in ("main", "maintenance") if v.startswith(prefix)
        ]

    pi.register_command(
        "checkout", lambda args, ctx: None, description="Switch branch", get_argument_completions=completions
    )


async def test_async_argument_completions_fill_the_list_when_they_arrive(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_extension_app(faux, tmp_path, [async_completion_extension])
        await h.start()
        h.type("/checkout mai")
        text = await h.wait("maintenance")
        assert "a branch" in text
