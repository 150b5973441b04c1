"""Slash commands and pickers of the real `pi` in tmux (tui.md §16 checks 39–42 and 49–54)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi


def _started(
    make_pi: Any, server: ScriptedServer, *responses: Any, settings: Any = None, regular: bool = False
) -> TmuxPi:
    pi: TmuxPi = make_pi(settings)
    server.queue(*responses)
    pi.start("--use-theme", "dark", *(["--tui-mode", "regular"] if regular else []))
    pi.wait_for("fake-claude • medium")
    return pi


def test_check_39_40_model_selector_and_cycling(make_pi: Any, server: ScriptedServer) -> None:
    """Checks 39–40: /model shows the fixed lines and the current default; `mod` + Enter switches the
    session only; Ctrl+P cycles back; Shift+Tab cycles the thinking level."""
    pi = _started(make_pi, server)
    before = (pi.agent_dir / "settings.json").read_text()
    pi.submit("/model")
    text = pi.wait_for("Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel")
    assert "Only showing models from configured providers. Use /login to add providers." in text
    assert "→ ✓ fake-claude [fakea] · default" in text and "fake-model [fake]" in text
    assert "Model Name: fake-claude" in text
    pi.type("mod")
    pi.wait_for(lambda s: any(line.startswith("→") and "fake-model [fake]" in line for line in s.split("\n")))
    pi.keys("Enter")
    text = pi.wait_for("Model: fake-model")
    pi.wait_for("(fake) fake-model")
    assert (pi.agent_dir / "settings.json").read_text() == before
    pi.keys("C-p")
    text = pi.wait_for("Switched to fake-claude")
    pi.wait_for("fake-claude • thinking off")
    pi.keys("BTab")
    pi.wait_for("Thinking level: minimal")


def test_check_41_thinking(make_pi: Any, server: ScriptedServer) -> None:
    """Check 41: /thinking lists the levels with `✓` and `· default`; an unknown level is an error."""
    pi = _started(make_pi, server, settings={"defaultThinkingLevel": "medium"})
    pi.submit("/thinking")
    text = pi.wait_for("Shift+Tab cycles thinking levels in-session")
    assert "Thinking Level" in text
    for level, description in (
        ("off", "No reasoning"),
        ("minimal", "Very brief reasoning (~1k tokens)"),
        ("low", "Light reasoning (~2k tokens)"),
        ("medium", "Moderate reasoning (~8k tokens)"),
        ("high", "Deep reasoning (~16k tokens)"),
    ):
        assert any(level in line and description in line for line in text.split("\n")), level
    medium = next(line for line in text.split("\n") if "Moderate reasoning" in line)
    assert "✓" in medium and "· default" in medium
    pi.keys("Escape")
    pi.wait_gone("Shift+Tab cycles thinking levels in-session")
    pi.submit("/thinking bogus")
    pi.wait_for('Error: Unknown thinking level "bogus". Available levels: off, minimal, low, medium, high.')


def test_check_42_settings_tui_mode(make_pi: Any, server: ScriptedServer) -> None:
    """Check 42: /settings shows `Auto-compact  true` and `(1/33)`; `tui` + Enter switches to regular
    mode at once (leaving the alternate screen) and saves `"tuiMode": "regular"`."""
    pi = _started(make_pi, server)
    pi.submit("/settings")
    text = pi.wait_for("(1/33)")
    assert any("Auto-compact" in line and line.rstrip().endswith("true") for line in text.split("\n"))
    pi.type("tui")
    pi.wait_for(lambda s: any("TUI mode" in line and "fullscreen" in line for line in s.split("\n")))
    pi.keys("Enter")
    pi.wait_for("TUI mode: regular")
    assert json.loads((pi.agent_dir / "settings.json").read_text())["tuiMode"] == "regular"
    assert pi.tmux("display-message", "-p", "-t", "main", "#{alternate_on}").strip() == "0"
    pi.keys("Escape")
    pi.wait_for("fake-claude • medium")


def heading(name: Literal["dark", "light"]) -> Callable[[str], bool]:
    """Whether the `[Context]` heading of a screen (with colours) is painted in theme `name`'s colour."""
    from pi.tui.theme import builtin_theme

    code = builtin_theme(name).fg_code("mdHeading")[2:-1]  # 38;2;r;g;b
    return lambda screen: any(code in line and "[Context]" in line for line in screen.split("\n"))


def _theme_menu_of_a_dark_start(make_pi: Any, server: ScriptedServer) -> TmuxPi:
    """pi started in the dark theme, with /settings → Theme opened."""
    pi = _started(make_pi, server, settings={"theme": "dark"})
    pi.wait_for(heading("dark"), ansi=True)
    pi.submit("/settings")
    pi.wait_for("(1/33)")
    pi.type("theme")
    pi.wait_for(lambda s: any("Theme" in line and "dark" in line for line in s.split("\n")))
    pi.keys("Enter")
    return pi


def test_settings_theme_preview(make_pi: Any, server: ScriptedServer) -> None:
    """/settings → Theme previews a theme as the cursor reaches it (the `[Context]` heading repaints in
    its colour), Esc goes back to the saved theme, and Enter saves the choice."""
    pi = _theme_menu_of_a_dark_start(make_pi, server)
    pi.wait_for("→ ✓ dark")
    pi.keys("Down")
    pi.wait_for(heading("light"), ansi=True)
    pi.keys("Escape")
    pi.wait_for(heading("dark"), ansi=True)
    assert json.loads((pi.agent_dir / "settings.json").read_text())["theme"] == "dark"
    pi.keys("Enter")
    pi.wait_for("→ ✓ dark")
    pi.keys("Down")
    pi.keys("Enter")
    pi.wait_for("Theme: light")
    pi.wait_for(heading("light"), ansi=True)
    assert json.loads((pi.agent_dir / "settings.json").read_text())["theme"] == "light"


def test_settings_automatic_theme_pair(make_pi: Any, server: ScriptedServer) -> None:
    """/settings → Theme → automatic: the light theme is chosen (and previewed), Apply saves the
    `light/dark` pair, and the dark half shows in tmux's dark terminal."""
    pi = _theme_menu_of_a_dark_start(make_pi, server)
    pi.wait_for("Select a theme, or choose automatic to follow terminal appearance.")
    pi.keys("Up")
    pi.wait_for("→   automatic")
    pi.keys("Enter")
    pi.wait_for("Light/dark detection requires terminal support.")
    pi.keys("Enter")
    pi.wait_for("Select the theme to use for light terminal appearance")
    pi.keys("Down")
    pi.wait_for(heading("light"), ansi=True)
    pi.keys("Enter")
    pi.wait_for("→ Light theme  light")
    pi.wait_for(heading("dark"), ansi=True)
    pi.keys("Down", "Down", "Enter")
    pi.wait_for("Theme: light/dark")
    assert json.loads((pi.agent_dir / "settings.json").read_text())["theme"] == "light/dark"


def test_invalid_theme_file_is_reported(make_pi: Any, server: ScriptedServer) -> None:
    """A theme file with a bad colour is reported at startup with the key that is wrong, and pi runs on."""
    pi: TmuxPi = make_pi({"theme": "broken"})
    (pi.agent_dir / "themes").mkdir()
    colors = {token: "#808080" for token in builtin_theme_tokens()}
    colors["accent"] = "not-a-colour"
    (pi.agent_dir / "themes" / "broken.json").write_text(json.dumps({"name": "broken", "colors": colors}))
    pi.start()
    text = pi.wait_for("fake-claude • medium")
    pi.wait_for("colors.accent")
    text = pi.text()
    assert "broken.json" in text


def builtin_theme_tokens() -> list[str]:
    from pi.tui.theme import TOKENS

    return list(TOKENS)


def test_check_49_name_and_title(make_pi: Any, server: ScriptedServer) -> None:
    """Check 49: `/name` on an unnamed session warns; `/name demo` names it, the footer ends in ` • demo`
    and the terminal title is `π - demo - work`."""
    pi = _started(make_pi, server)
    pi.submit("/name")
    pi.wait_for("Warning: Usage: /name <name>")
    pi.submit("/name demo")
    text = pi.wait_for("Session name set: demo")
    assert any(line.rstrip().endswith(" • demo") for line in text.split("\n"))
    pi.wait_for(lambda s: pi.tmux("display-message", "-p", "-t", "main", "#{pane_title}").strip() == "π - demo - work")


def test_check_50_session_info(make_pi: Any, server: ScriptedServer) -> None:
    """Check 50: /session shows `Session Info`, the id, tool counts and the cache-warming mode."""
    pi = _started(make_pi, server, anthropic_reply("Hello there."))
    pi.chat("hi", "Hello there.")
    pi.submit("/session")
    text = pi.wait_for("Session Info")
    pi.wait_for("Tools: 0 calls, 0 results")
    text = pi.text()
    assert any(line.strip().startswith("ID: ") and len(line.strip()) > 30 for line in text.split("\n"))
    assert "Mode: " in text


def test_check_51_compact_too_small(make_pi: Any, server: ScriptedServer) -> None:
    """Check 51 (first half): /compact on a tiny session says there is nothing to compact."""
    pi = _started(make_pi, server)
    pi.submit("/compact")
    pi.wait_for("Error: Compaction failed: Nothing to compact (session too small)")


def test_check_52_new_session(make_pi: Any, server: ScriptedServer) -> None:
    """Check 52: /new says `✓ New session started`, clears the chat and restores the default level."""
    pi = _started(make_pi, server, anthropic_reply("First reply."))
    pi.chat("first question", "First reply.")
    pi.keys("BTab")
    pi.wait_for("Thinking level: high")
    pi.submit("/new")
    text = pi.wait_for("✓ New session started")
    assert "First reply." not in text and "first question" not in text
    pi.wait_for("fake-claude • medium")


def test_check_53_hotkeys(make_pi: Any, server: ScriptedServer) -> None:
    """Check 53: /hotkeys shows `Keyboard Shortcuts`, its tables and the model-cycling row."""
    pi = _started(make_pi, server, regular=True)
    pi.submit("/hotkeys")
    text = pi.wait_for(lambda s: "Keyboard Shortcuts" in s and "Cycle models" in s, history=True)
    assert "Navigation" in text and "Editing" in text and "Other" in text
    assert "Ctrl+P / Shift+Ctrl+P │ Cycle models" in text.replace("  ", " ") or any(
        "Ctrl+P / Shift+Ctrl+P" in line and "│ Cycle models" in line for line in text.split("\n")
    )


def test_check_54_exit_goes_to_the_model(make_pi: Any, server: ScriptedServer) -> None:
    """Check 54: `/exit` is not a command: it reaches the model as a user message."""
    pi = _started(make_pi, server, anthropic_reply("Not a command."))
    pi.chat("/exit", "Not a command.")
    body = server.requests[0].json()
    assert "/exit" in json.dumps(body["messages"])
    assert "PI-EXIT" not in pi.text()


def test_check_51_compact_and_queue_during_compaction(make_pi: Any, server: ScriptedServer) -> None:
    """Check 51 (second half): with `compaction.keepRecentTokens: 10`, /compact shows the working label,
    then `[compaction]` and `Compacted from N tokens`, and the footer's usage becomes `?`. A message sent
    while compacting waits in the queue (`Queued message for after compaction`) and goes out afterwards."""
    long_reply = "word " * 300
    pi = _started(
        make_pi,
        server,
        anthropic_reply(long_reply + "END1."),
        anthropic_reply(long_reply + "END2."),
        anthropic_reply("## Goal\nThe summary.", chunk_delay=0.3, pieces=6),
        anthropic_reply("The turn so far."),  # the kept turn's prefix is summarised too
        # Streamed slowly: the footer shows `?` from the end of compaction until this reply's usage
        # arrives, and the queued message is sent at once, so this reply is that window.
        anthropic_reply("After the summary.", chunk_delay=0.4, pieces=3),
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    pi.chat("first " * 50, "END1.")
    pi.chat("second " * 50, "END2.")
    pi.submit("/compact")
    pi.wait_for("Compacting context... (escape to cancel)")
    pi.submit("after compaction")
    text = pi.wait_for("Queued message for after compaction")
    assert "Queued: after compaction" in text
    text = pi.wait_for(lambda s: "Compacted from " in s and "?/200k" in s)
    assert "[compaction]" in text and "(ctrl+o to expand)" in text
    assert "?/200k" in text
    pi.wait_for("After the summary.")
    pi.wait_idle()
    assert "Queued: after compaction" not in pi.text()
    last = json.dumps(server.requests[-1].json()["messages"])
    assert "after compaction" in last and "The summary." in last
    assert len(server.requests) == 5


def test_check_55_logout_and_login(make_pi: Any, server: ScriptedServer) -> None:
    """Check 55: /logout with nothing stored says so; /login shows the three methods; Esc Esc returns to
    the editor."""
    pi = _started(make_pi, server)
    pi.submit("/logout")
    pi.wait_for("No stored credentials to remove.")
    pi.submit("/login")
    text = pi.wait_for("Select authentication method:")
    assert "Sign in with an account" in text and "Sign in with an API key" in text and "Sign in with Radius" in text
    pi.keys("Escape")
    pi.wait_gone("Select authentication method:")
    pi.type("typed after")
    pi.wait_for("typed after")
