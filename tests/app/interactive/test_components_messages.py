"""User and assistant messages against the reference screens (dark theme, 110 columns)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi.app.modes.interactive.components import AssistantMessageView, UserMessageView
from pi.tui.text_width import strip_ansi
from pi.tui.theme import builtin_theme

THEME = builtin_theme("dark")
THINKING = "The user wants an overview. I should list the files first and then look at calc.py."
REPLY = (
    "## Plan\n\nI will **look around** the project first:\n\n1. list the files\n2. read `src/calc.py`\n\n"
    "> Quick note: this is a scripted reply."
)
HTML_404 = (
    '404 <!DOCTYPE HTML>\n<html lang="en">\n    <head>\n        <meta charset="utf-8">\n'
    "        <title>Error response</title>\n    </head>\n</html>"
)


def visible(lines: list[str]) -> list[str]:
    return [strip_ansi(line).rstrip() for line in lines]


def message(*content: Any, stop_reason: str = "stop", error: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=list(content),
        api="anthropic-messages",
        provider="fakea",
        model="fake-claude",
        stop_reason=stop_reason,
        error_message=error,
    )


def test_user_message_matches_capture_15() -> None:
    view = UserMessageView("Give me an overview of this project", THEME)
    lines = view.render(110)
    assert visible(lines) == ["", "", " Give me an overview of this project", ""]
    assert all("48;2;33;59;73" in line for line in lines[1:])  # userMessageBg on every row
    assert "38;2;222;224;225mGive me" in lines[2]  # userMessageText
    assert "\x1b]133;A\x07" in lines[1] and lines[-1].endswith("\x1b]133;B\x07\x1b]133;C\x07")


def test_user_message_keeps_escapes_and_list_numbers() -> None:
    view = UserMessageView("3. third \\*not emphasis\\*", THEME)
    assert visible(view.render(110))[2] == " 3. third \\*not emphasis\\*"


def test_user_message_with_skill_block_shows_card_then_text() -> None:
    text = (
        '<skill name="deploy" location="/s/deploy/SKILL.md">\n'
        "References are relative to /s.\n\nRun it.\n</skill>\n\nnow"
    )
    view = UserMessageView(text, THEME)
    lines = visible(view.render(110))
    assert lines == ["", "", " [skill] deploy (ctrl+o to expand)", "", "", "", " now", ""]
    view.set_expanded(True)
    lines = visible(view.render(110))
    assert lines[2:5] == [" [skill]", "", " deploy"]
    assert " Run it." in lines


def test_assistant_message_matches_capture_15() -> None:
    view = AssistantMessageView(THEME, hide_thinking=False)
    view.finish(message(ThinkingContent(thinking=THINKING), TextContent(text=REPLY)))
    lines = view.render(110)
    assert visible(lines) == [
        "",
        " " + THINKING,
        "",
        " Plan",
        "",
        " I will look around the project first:",
        "",
        " 1. list the files",
        " 2. read src/calc.py",
        "",
        " │ Quick note: this is a scripted reply.",
    ]
    assert "\x1b[3m" in lines[1] and "38;2;150;160;164" in lines[1]  # italic thinkingText


def test_hidden_thinking_matches_capture_16() -> None:
    view = AssistantMessageView(THEME, hide_thinking=True)
    view.finish(message(ThinkingContent(thinking=THINKING), TextContent(text=REPLY)))
    assert visible(view.render(110))[:4] == ["", " Thinking...", "", " Plan"]
    view.set_hide_thinking(False)
    assert visible(view.render(110))[1] == " " + THINKING
    view.set_hide_thinking(True)
    view.set_hidden_label("")
    assert visible(view.render(110))[:2] == ["", " Plan"]
    view.set_hidden_label("Pondering")
    assert visible(view.render(110))[1] == " Pondering"


def test_error_ending_matches_capture_06c() -> None:
    view = AssistantMessageView(THEME)
    view.finish(message(stop_reason="error", error=HTML_404))
    lines = view.render(110)
    assert visible(lines) == [
        "",
        " Error: 404 <!DOCTYPE HTML>",
        ' <html lang="en">',
        "     <head>",
        '         <meta charset="utf-8">',
        "         <title>Error response</title>",
        "     </head>",
        " </html>",
        "",
        " If this looks like a pi bug, /bug sends a report to the developers.",
    ]
    assert "38;2;234;127;129mError: 404" in lines[1]
    assert "\x1b[2mIf this looks" in lines[-1]


def test_error_without_hint_capture_105_and_aborted_and_truncated() -> None:
    view = AssistantMessageView(THEME, bug_hint=False)
    overloaded = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    view.finish(message(stop_reason="error", error=overloaded))
    assert visible(view.render(110)) == ["", " Error: " + overloaded]
    aborted = AssistantMessageView(THEME)
    aborted.finish(message(TextContent(text="Here is a long streamed answer."), stop_reason="aborted"))
    assert visible(aborted.render(110)) == ["", " Here is a long streamed answer.", "", " Operation aborted"]
    retried = AssistantMessageView(THEME)
    retried.finish(message(stop_reason="aborted", error="Aborted after 2 retry attempt(s)"))
    assert visible(retried.render(110)) == ["", " Aborted after 2 retry attempt(s)"]
    cut = AssistantMessageView(THEME)
    cut.finish(message(TextContent(text="partial"), stop_reason="length"))
    assert visible(cut.render(110))[-1] == " Response was truncated before completion."


def test_no_ending_when_the_message_has_tool_calls() -> None:
    view = AssistantMessageView(THEME)
    call = ToolCall(id="t1", name="bash", arguments={"command": "ls"})
    view.finish(message(TextContent(text="Running it."), call, stop_reason="error", error="boom"))
    assert visible(view.render(110)) == ["", " Running it."]


def test_output_pad_zero() -> None:
    view = AssistantMessageView(THEME, output_pad=0)
    view.finish(message(TextContent(text="hello")))
    assert visible(view.render(40)) == ["", "hello"]
    user = UserMessageView("hi", THEME, output_pad=0)
    assert visible(user.render(40))[2] == "hi"


def test_unchanged_message_returns_cached_lines() -> None:
    view = AssistantMessageView(THEME)
    msg = message(TextContent(text=REPLY))
    view.update(msg)
    first = view.render(110)
    view.update(msg)
    assert view.render(110) is first


STREAM_TEXT = REPLY + "\n\n```python\ndef mul(a, b):\n    return a * b\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone."


@settings(max_examples=40, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=len(STREAM_TEXT)), max_size=25),
    thinking_cuts=st.lists(st.integers(min_value=0, max_value=len(THINKING)), max_size=5),
    width=st.integers(min_value=20, max_value=160),
)
def test_streaming_updates_end_like_one_finish(cuts: list[int], thinking_cuts: list[int], width: int) -> None:
    streamed = AssistantMessageView(THEME)
    for n in sorted(thinking_cuts):
        streamed.update(message(ThinkingContent(thinking=THINKING[:n])))
        streamed.render(width)
    for n in sorted(cuts):
        streamed.update(message(ThinkingContent(thinking=THINKING), TextContent(text=STREAM_TEXT[:n])))
        streamed.render(width)
    final = message(ThinkingContent(thinking=THINKING), TextContent(text=STREAM_TEXT))
    streamed.finish(final)
    once = AssistantMessageView(THEME)
    once.finish(final)
    assert streamed.render(width) == once.render(width)
