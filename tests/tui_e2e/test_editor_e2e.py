"""The editor and `!` commands in the real `pi` in tmux (tui.md §16 checks 27–33)."""

from __future__ import annotations

import json
from typing import Any

from pi.tui.theme import builtin_theme
from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import WIDTH, TmuxPi

RULE = "─" * WIDTH


def _editor_rows(pi: TmuxPi) -> list[str]:
    """The rows between the editor's two rules (the last two rules above the footer)."""
    rows = pi.screen()
    while rows and not rows[-1].strip():
        rows.pop()
    rules = [i for i, row in enumerate(rows) if row.startswith("──")]
    top, bottom = rules[-2], rules[-1]
    return rows[top + 1 : bottom]


def _started(make_pi: Any, server: ScriptedServer, *responses: Any, regular: bool = False) -> TmuxPi:
    pi: TmuxPi = make_pi()
    server.queue(*responses)
    pi.start("--use-theme", "dark", *(["--tui-mode", "regular"] if regular else []))
    pi.wait_for("fake-claude • medium")
    return pi


def _request_text(server: ScriptedServer, index: int) -> str:
    return json.dumps(server.requests[index].json()["messages"])


def test_check_27_newline_keys(make_pi: Any, server: ScriptedServer) -> None:
    """Check 27: Shift+Enter and Ctrl+J each add a row; `a\\` + Enter inserts a newline."""
    pi = _started(make_pi, server)
    pi.type("one")
    pi.shift_enter()
    pi.type("two")
    pi.keys("C-j")
    pi.type("three a\\")
    pi.keys("Enter")
    pi.type("four")
    pi.wait_for("four")
    assert [row.strip() for row in _editor_rows(pi)] == ["one", "two", "three a", "four"]
    assert not server.requests


def test_check_28_kill_ring_and_undo(make_pi: Any, server: ScriptedServer) -> None:
    """Check 28: Ctrl+W, then Ctrl+A Ctrl+Y yanks at the start, Ctrl+- undoes the yank."""
    pi = _started(make_pi, server)
    pi.type("line three")
    pi.wait_for("line three")
    pi.keys("C-w")
    pi.wait_for(lambda s: [r.strip() for r in _editor_rows(pi)] == ["line"])
    pi.keys("C-a", "C-y")
    pi.wait_for("threeline")
    pi.keys("C--")
    pi.wait_for(lambda s: [r.strip() for r in _editor_rows(pi)] == ["line"])


def test_check_29_paste_markers(make_pi: Any, server: ScriptedServer) -> None:
    """Check 29: large pastes become markers; the request carries the full text."""
    pi = _started(make_pi, server, anthropic_reply("Got it."))
    lines = "".join(f"pasted line {i}\n" for i in range(15))
    pi.tmux("set-buffer", "-b", "p1", lines)
    pi.tmux("paste-buffer", "-p", "-b", "p1", "-t", "main")
    pi.wait_for("[paste #1 +16 lines]")
    pi.tmux("set-buffer", "-b", "p2", "x" * 1500)
    pi.tmux("paste-buffer", "-p", "-b", "p2", "-t", "main")
    pi.wait_for("[paste #2 1500 chars]")
    pi.keys("Enter")
    pi.wait_for("Got it.")
    sent = _request_text(server, 0)
    assert "pasted line 14" in sent and "x" * 1500 in sent


def test_check_30_history(make_pi: Any, server: ScriptedServer) -> None:
    """Check 30: after two prompts, Up, Up, Down, Down walk the history back to an empty editor."""
    pi = _started(make_pi, server, anthropic_reply("First."), anthropic_reply("Second."))
    pi.type("first prompt")
    pi.keys("Enter")
    pi.wait_for("First.")
    pi.wait_idle()
    pi.type("second prompt")
    pi.keys("Enter")
    pi.wait_for("Second.")
    pi.wait_idle()
    steps = [("Up", ["second prompt"]), ("Up", ["first prompt"]), ("Down", ["second prompt"]), ("Down", [""])]
    for key, want in steps:
        pi.keys(key)

        def shows(_: str, expected: list[str] = want) -> bool:
            return [r.strip() for r in _editor_rows(pi)] == expected

        pi.wait_for(shows)


def test_check_31_editor_scrolls(make_pi: Any, server: ScriptedServer) -> None:
    """Check 31: 15 lines in 35 rows show 10 rows and ` ↑ 5 more ` in the top rule."""
    pi = _started(make_pi, server)
    for i in range(15):
        if i:
            pi.shift_enter()
        pi.type(f"row {i}")
    pi.wait_for("row 14")
    pi.wait_for(" ↑ 5 more ")
    rows = _editor_rows(pi)
    assert len(rows) == 10 and rows[-1].strip() == "row 14"


def test_check_32_bang_commands(make_pi: Any, server: ScriptedServer) -> None:
    """Check 32: `!` runs with a bashMode rule and its output reaches the next request; `!!` does not."""
    pi = _started(make_pi, server, anthropic_reply("Seen."), regular=True)
    pi.type("!echo hello; echo world")
    bash_mode = builtin_theme("dark").fg_code("bashMode")
    ansi = pi.wait_for("!echo hello", ansi=True)
    rule_rows = [row for row in ansi.split("\n") if "────────" in row]
    assert any(bash_mode in row for row in rule_rows)
    pi.keys("Enter")
    text = pi.wait_for(lambda s: "\n world" in s and "Running..." not in s)
    assert " $ echo hello; echo world" in text and " hello" in text
    pi.type("!!ls nope-missing")
    pi.keys("Enter")
    pi.wait_for("(exit 2)")
    pi.type("what did you see")
    pi.keys("Enter")
    pi.wait_for("Seen.")
    sent = _request_text(server, 0)
    assert "hello" in sent and "world" in sent
    assert "nope-missing" not in sent


def test_check_33_bang_cancel(make_pi: Any, server: ScriptedServer) -> None:
    """Check 33: `!sleep 5` shows `Running...`; a second command is refused; Esc cancels it."""
    pi = _started(make_pi, server)
    pi.type("!sleep 5")
    pi.keys("Enter")
    pi.wait_for("Running... (escape/ctrl+c to cancel)")
    pi.type("!echo again")
    pi.keys("Enter")
    pi.wait_for("Warning: A bash command is already running. Press Esc to cancel it first.")
    assert [r.strip() for r in _editor_rows(pi)] == ["!echo again"]
    pi.keys("Escape")
    pi.wait_for("(cancelled)")


def test_check_34_external_editor(make_pi: Any, server: ScriptedServer, tmp_path: Any) -> None:
    """Check 34: Ctrl+G runs `externalEditor` on the prompt file; the editor then holds the file text
    without its final newline. The script waits for a go-file so the launch message can be seen."""
    go = tmp_path / "go"
    script = tmp_path / "fake-editor.sh"
    script.write_text(
        f'#!/bin/sh\nwhile [ ! -e "{go}" ]; do sleep 0.05; done\nprintf "rewritten by editor\\nsecond line\\n" > "$1"\n'
    )
    script.chmod(0o755)
    pi: TmuxPi = make_pi({"externalEditor": str(script)})
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.type("original text")
    pi.keys("C-g")
    # The notice wraps when the temporary path is long: compare with the screen's lines joined.
    pi.wait_for(lambda s: f"Launching external editor: {script}" in s.replace("\n", ""))
    pi.wait_for("Pi will resume when the editor exits.")
    go.write_text("")
    pi.wait_for("rewritten by editor")
    assert [r.strip() for r in _editor_rows(pi)] == ["rewritten by editor", "second line"]


def test_check_25_at_file_completion(make_pi: Any, server: ScriptedServer) -> None:
    """Check 25: `@` lists the project's directories first, then files; a query narrows it; Tab inserts."""
    pi = _started(make_pi, server)
    pi.type("look at @")
    pi.wait_for(lambda s: "→ src/" in s and "AGENTS.md" in s)
    rows = [row.strip() for row in pi.screen()]
    first = rows.index(next(row for row in rows if row.startswith("→ src/")))
    assert rows[first + 1].startswith("AGENTS.md") and rows[first + 3].startswith("calc.py")
    pi.type("calc")
    pi.wait_for(lambda s: "→ calc.py" in s and "src/calc.py" in s)
    pi.keys("Tab")
    pi.wait_for(lambda s: [row.strip() for row in _editor_rows(pi)] == ["look at @src/calc.py"])
    assert not server.requests
