"""Transcript rendering of the real `pi` in tmux (tui.md §16 checks 9–21)."""

from __future__ import annotations

from typing import Any

from pi.tui.theme import builtin_theme
from tests.support.http_server import ScriptedServer, json_response
from tests.tui_e2e.anthropic_chunks import anthropic_reply, anthropic_tool_calls, anthropic_tool_reply
from tests.tui_e2e.harness import TmuxPi

MARKDOWN = (
    "## Plan\n\nUse `calc.add` here.\n\n"
    "| function | change |\n|---|---|\n| add | docstring |\n| mul | new |\n\n"
    "```python\ndef mul(a, b):\n    return a * b\n```\n\n"
    "See [the docs](https://x) for more. The end."
)


def _start(make_pi: Any, server: ScriptedServer, *responses: Any, regular: bool = False) -> TmuxPi:
    """pi with the dark theme; regular mode keeps the whole transcript in tmux's scrollback."""
    pi: TmuxPi = make_pi()
    server.queue(*responses)
    pi.start("--use-theme", "dark", *(["--tui-mode", "regular"] if regular else []))
    pi.wait_for("fake-claude • medium")
    return pi


def test_check_09_10_11_thinking_markdown_table_code_link(make_pi: Any, server: ScriptedServer) -> None:
    """Checks 9–11: `Working` in the rule while streaming, a plain rule after; italic thinking, `## Plan`
    as bold `Plan`, inline code without backticks; table borders and row separators; the code fence
    lines kept and the code indented; a link as `text (url)` under tmux."""
    reply = anthropic_reply(MARKDOWN, thinking="I should plan first.", chunk_delay=0.03, pieces=4)
    pi = _start(make_pi, server, reply, regular=True)
    pi.type("Give me an overview")
    pi.keys("Enter")
    pi.wait_for(lambda s: "── " in s and " Working ─" in s)
    text = pi.wait_for("The end.")
    pi.wait_idle()
    text = pi.text()
    ansi = pi.text(ansi=True)
    assert "Working" not in text
    assert "\x1b[3m" in ansi.split("I should plan first.")[0].rsplit("\n", 1)[-1]
    plan_line = next(line for line in ansi.split("\n") if "Plan" in line and "I should" not in line)
    assert "\x1b[1m" in plan_line and "##" not in plan_line
    assert " Use calc.add here." in text
    assert "┌─" in text and "├─" in text and "┼─" in text and "└─" in text
    table = [line[:-1] for line in text.split("\n") if line[:-1].strip().startswith(("│", "├", "┌", "└"))]
    assert [row.strip()[0] for row in table] == ["┌", "│", "├", "│", "├", "│", "└"]
    assert " ```python" in text and "\n ```\n" in text
    assert "   def mul(a, b):" in text
    assert "the docs (https://x)" in text


def test_check_12_15_16_17_18_tool_cards(make_pi: Any, server: ScriptedServer) -> None:
    """Checks 12 and 15–18: a bash card (last 5 lines, `Took`, success background), collapsed reads,
    a 14-line write preview, an unknown tool, and Ctrl+O expanding every card (twice: collapsed)."""
    body = "\n".join(f"line {i}" for i in range(1, 15)) + "\n"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("bash", {"command": "printf 'l%s\\n' 1 2 3 4 5 6 7 8 9"}),
        ("read", {"path": "src/calc.py"}),
        ("read", {"path": "AGENTS.md"}),
        ("write", {"path": "notes.txt", "content": body}),
        ("nosuchtool", {"a": 1}),
    ]
    pi = _start(make_pi, server, anthropic_tool_calls(calls), anthropic_reply("All done."), regular=True)
    pi.type("do it")
    pi.keys("Enter")
    pi.wait_for("All done.")
    pi.wait_idle()
    full = pi.text(history=True)
    text = pi.text()
    ansi = pi.text(ansi=True)
    assert " $ printf 'l%s\\n' 1 2 3 4 5 6 7 8 9" in full
    assert "... (4 earlier lines, ctrl+o to expand)" in full
    assert " l9" in full and " l5" in full
    assert "Took 0." in full
    assert "48;2;37;65;49" in pi.text(ansi=True, history=True)
    assert " read src/calc.py" in full and "return a + b" not in full
    assert "read resource AGENTS.md (ctrl+o to expand)" in full
    assert "... (4 more lines, 14 total, ctrl+o to expand)" in full
    assert " nosuchtool" in text and '  "a": 1' in text and "Tool nosuchtool not found" in text
    assert ansi.count("48;2;37;65;49") >= 1
    pi.keys("C-o")
    pi.wait_for("Tool output: expanded")
    expanded = pi.text(history=True)
    assert "return a + b" in expanded
    assert " l1" in expanded.split("printf")[-1]
    pi.keys("C-o")
    after = pi.wait_for("Tool output: collapsed")
    assert "Tool output: expanded" not in after


def test_check_13_bash_timer(make_pi: Any, server: ScriptedServer) -> None:
    """Check 13: `sleep 3` shows `Elapsed 1.0s`, `Elapsed 2.0s` (pending background), then `Took 3.0s`."""
    pi = _start(make_pi, server, anthropic_tool_reply("bash", {"command": "sleep 3"}), anthropic_reply("Slept."))
    pi.type("sleep please")
    pi.keys("Enter")
    pi.wait_for("Elapsed 1.0s")
    ansi = pi.wait_for("Elapsed 2.0s", ansi=True)
    card = ansi.split("$ sleep 3")[0].rsplit("\n", 2)[-1] + ansi.split("$ sleep 3")[1].split("Elapsed 2.0s")[0]
    assert builtin_theme("dark").bg_code("toolPendingBg").strip("\x1b[m") in card
    pi.wait_for("Took 3.0s")
    pi.wait_for("Slept.")


def test_check_14_edit_diff(make_pi: Any, server: ScriptedServer) -> None:
    """Check 14: the edit card shows the path, the added line in the diff-added colour, and context."""
    edit = {
        "path": "src/calc.py",
        "edits": [{"oldText": "def add(a, b):\n", "newText": 'def add(a, b):\n    """Add two numbers."""\n'}],
    }
    pi = _start(make_pi, server, anthropic_tool_reply("edit", edit), anthropic_reply("Edited."), regular=True)
    pi.type("edit it")
    pi.keys("Enter")
    pi.wait_for("Edited.")
    text = pi.text(history=True)
    ansi = pi.text(ansi=True, history=True)
    assert " edit src/calc.py" in text
    assert '+ 2     """Add two numbers."""' in text
    assert "  2     return a + b" in text
    added = next(line for line in ansi.split("\n") if "Add two numbers" in line)
    assert "38;2;104;183;141" in added


def test_check_19_ctrl_t_hides_thinking(make_pi: Any, server: ScriptedServer) -> None:
    """Check 19: Ctrl+T shows `Thinking...`, the status, and saves `hideThinkingBlock`."""
    pi = _start(make_pi, server, anthropic_reply("The answer.", thinking="Secret plan here."))
    pi.type("think")
    pi.keys("Enter")
    pi.wait_for("The answer.")
    pi.wait_idle()
    pi.keys("C-t")
    text = pi.wait_for("Thinking blocks: hidden")
    assert "Thinking..." in text and "Secret plan here." not in text
    assert '"hideThinkingBlock": true' in (pi.agent_dir / "settings.json").read_text()


def test_check_20_provider_404(make_pi: Any, server: ScriptedServer) -> None:
    """Check 20: a 404 shows `Error: 404 …` in the error colour and the `/bug` hint."""
    pi = _start(make_pi, server, json_response(404, "<!DOCTYPE HTML><title>Not Found</title>"))
    pi.type("hello")
    pi.keys("Enter")
    text = pi.wait_for("If this looks like a pi bug, /bug sends a report to the developers.")
    assert "Error: 404" in text


def test_check_21_retry_countdown(make_pi: Any, server: ScriptedServer) -> None:
    """Check 21: an HTTP 529 turn then a text turn: the retry label in the rule, the reply, the error kept above.

    The first turn answers 529 three times: the request's own two silent retries (as the provider
    SDKs make them) fail too, so the failure reaches the agent, which counts retry 1 of 3."""
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    overloaded = [json_response(529, error) for _ in range(3)]
    pi = _start(make_pi, server, *overloaded, anthropic_reply("Recovered reply."), regular=True)
    pi.type("hello")
    pi.keys("Enter")
    pi.wait_for("Retrying (1/3) in 2s... (escape to cancel)")
    pi.wait_for("Recovered reply.", history=True)
    pi.wait_idle()
    text = pi.text(history=True)
    error_line = next(line for line in text.split("\n") if "Error: 529" in line)
    assert "Overloaded" in error_line
    assert "/bug sends a report" not in text
    assert text.index("Error: 529") < text.index("Recovered reply.")
    assert len(server.requests) == 4
