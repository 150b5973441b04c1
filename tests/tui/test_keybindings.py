from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from pi.tui.keybindings import DEFAULT_KEYBINDINGS, default_keybindings, load_keybindings, parse_keybindings


def test_defaults_cover_the_documented_actions() -> None:
    kb = load_keybindings(None, platform="linux", environ={})
    assert kb.matches("\x1b[1;6A", "tui.altScreen.previousPrompt")
    assert kb.matches("\x1b[1;5A", "tui.altScreen.previousPrompt")
    assert kb.matches("\x1f", "tui.editor.undo")
    assert kb.matches("\x1b[13;2u", "tui.input.newLine")
    assert kb.matches("\n", "tui.input.newLine")
    assert kb.matches("\x1b\r", "app.message.followUp")
    assert kb.matches("\x1b[1;3A", "app.message.dequeue")
    assert kb.matches("\x1b[112;6u", "app.model.cycleBackward")
    assert kb.matches("\x1b[1;5H", "tui.altScreen.top")
    assert kb.matches("L", "app.tree.editLabel")
    assert kb.keys("app.session.new") == []
    assert not kb.matches("\r", "app.session.new")
    assert len(DEFAULT_KEYBINDINGS) >= 90


def test_platform_alternatives() -> None:
    win = default_keybindings("win32", {})
    assert win["tui.editor.undo"] == ["ctrl+z"]
    assert win["app.suspend"] == []
    assert win["app.message.followUp"] == ["ctrl+q"]
    wsl = default_keybindings("linux", {"WSL_DISTRO_NAME": "Ubuntu"})
    assert wsl["tui.editor.undo"] == ["alt+z"]
    assert wsl["app.suspend"] == ["ctrl+z"]
    assert default_keybindings("linux", {})["tui.editor.undo"] == ["ctrl+-"]


def test_hints_and_labels() -> None:
    kb = load_keybindings(None, platform="linux", environ={})
    assert kb.key_hint("app.clear") == "ctrl+c"
    assert kb.key_label("app.model.cycleBackward") == "Shift+Ctrl+P"
    assert kb.key_label("tui.select.cancel") == "Escape/Ctrl+C"
    mac = load_keybindings(None, platform="darwin", environ={})
    assert mac.key_hint("app.message.followUp") == "option+enter"


def test_file_overrides_migration_schema_and_unbinding(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text(
        json.dumps(
            {
                "$schema": "https://pi.dev/schemas/keybindings.schema.json",
                "cursorUp": ["ctrl+k", "up"],
                "expandTools": "ctrl+e",
                "app.interrupt": [],
            }
        )
    )
    kb = load_keybindings(path, platform="linux", environ={})
    assert kb.matches("\x0b", "tui.editor.cursorUp")
    assert kb.matches("\x05", "app.tools.expand")
    assert not kb.matches("\x0f", "app.tools.expand")
    assert not kb.matches("\x1b", "app.interrupt")


def test_namespaced_entry_wins_over_its_flat_twin() -> None:
    overrides = parse_keybindings({"selectModel": "ctrl+q", "app.model.select": "ctrl+y"})
    assert overrides == {"app.model.select": ["ctrl+y"]}


def test_invalid_entries_are_dropped_one_by_one(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        overrides = parse_keybindings(
            {
                "tui.editor.yank": "ctrl+nope",
                "noSuchAction": "ctrl+a",
                "tui.editor.undo": 5,
                "tui.editor.deleteToLineEnd": "ctrl+l",
            }
        )
    assert overrides == {"tui.editor.deleteToLineEnd": ["ctrl+l"]}
    text = caplog.text
    assert "tui.editor.yank" in text and "noSuchAction" in text and "tui.editor.undo" in text


def test_unreadable_file_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text("{not json")
    kb = load_keybindings(path, platform="linux", environ={})
    assert kb.matches("\x0b", "tui.editor.deleteToLineEnd")
    assert load_keybindings(tmp_path / "missing.json", platform="linux", environ={}).matches("\r", "tui.input.submit")
    path.write_text("[1, 2]")
    assert load_keybindings(path, platform="linux", environ={}).matches("\r", "tui.input.submit")
