"""The `/` menu and Tab completion of the real `pi` in tmux (tui.md §16 checks 22–24 and 26)."""

from __future__ import annotations

from typing import Any

from tests.tui_e2e.harness import WIDTH, TmuxPi

MENU_ORDER = [
    "settings", "model", "tree", "thinking", "scoped-models", "export", "import", "share", "bug", "copy",
    "name", "session", "changelog", "hotkeys", "fork", "clone", "trust", "login", "logout", "new",
    "compact", "resume", "reload", "quit", "llama", "mcp",
]  # fmt: skip


def _started(make_pi: Any) -> TmuxPi:
    pi: TmuxPi = make_pi()
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    return pi


def _editor_text(pi: TmuxPi) -> str:
    rows = pi.screen()
    rules = [i for i, row in enumerate(rows) if row.startswith("─" * (WIDTH // 2))]
    return "\n".join(row.strip() for row in rows[rules[-2] + 1 : rules[-1]])


def _selected(text: str) -> str:
    line = next(line for line in text.split("\n") if line.strip().startswith("→ "))
    return line.strip()[2:].split()[0]


def test_check_22_menu_rows_and_order(make_pi: Any) -> None:
    """Check 22: `/` shows `→ settings  Open settings menu` with `(1/26)` and 5 rows; Down walks the §9
    order to `mcp`."""
    pi = _started(make_pi)
    pi.type("/")
    text = pi.wait_for("(1/26)")
    selected = next(line for line in text.split("\n") if "→ settings" in line)
    assert "Open settings menu" in selected
    rows = [line for line in text.split("\n") if line.strip().startswith(("→ ", "  ")) and "menu" not in line]
    listed = [line for line in text.split("\n") if any(f" {n} " in f" {line.strip()} " for n in MENU_ORDER[:6])]
    assert len(listed) == 5, (rows, text)
    seen = ["settings"]
    for index in range(1, 26):
        pi.keys("Down")
        text = pi.wait_for(f"({index + 1}/26)")
        seen.append(_selected(text))
    assert seen == MENU_ORDER


def test_check_23_24_filter_tab_and_enter(make_pi: Any) -> None:
    """Checks 23–24: `/mo` lists model, scoped-models, import; Tab completes `/model ` without submitting;
    `f` lists both models with their providers; `/mo` + Enter opens the model selector."""
    pi = _started(make_pi)
    pi.type("/mo")
    text = pi.wait_for(lambda s: "→ model" in s and "scoped-models" in s)
    names = [line.strip().lstrip("→ ").split()[0] for line in text.split("\n") if line.strip()]
    assert [n for n in names if n in ("model", "scoped-models", "import")] == ["model", "scoped-models", "import"]
    pi.keys("Tab")
    pi.wait_for(lambda s: _editor_text(pi) == "/model")
    pi.type("f")
    text = pi.wait_for(lambda s: "fake-model" in s and "fake-claude" in s)
    lines = [line.strip() for line in text.split("\n")]
    model_row = next(line for line in lines if line.lstrip("→ ").startswith("fake-model"))
    claude_row = next(line for line in lines if line.lstrip("→ ").startswith("fake-claude"))
    assert model_row.split()[-1] == "fake" and claude_row.split()[-1] == "fakea"
    assert "Only showing models" not in text
    pi.keys("C-c")
    pi.wait_for(lambda s: _editor_text(pi) == "")
    pi.type("/mo")
    pi.wait_for("→ model")
    pi.keys("Enter")
    pi.wait_for("Only showing models from configured providers. Use /login to add providers.")


def test_check_26_path_tab_completion(make_pi: Any) -> None:
    """Check 26: `see ./s` + Tab gives `see ./src/`; a second Tab lists `calc.py` and `config.json`."""
    pi: TmuxPi = make_pi()
    (pi.cwd / "src" / "config.json").write_text("{}\n")
    pi.start("--use-theme", "dark")
    pi.wait_for("fake-claude • medium")
    pi.type("see ./s")
    pi.keys("Tab")
    pi.wait_for(lambda s: _editor_text(pi) == "see ./src/")
    pi.keys("Tab")
    text = pi.wait_for(lambda s: "calc.py" in s and "config.json" in s)
    assert _editor_text(pi) == "see ./src/"
    assert "PI-EXIT" not in text
