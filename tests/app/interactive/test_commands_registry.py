"""The registry: which submissions are commands, the `/` menu in order, argument completions."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.app.modes.interactive.commands.catalog import BUILTIN_COMMANDS
from pi.app.modes.interactive.commands.registry import CommandRegistry, ParsedCommand, parse_command
from pi.app.prompt_templates import PromptTemplate
from pi.app.resources import Resources
from pi.app.skills import Skill
from pi.tui.autocomplete import AutocompleteProvider
from tests.app.interactive.test_commands_fakes import FakeApi, make_env

MENU = [
    "settings",
    "model",
    "tree",
    "thinking",
    "scoped-models",
    "export",
    "import",
    "share",
    "bug",
    "copy",
    "name",
    "session",
    "changelog",
    "hotkeys",
    "fork",
    "clone",
    "trust",
    "login",
    "logout",
    "new",
    "compact",
    "resume",
    "reload",
    "quit",
    "llama",
    "mcp",
]


def test_menu_lists_the_26_builtins_in_order(tmp_path: Path) -> None:
    registry = CommandRegistry(make_env(tmp_path).session)
    rows = registry.slash_commands()
    assert [r.name for r in rows] == MENU
    assert rows[0].description == "Open settings menu"
    assert (rows[1].argument_hint, rows[1].description) == ("<provider/model>", "Select model (opens selector UI)")
    assert rows[2].description == "Navigate session tree (switch branches)"
    assert (rows[3].argument_hint, rows[3].description) == ("<level>", "Set thinking level")
    assert rows[4].description == "Enable/disable models for Ctrl+P cycling"
    assert "debug" not in [r.name for r in rows]


def test_every_listed_command_has_a_handler(tmp_path: Path) -> None:
    registry = CommandRegistry(make_env(tmp_path).session)
    assert all(registry.handler(info.name) is not None for info in BUILTIN_COMMANDS)


def test_templates_and_skills_follow_the_builtins_with_source_tags(tmp_path: Path) -> None:
    resources = Resources(
        templates=[PromptTemplate("review", "Review code", "body", tmp_path / "review.md", "user")],
        skills=[Skill("pdf", "Read PDFs", tmp_path / "SKILL.md", tmp_path, "project")],
    )
    registry = CommandRegistry(make_env(tmp_path, resources=resources).session)
    rows = registry.slash_commands()
    assert [(r.name, r.source) for r in rows[26:]] == [("review", "u"), ("skill:pdf", "p")]


def test_skill_commands_can_be_turned_off(tmp_path: Path) -> None:
    resources = Resources(skills=[Skill("pdf", "Read PDFs", tmp_path / "SKILL.md", tmp_path, "user")])
    env = make_env(tmp_path, {"enableSkillCommands": False}, resources=resources)
    assert "skill:pdf" not in [r.name for r in CommandRegistry(env.session).slash_commands()]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/model", ParsedCommand("model", "")),
        ("/model fake/fake-model", ParsedCommand("model", "fake/fake-model")),
        ("/compact keep the plan", ParsedCommand("compact", "keep the plan")),
        ("/exit", None),
        ("/nosuchcmd", None),
        (" /model", None),
        ("/modelx", None),
        ("/model\tx", None),
        ("tell me about /model", None),
        ("/skill:pdf read it", None),
    ],
)
def test_parse_command_accepts_only_exact_builtin_forms(text: str, parsed: ParsedCommand | None) -> None:
    assert parse_command(text) == parsed


async def test_unknown_words_are_not_executed(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    registry = CommandRegistry(env.session)
    assert await registry.execute(api, "/exit") is False
    assert await registry.execute(api, "/nosuchcmd") is False
    assert api.events == [] and api.selector is None
    assert await registry.execute(api, "/quit") is True
    assert api.quit_called


def test_autocomplete_filter_and_argument_completion(tmp_path: Path) -> None:
    registry = CommandRegistry(make_env(tmp_path).session)
    provider = AutocompleteProvider(registry.slash_commands, argument_completer=registry.complete_argument)
    menu = provider.suggest("/", 1)
    assert menu is not None and len(menu.items) == 26
    assert menu.items[0].label == "settings"
    filtered = provider.suggest("/mo", 3)
    assert filtered is not None
    assert [i.label for i in filtered.items][:3] == ["model", "scoped-models", "import"]
    args = provider.suggest("/model f", 8)
    assert args is not None
    assert sorted((i.label, i.description, i.insert) for i in args.items) == [
        ("fake-claude", "fakea", "fakea/fake-claude"),
        ("fake-model", "fake", "fake/fake-model"),
    ]
    levels = registry.complete_argument("thinking", "")
    available = registry.session.available_thinking_levels()
    assert levels is not None and [i.value for i in levels] == available
    assert available[:5] == ["off", "minimal", "low", "medium", "high"]
    assert registry.complete_argument("thinking", "hi") is not None
    assert registry.complete_argument("session", "") is None
