"""Tool cards rendered for the reference screens (dark theme, 110 columns) and their behaviour."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pi.ai.types import ImageContent, TextContent
from pi.app.modes.interactive.components import ToolCard, format_duration
from pi.tui.text_width import strip_ansi
from pi.tui.theme import builtin_theme

THEME = builtin_theme("dark")
SUCCESS_BG = "48;2;37;65;49"
ERROR_BG = "48;2;91;40;42"
PENDING_BG = "48;2;52;56;58"
DIFF_ADDED = "38;2;104;183;141"
DIFF_REMOVED = "38;2;234;127;129"

LS_AND_CAT = (
    "total 28\n"
    "drwxr-xr-x 5 root root 4096 Dec  1 08:24 .\n"
    "drwxr-xr-x 5 root root 4096 Dec  1 08:25 ..\n"
    "drwxr-xr-x 8 root root 4096 Dec  1 08:24 .git\n"
    "-rw-r--r-- 1 root root   25 Dec  1 08:24 AGENTS.md\n"
    "-rw-r--r-- 1 root root   30 Dec  1 08:24 README.md\n"
    "drwxr-xr-x 2 root root 4096 Dec  1 08:24 docs\n"
    "drwxr-xr-x 2 root root 4096 Dec  1 08:24 src\n"
    "def add(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "def sub(a, b):\n"
    "    return a - b\n"
)
CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
CALC_EDITS: dict[str, Any] = {
    "path": "src/calc.py",
    "edits": [
        {"oldText": "def add(a, b):\n", "newText": 'def add(a, b):\n    """Add two numbers."""\n'},
        {"oldText": "    return a - b\n", "newText": "    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"},
    ],
}


class Clock:
    def __init__(self, start: float = 1000.0) -> None:
        self.value = start

    def __call__(self) -> float:
        return self.value


def visible(lines: list[str]) -> list[str]:
    return [strip_ansi(line).rstrip() for line in lines]


def result(text: str, details: Any = None) -> SimpleNamespace:
    return SimpleNamespace(content=[TextContent(text=text)], details=details)


def card(name: str, args: dict[str, Any], **kwargs: Any) -> ToolCard:
    kwargs.setdefault("cwd", "/work")
    kwargs.setdefault("home", "/home/user")
    return ToolCard(name, "call-1", args, THEME, **kwargs)


# --- bash -------------------------------------------------------------------------------------------


def test_bash_collapsed_matches_capture_09() -> None:
    tool = card("bash", {"command": "ls -la && cat src/calc.py"})
    tool.start()
    tool.finish(result(LS_AND_CAT), False, 20)
    assert visible(tool.render(110)) == [
        "",
        "",
        " $ ls -la && cat src/calc.py",
        "",
        " ... (9 earlier lines, ctrl+o to expand)",
        "     return a + b",
        "",
        "",
        " def sub(a, b):",
        "     return a - b",
        "",
        " Took 0.0s",
        "",
    ]


def test_bash_expanded_matches_capture_15() -> None:
    tool = card("bash", {"command": "ls -la && cat src/calc.py"}, expanded=True)
    tool.start()
    tool.finish(result(LS_AND_CAT), False, 20)
    lines = visible(tool.render(110))
    expected_output = [" " + line if line else "" for line in LS_AND_CAT.rstrip("\n").split("\n")]
    assert lines == ["", "", " $ ls -la && cat src/calc.py", "", *expected_output, "", " Took 0.0s", ""]


def test_bash_card_colours() -> None:
    tool = card("bash", {"command": "echo hi"})
    assert PENDING_BG in tool.render(110)[1]
    tool.start()
    tool.finish(result("hi"), False, 5)
    lines = tool.render(110)
    assert all(SUCCESS_BG in line for line in lines[1:])
    assert "\x1b[1m" in lines[2] and "38;2;222;224;225" in lines[2]  # bold toolTitle
    assert "38;2;157;165;169mhi" in lines[4]  # toolOutput (muted)
    tool.finish(result("boom"), True, 5)
    assert all(ERROR_BG in line for line in tool.render(110)[1:])


def test_bash_timer_elapsed_then_took() -> None:
    clock = Clock()
    tool = card("bash", {"command": "sleep 3; echo slept"}, now=clock)
    assert not tool.needs_timer_tick()
    tool.start()
    assert tool.needs_timer_tick()
    clock.value += 2.0
    assert visible(tool.render(110))[2:5] == [" $ sleep 3; echo slept", "", " Elapsed 2.0s"]
    clock.value += 1.5
    assert " Elapsed 3.5s" in visible(tool.render(110))
    tool.update(result("slept\n"))
    assert visible(tool.render(110))[2:7] == [" $ sleep 3; echo slept", "", " slept", "", " Elapsed 3.5s"]
    tool.finish(result("slept\n"), False, 3000)
    assert not tool.needs_timer_tick()
    assert visible(tool.render(110))[-3:] == ["", " Took 3.0s", ""]


def test_bash_call_line_placeholders_and_timeout() -> None:
    tool = card("bash", {})
    assert visible(tool.render(110))[2] == " $ ..."
    tool.set_args({"command": "make", "timeout": 30})
    assert visible(tool.render(110))[2] == " $ make (timeout 30s)"
    tool.set_args({"command": 5})
    assert visible(tool.render(110))[2] == " $ [invalid arg]"


def test_bash_truncation_note() -> None:
    details = {
        "truncation": {"truncated": True, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000},
        "fullOutputPath": "/tmp/pi-bash-1.log",
    }
    tool = card("bash", {"command": "seq 5000"})
    tool.finish(result("4999\n5000", details), False, 10)
    assert " [Full output: /tmp/pi-bash-1.log. Truncated: showing 2000 of 5000 lines]" in visible(tool.render(110))


def test_bash_card_drops_the_note_written_for_the_model() -> None:
    """The tool ends its text with `[Showing lines …. Full output: <path>]` for the model; the card
    shows only its own note (pi 1.6.0: one notice, and the preview is the output's last 5 lines)."""
    details = {
        "truncation": {"truncated": True, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000},
        "fullOutputPath": "/tmp/pi-bash-1.log",
    }
    text = "\n".join(str(i) for i in range(3001, 5001))
    text += "\n\n[Showing lines 3001-5000 of 5000. Full output: /tmp/pi-bash-1.log]"
    tool = card("bash", {"command": "seq 5000"})
    tool.update(result(text))  # while running the text stays as it is
    assert any("[Showing lines" in line for line in visible(tool.render(110)))
    tool.finish(result(text, details), False, 10)
    lines = visible(tool.render(110))
    assert not any("Showing lines" in line for line in lines)
    assert sum("Full output" in line for line in lines) == 1
    start = lines.index(" ... (1995 earlier lines, ctrl+o to expand)")
    assert lines[start + 1 : start + 6] == [" 4996", " 4997", " 4998", " 4999", " 5000"]


def test_bash_preview_counts_visual_lines() -> None:
    tool = card("bash", {"command": "x"})
    tool.finish(result("a" * 100 + "\n" + "b" * 100), False, 1)
    # Width 42 leaves 40 cells: each output line wraps into three visual lines, six in all.
    lines = visible(tool.render(42))
    assert lines[4] == " ... (1 earlier lines, ctrl+o to expand)"
    assert lines[5:11] == [" " + "a" * 40, " " + "a" * 20, " " + "b" * 40, " " + "b" * 40, " " + "b" * 20, ""]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0.0s"), (4.2, "4.2s"), (59.9, "59.9s"), (90, "1m 30s"), (3599, "59m 59s"), (7384, "2h 3m 4s")],
)
def test_duration_formats(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


# --- edit -------------------------------------------------------------------------------------------


def test_edit_preview_matches_capture_08(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text(CALC)
    tool = card("edit", {"path": "src/"}, cwd=str(tmp_path))
    assert visible(tool.render(110)) == ["", "", " edit src/", ""]
    tool.set_args(CALC_EDITS, complete=True)
    lines = tool.render(110)
    assert visible(lines) == [
        "",
        "",
        " edit src/calc.py",
        "",
        "   1 def add(a, b):",
        ' + 2     """Add two numbers."""',
        "   2     return a + b",
        "   3",
        "   4",
        "   5 def sub(a, b):",
        "   6     return a - b",
        " + 8",
        " + 9",
        " +10 def mul(a, b):",
        " +11     return a * b",
        "",
    ]
    assert DIFF_ADDED in lines[5] and PENDING_BG in lines[5]
    # The file is not touched by the preview.
    assert (tmp_path / "src" / "calc.py").read_text() == CALC


def test_edit_single_line_change_gets_word_diff(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nvalue = compute(a)\ny = 2\n")
    args = {"path": "a.py", "edits": [{"oldText": "compute(a)", "newText": "compute(b)"}]}
    tool = card("edit", args, cwd=str(tmp_path), args_complete=True)
    lines = tool.render(110)
    removed = next(line for line in lines if "-2" in strip_ansi(line))
    added = next(line for line in lines if "+2" in strip_ansi(line))
    assert DIFF_REMOVED in removed and "\x1b[7ma\x1b[27m" in removed
    assert DIFF_ADDED in added and "\x1b[7mb\x1b[27m" in added


def test_edit_preview_failure_turns_card_red_and_result_shows_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    args = {"path": "a.py", "edits": [{"oldText": "nope", "newText": "yes"}]}
    tool = card("edit", args, cwd=str(tmp_path))
    assert PENDING_BG in tool.render(110)[1]
    tool.set_args(args, complete=True)
    assert ERROR_BG in tool.render(110)[1]
    tool.finish(result("Could not find the text in a.py"), True, 1)
    assert visible(tool.render(110))[2:5] == [" edit a.py", "", " Could not find the text in a.py"]


def test_edit_final_diff_from_details_replaces_preview(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    args = {"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}
    tool = card("edit", args, cwd=str(tmp_path), args_complete=True)
    assert " -1 x = 1" in visible(tool.render(110))
    tool.finish(result("ok", {"diff": "-1 x = 1\n+1 x = 3", "patch": "", "firstChangedLine": 1}), False, 1)
    lines = visible(tool.render(110))
    assert " +1 x = 3" in lines and " +1 x = 2" not in lines
    assert SUCCESS_BG in tool.render(110)[1]


# --- read / write / unknown (captures 119 and 120) ------------------------------------------------------


def _capture_119_cards(expanded: bool) -> list[ToolCard]:
    content = "".join(f"x{i} = {i}\n" for i in range(14))
    cards = [
        card("read", {"path": "src/calc.py"}, expanded=expanded),
        card("write", {"path": "src/new.py", "content": content}, expanded=expanded),
        card("read", {"path": "AGENTS.md"}, expanded=expanded),
        card("read", {"path": "missing.txt"}, expanded=expanded),
        card("nosuchtool", {"a": 1}, expanded=expanded),
    ]
    cards[0].finish(result(CALC), False)
    cards[1].finish(result("Successfully wrote 14 lines to src/new.py"), False)
    cards[2].finish(result("Use 4-space indentation.\n"), False)
    cards[3].finish(result("ENOENT: no such file or directory, access '/tmp/tui-spec/work/missing.txt'"), True)
    cards[4].finish(result("Tool nosuchtool not found"), True)
    return cards


ENOENT = " ENOENT: no such file or directory, access '/tmp/tui-spec/work/missing.txt'"
UNKNOWN = [" nosuchtool", "", " {", '   "a": 1', " }", " Tool nosuchtool not found"]


def test_read_write_unknown_collapsed_match_capture_119() -> None:
    lines: list[str] = []
    for tool in _capture_119_cards(False):
        lines.extend(visible(tool.render(110)))
    xs = [f" x{i} = {i}" for i in range(10)]
    assert lines == [
        *["", "", " read src/calc.py", ""],
        *["", "", " write src/new.py", "", *xs, " ... (4 more lines, 14 total, ctrl+o to expand)", ""],
        *["", "", " read resource AGENTS.md (ctrl+o to expand)", ""],
        *["", "", " read missing.txt", "", ENOENT, ""],
        *["", "", *UNKNOWN, ""],
    ]


def test_read_write_unknown_expanded_match_capture_120() -> None:
    lines: list[str] = []
    for tool in _capture_119_cards(True):
        lines.extend(visible(tool.render(110)))
    xs = [f" x{i} = {i}" for i in range(14)]
    calc = [" def add(a, b):", "     return a + b", "", "", " def sub(a, b):", "     return a - b"]
    assert lines == [
        *["", "", " read src/calc.py", "", *calc, ""],
        *["", "", " write src/new.py", "", *xs, ""],
        *["", "", " read AGENTS.md", "", " Use 4-space indentation.", ""],
        *["", "", " read missing.txt", "", ENOENT, ""],
        *["", "", *UNKNOWN, ""],
    ]


def test_read_colours_and_error_background() -> None:
    cards = _capture_119_cards(False)
    assert "38;2;167;152;215msrc/calc.py" in cards[0].render(110)[2]  # path in accent
    assert "38;2;126;136;142mctrl+o" in cards[1].render(110)[-2]  # key dim inside the muted hint
    assert ERROR_BG in cards[3].render(110)[2]
    assert ERROR_BG in cards[4].render(110)[2]


def test_read_range_skill_and_home_path() -> None:
    tool = card("read", {"path": "/home/user/src/a.py", "offset": 10, "limit": 5})
    lines = tool.render(110)
    assert visible(lines)[2] == " read ~/src/a.py:10-14"
    assert "38;2;205;154;34m:10-14" in lines[2]  # range in warning
    skill = card("read", {"path": "/home/user/.pi/skills/deploy/SKILL.md"})
    assert visible(skill.render(110))[2] == " [skill] deploy (ctrl+o to expand)"
    skill.set_expanded(True)
    assert visible(skill.render(110))[2] == " read ~/.pi/skills/deploy/SKILL.md"


def test_read_truncation_note_and_image_placeholder() -> None:
    details = {
        "truncation": {
            "truncated": True,
            "truncatedBy": "lines",
            "outputLines": 2000,
            "totalLines": 9000,
            "maxLines": 2000,
            "maxBytes": 51200,
        }
    }
    tool = card("read", {"path": "big.txt"}, expanded=True)
    tool.finish(result("line", details), False)
    assert visible(tool.render(110))[-2] == " [Truncated: showing 2000 of 9000 lines (2000 line limit)]"
    image = card("read", {"path": "a.png"})
    image.finish(
        SimpleNamespace(
            content=[ImageContent(data="", mime_type="image/png")], details={"imageUnsupportedByModel": "m1"}
        ),
        False,
    )
    assert " [m1 does not support images; it saw a placeholder instead]" in visible(image.render(110))


def test_invalid_path_argument() -> None:
    tool = card("read", {"path": 42})
    lines = tool.render(110)
    assert visible(lines)[2] == " read [invalid arg]"
    assert "38;2;234;127;129m[invalid arg]" in lines[2]


# --- grep / find / ls / generic -----------------------------------------------------------------------


def test_grep_call_line_preview_and_notes() -> None:
    tool = card("grep", {"pattern": "TODO", "path": "src", "glob": "*.py", "limit": 50})
    assert visible(tool.render(110))[2] == " grep /TODO/ in src (*.py) limit 50"
    text = "\n".join(f"src/f{i}.py:1: TODO" for i in range(20))
    tool.finish(result(text, {"matchLimitReached": 50, "linesTruncated": True}), False)
    lines = visible(tool.render(110))
    assert lines[4:6] == [" src/f0.py:1: TODO", " src/f1.py:1: TODO"]
    assert lines[19] == " ... (5 more lines, ctrl+o to expand)"
    assert lines[20] == " [Truncated: 50 matches limit, some lines truncated]"
    tool.set_expanded(True)
    assert len([line for line in visible(tool.render(110)) if line.endswith(": TODO")]) == 20


def test_find_and_ls() -> None:
    find = card("find", {"pattern": "*.py", "limit": 5})
    assert visible(find.render(110))[2] == " find *.py in . (limit 5)"
    ls = card("ls", {"path": "/home/user/proj"})
    ls.finish(result("\n".join(f"f{i}" for i in range(25)), {"entryLimitReached": 25}), False)
    lines = visible(ls.render(110))
    assert lines[2] == " ls ~/proj"
    assert lines[24] == " ... (5 more lines, ctrl+o to expand)"
    assert lines[25] == " [Truncated: 25 entries limit]"


def test_generic_defined_tool() -> None:
    args = {"query": "x" * 150, "n": 3}
    tool = card("search_docs", args, defined=True)
    call = visible(tool.render(200))[2]
    assert call.startswith(" search_docs query=xxx") and call.endswith("...") and len(call) == 101
    tool.finish(result("\n".join(f"hit {i}" for i in range(12))), False)
    lines = visible(tool.render(200))
    assert lines[-3:] == [" hit 9", " ... (2 more lines, ctrl+o to expand)", ""]
    tool.set_expanded(True)
    lines = visible(tool.render(200))
    assert lines[3:5] == ["   query: " + "x" * 150, "   n: 3"]
    assert " hit 11" in lines


def test_streamed_arguments_render_the_latest_once_per_frame() -> None:
    tool = card("write", {"path": "a.txt"})
    first = tool.render(110)
    assert tool.render(110) is first  # unchanged: the cached list itself
    for n in range(1, 30):
        tool.set_args({"path": "a.txt", "content": "".join(f"l{i}\n" for i in range(n))})
    lines = visible(tool.render(110))
    assert lines[4:6] == [" l0", " l1"]
    assert lines[-2] == " ... (19 more lines, 29 total, ctrl+o to expand)"


def test_fail_marks_pending_card_as_error() -> None:
    tool = card("bash", {"command": "ls"})
    tool.fail("Operation aborted")
    lines = tool.render(110)
    assert " Operation aborted" in visible(lines)
    assert ERROR_BG in lines[1]


def test_grep_invalid_pattern_and_cached_frames() -> None:
    tool = card("grep", {"pattern": ["x"]})
    assert visible(tool.render(110))[2] == " grep [invalid arg] in ."
    clock = Clock()
    bash = card("bash", {"command": "sleep 9"}, now=clock)
    bash.start()
    first = bash.render(110)
    clock.value += 0.01
    assert bash.render(110) is first  # the timer text did not change: nothing rebuilt
    clock.value += 1
    assert bash.render(110) is not first


def test_read_of_pi_docs_collapses() -> None:
    from pi.app.package_docs import package_docs_dir

    root = package_docs_dir()
    assert root is not None, "the manual ships with the package"
    tool = card("read", {"path": str(root / "docs" / "tui.md")})
    assert visible(tool.render(110))[2] == " read docs docs/tui.md (ctrl+o to expand)"
    tool.set_expanded(True)
    assert visible(tool.render(110))[2].startswith(" read ") and "docs/tui.md" in visible(tool.render(110))[2]


def test_resumed_edit_card_reads_no_file(tmp_path: Path) -> None:
    args = {"path": "gone.py", "edits": [{"oldText": "a", "newText": "b"}]}
    tool = card("edit", args, cwd=str(tmp_path), args_complete=True)
    tool.finish(result("ok", {"diff": "-1 a\n+1 b", "patch": "", "firstChangedLine": 1}), False, None)
    lines = tool.render(110)
    assert visible(lines)[4:6] == [" -1 a", " +1 b"]
    assert SUCCESS_BG in lines[1]
    assert "preview" not in tool.state.memo
