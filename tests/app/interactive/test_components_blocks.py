"""`!` blocks, summaries and notices against the reference screens, and the width promise of all components."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.ai.types import AssistantMessage, TextContent, ThinkingContent
from pi.app.modes.interactive.components import (
    AssistantMessageView,
    BranchSummaryView,
    CompactionView,
    CustomMessageView,
    ErrorLine,
    SkillCard,
    StatusLine,
    ToolCard,
    UserBashView,
    UserMessageView,
    WarningLine,
)
from pi.session.messages import BashExecutionMessage
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import builtin_theme

THEME = builtin_theme("dark")
BASH_MODE = "38;2;94;178;134"
DIM = "38;2;126;136;142"
CUSTOM_BG = "48;2;58;48;85"
RULE = "─" * 110


def visible(lines: list[str]) -> list[str]:
    return [strip_ansi(line).rstrip() for line in lines]


def outcome(exit_code: int | None = 0, cancelled: bool = False, **kwargs: Any) -> SimpleNamespace:
    base: dict[str, Any] = {"output": "", "truncated": False, "full_output_path": None}
    base.update(kwargs)
    return SimpleNamespace(exit_code=exit_code, cancelled=cancelled, **base)


# --- ! / !! --------------------------------------------------------------------------------------------


def test_bang_block_matches_capture_27() -> None:
    view = UserBashView("echo hello; echo world", False, THEME)
    view.append("hello\n")
    view.append("wor")
    view.append("ld\n")
    view.finish(outcome(0, output="hello\nworld\n"))
    lines = view.render(110)
    assert visible(lines) == ["", RULE, " $ echo hello; echo world", "", " hello", " world", "", RULE]
    assert BASH_MODE in lines[1] and BASH_MODE in lines[2] and "\x1b[1m" in lines[2]
    assert "38;2;157;165;169mhello" in lines[4]  # muted output


def test_excluded_block_with_exit_code_matches_capture_28() -> None:
    view = UserBashView("ls nope-missing", True, THEME)
    view.append("ls: cannot access 'nope-missing': No such file or directory\n")
    view.finish(outcome(2))
    lines = view.render(110)
    assert visible(lines) == [
        "",
        RULE,
        " $ ls nope-missing",
        "",
        " ls: cannot access 'nope-missing': No such file or directory",
        "",
        "",
        " (exit 2)",
        RULE,
    ]
    assert DIM in lines[1] and DIM in lines[2]
    assert "38;2;234;127;129m(exit 2)" in lines[7]


def test_running_then_cancelled_match_captures_83_84() -> None:
    frames = iter(["⠹", "⠸"])
    view = UserBashView("sleep 5; echo done", False, THEME, spinner_frame=lambda: next(frames))
    assert view.needs_spinner_tick()
    lines = view.render(110)
    assert visible(lines) == ["", RULE, " $ sleep 5; echo done", "", " ⠹ Running... (escape/ctrl+c to cancel)", RULE]
    assert visible(view.render(110))[4] == " ⠸ Running... (escape/ctrl+c to cancel)"
    view.finish(outcome(None, cancelled=True))
    assert not view.needs_spinner_tick()
    lines = view.render(110)
    assert visible(lines) == ["", RULE, " $ sleep 5; echo done", "", " (cancelled)", RULE]
    assert "38;2;205;154;34m(cancelled)" in lines[4]


def test_long_output_collapses_to_last_20_lines() -> None:
    view = UserBashView("seq 30", False, THEME)
    view.append("".join(f"{i}\n" for i in range(1, 31)))
    view.finish(outcome(0, truncated=True, full_output_path="/tmp/out.log"))
    lines = visible(view.render(110))
    # 31 lines (the last one empty after the final newline): 20 shown, 11 hidden.
    assert lines[4] == " 12" and lines[22] == " 30" and lines[23] == ""
    assert lines[24:27] == ["", " ... 11 more lines (ctrl+o to expand)", " Output truncated. Full output: /tmp/out.log"]
    view.set_expanded(True)
    lines = visible(view.render(110))
    assert lines[4] == " 1" and " (ctrl+o to collapse)" in lines


def test_block_from_a_stored_message_and_ansi_cleanup() -> None:
    stored = BashExecutionMessage(command="printf x", output="\x1b[31mred\x1b[0m\r\nnext", exit_code=0)
    view = UserBashView(stored.command, False, THEME)
    view.finish(stored)
    assert visible(view.render(110))[4:6] == [" red", " next"]


# --- summaries -----------------------------------------------------------------------------------------

SUMMARY = "## Goal\n\nDemo the TUI.\n\n## Progress\n\n- explored files\n- edited calc.py"


def test_compaction_collapsed_and_expanded_match_captures_76_78() -> None:
    view = CompactionView(110, SUMMARY, THEME)
    lines = view.render(110)
    assert visible(lines) == ["", "", " [compaction]", "", " Compacted from 110 tokens (ctrl+o to expand)", ""]
    assert all(CUSTOM_BG in line for line in lines[1:])
    assert "\x1b[1m" in lines[2] and "38;2;167;152;215m" in lines[2]  # bold customMessageLabel
    assert f"{DIM}mctrl+o" in lines[4]
    view.set_expanded(True)
    assert visible(view.render(110)) == [
        "",
        "",
        " [compaction]",
        "",
        " Compacted from 110 tokens",
        "",
        " Goal",
        "",
        " Demo the TUI.",
        "",
        " Progress",
        "",
        " - explored files",
        " - edited calc.py",
        "",
    ]
    assert visible(CompactionView(12345, "", THEME).render(110))[4].startswith(" Compacted from 12,345 tokens")


def test_branch_summary_matches_capture_108() -> None:
    view = BranchSummaryView("Tried another approach.", THEME)
    assert visible(view.render(110)) == ["", "", " [branch]", "", " Branch summary (ctrl+o to expand)", ""]
    view.set_expanded(True)
    assert visible(view.render(110))[4:7] == [" Branch summary", "", " Tried another approach."]


def test_skill_card() -> None:
    card = SkillCard("deploy", "Steps:\n\n1. build", THEME)
    lines = card.render(110)
    assert visible(lines) == ["", "", " [skill] deploy (ctrl+o to expand)", ""]
    assert CUSTOM_BG in lines[2]
    card.set_expanded(True)
    assert visible(card.render(110))[2:] == [" [skill]", "", " deploy", "", " Steps:", "", " 1. build", ""]


def test_custom_message() -> None:
    view = CustomMessageView("reminder", [TextContent(text="Remember **this**.")], THEME)
    lines = view.render(110)
    assert visible(lines) == ["", "", " [reminder]", "", " Remember this.", ""]
    assert CUSTOM_BG in lines[4] and "38;2;157;165;169m" in lines[4]


# --- notices -------------------------------------------------------------------------------------------


def test_status_warning_error_lines() -> None:
    status = StatusLine("Tool output: expanded", THEME)
    lines = status.render(110)
    assert visible(lines) == ["", " Tool output: expanded"]
    assert f"{DIM}mTool output" in lines[1]
    status.set_text("Tool output: collapsed")
    assert visible(status.render(110)) == ["", " Tool output: collapsed"]
    warning = WarningLine("fd not found", THEME, output_pad=0)
    assert visible(warning.render(110)) == ["", " Warning: fd not found"]
    assert "38;2;205;154;34mWarning:" in warning.render(110)[1]
    error = ErrorLine("No model selected", THEME, output_pad=0)
    assert visible(error.render(110)) == ["", "Error: No model selected"]
    assert "38;2;234;127;129mError:" in error.render(110)[1]


# --- the width promise ---------------------------------------------------------------------------------

TEXTS = st.lists(
    st.sampled_from([*"ab c\t-*#`|>\n", "界", "😀", "é", "x" * 30, "/very/long/path/segment", "```", "| a |"]),
    max_size=60,
).map("".join)


def _components(text: str, tmp: Path) -> list[Any]:
    assistant = AssistantMessageView(THEME)
    assistant.finish(
        AssistantMessage(
            content=[ThinkingContent(thinking=text), TextContent(text=text)],
            api="a",
            provider="p",
            model="m",
            stop_reason="error",
            error_message=text,
        )
    )
    bash = ToolCard("bash", "1", {"command": text, "timeout": 5}, THEME, cwd=str(tmp))
    bash.start()
    bash.update(SimpleNamespace(content=[TextContent(text=text * 3)], details=None))
    edit = ToolCard(
        "edit",
        "2",
        {"path": "f.txt", "edits": [{"oldText": "base", "newText": text}]},
        THEME,
        cwd=str(tmp),
        args_complete=True,
    )
    unknown = ToolCard("zzz", "3", {"a": text}, THEME, cwd=str(tmp), expanded=True)
    unknown.finish(SimpleNamespace(content=[TextContent(text=text)], details=None), True)
    write = ToolCard("write", "4", {"path": text, "content": text}, THEME, cwd=str(tmp))
    block = UserBashView(text, False, THEME, spinner_frame=lambda: "⠋")
    block.append(text)
    return [
        UserMessageView(text, THEME),
        assistant,
        bash,
        edit,
        unknown,
        write,
        block,
        CompactionView(5, text, THEME, expanded=True),
        BranchSummaryView(text, THEME),
        SkillCard(text, text, THEME, expanded=True),
        CustomMessageView(text, text, THEME),
        StatusLine(text, THEME),
        WarningLine(text, THEME),
        ErrorLine(text, THEME),
    ]


@settings(max_examples=60, deadline=None)
@given(text=TEXTS, width=st.integers(min_value=20, max_value=200))
def test_no_line_is_wider_than_the_width(tmp_path_factory: Any, text: str, width: int) -> None:
    tmp = tmp_path_factory.mktemp("w")
    (tmp / "f.txt").write_text("base line\nother\n")
    for component in _components(text, tmp):
        for line in component.render(width):
            assert visible_width(line) <= width, (type(component).__name__, line)
            assert "\n" not in line


def test_huge_streamed_output_keeps_what_can_be_shown() -> None:
    view = UserBashView("yes", False, THEME)
    for i in range(4000):
        view.append(f"line {i:05d} " + "y" * 80 + "\n")
    assert len(view.output) < 300 * 1024
    view.finish(outcome(0))
    lines = visible(view.render(110))
    # The 50KB context limit keeps the last 556 lines of 92 bytes; 20 of them show.
    assert lines[-4:] == [" line 03999 " + "y" * 80, "", " ... 536 more lines (ctrl+o to expand)", RULE]
