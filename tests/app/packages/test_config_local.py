"""`pi config` lists the scopes' own resources (directories and settings paths), and its switches take
effect in what pi loads: skills and templates through `load_resources`, extensions through discovery."""

import json
from pathlib import Path
from typing import Any

import pytest

from pi.app.extensions.discovery import DiscoveryOptions, discover_extensions
from pi.app.packages.config_items import ConfigItem, ConfigModel
from pi.app.resources import ResourceOptions, SettingsScope, load_resources
from tests.app.packages.conftest import PackageWorld, write

SKILL = "---\nname: {name}\ndescription: The {name} skill\n---\nBody\n"


def _settings(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _rows(model: ConfigModel, scope: str) -> list[tuple[str, str, str, bool]]:
    return [(r.group, r.kind, r.path, r.enabled) for r in model.items(scope) if r.group.startswith(("User", "Proj"))]  # type: ignore[arg-type]


def _row(model: ConfigModel, scope: str, path: str) -> ConfigItem:
    (item,) = [i for i in model.items(scope) if i.path == path]  # type: ignore[arg-type]
    return item


def _loaded(world: PackageWorld) -> tuple[list[str], list[str]]:
    """(skill names, template names) pi loads with the settings as they are on disk."""
    user = _settings(world.agent_dir / "settings.json")
    project_file = world.cwd / ".pi" / "settings.json"
    project = _settings(project_file) if project_file.exists() else {}
    scopes = [SettingsScope.of(world.agent_dir, user), SettingsScope.of(world.cwd / ".pi", project)]
    options = ResourceOptions(settings_scopes=scopes, no_context_files=True, load_packages=False)
    resources = load_resources(world.cwd, world.agent_dir, options)
    return [s.name for s in resources.skills], [t.name for t in resources.templates]


def _extensions(world: PackageWorld) -> list[str]:
    user = _settings(world.agent_dir / "settings.json")
    options = DiscoveryOptions(
        cwd=world.cwd,
        agent_dir=world.agent_dir,
        project_trusted=True,
        user_entries=user.get("extensions", []),
        entry_points=False,
        load_builtins=False,
    )
    return [Path(s.path).name for s in discover_extensions(options).enabled()]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("HOME", str(path))
    return path


def test_user_scope_lists_every_own_resource_and_switches_take_effect(world: PackageWorld, home: Path) -> None:
    agent = world.agent_dir
    write(agent / "extensions" / "mine.py", "def setup(pi): pass\n")
    write(world.cwd / "shared" / "listed.py", "def setup(pi): pass\n")
    write(agent / "skills" / "review" / "SKILL.md", SKILL.format(name="review"))
    write(home / ".agents" / "skills" / "agents-skill" / "SKILL.md", SKILL.format(name="agents-skill"))
    write(world.cwd / "more-skills" / "extra" / "SKILL.md", SKILL.format(name="extra"))
    write(agent / "prompts" / "hello.md", "Hello\n")
    write(world.cwd / "more-prompts" / "bye.md", "Bye\n")
    write(agent / "themes" / "night.json", "{}\n")
    listed = str(world.cwd / "shared" / "listed.py")
    settings = {
        "extensions": [listed],
        "skills": ["../../../project/more-skills"],
        "prompts": [str(world.cwd / "more-prompts")],
        "theme": "dark",
    }
    write(agent / "settings.json", json.dumps(settings))
    model = ConfigModel(agent, world.cwd, project_trusted=True)
    assert _rows(model, "user") == [
        ("User extensions", "extensions", "extensions/mine.py", True),
        ("User extensions", "extensions", listed, True),
        ("User skills", "skills", "skills/review", True),
        ("User skills", "skills", str(home / ".agents" / "skills" / "agents-skill"), True),
        ("User skills", "skills", str(world.cwd / "more-skills" / "extra"), True),
        ("User prompts", "prompts", "prompts/hello.md", True),
        ("User prompts", "prompts", str(world.cwd / "more-prompts" / "bye.md"), True),
        ("User themes", "themes", "themes/night.json", True),
    ]
    assert _loaded(world) == (["review", "agents-skill", "extra"], ["hello", "bye"])
    assert _extensions(world) == ["listed.py", "mine.py"]

    model.set_enabled("user", _row(model, "user", "skills/review"), False)
    model.set_enabled("user", _row(model, "user", str(world.cwd / "more-prompts" / "bye.md")), False)
    model.set_enabled("user", _row(model, "user", listed), False)
    saved = _settings(agent / "settings.json")
    assert saved["skills"] == ["../../../project/more-skills", "-skills/review"]
    assert saved["prompts"] == [str(world.cwd / "more-prompts"), f"-{world.cwd / 'more-prompts' / 'bye.md'}"]
    assert saved["extensions"] == [listed, f"-{listed}"] and saved["theme"] == "dark"
    assert _loaded(world) == (["agents-skill", "extra"], ["hello"])
    assert _extensions(world) == ["mine.py"]
    assert not _row(model, "user", "skills/review").enabled

    model.set_enabled("user", _row(model, "user", "skills/review"), True)
    assert _settings(agent / "settings.json")["skills"] == ["../../../project/more-skills"]
    assert _loaded(world)[0] == ["review", "agents-skill", "extra"]


def test_project_scope_lists_the_project_resources(world: PackageWorld, home: Path) -> None:
    write(world.agent_dir / "settings.json", "{}")
    write(world.cwd / ".pi" / "skills" / "local" / "SKILL.md", SKILL.format(name="local"))
    write(world.cwd / ".agents" / "skills" / "team" / "SKILL.md", SKILL.format(name="team"))
    write(world.cwd / ".pi" / "prompts" / "fix.md", "Fix it\n")
    write(world.cwd / ".pi" / "extensions" / "proj.py", "def setup(pi): pass\n")
    write(world.cwd / ".pi" / "themes" / "day.json", "{}\n")
    write(world.cwd / ".pi" / "settings.json", "{}")
    model = ConfigModel(world.agent_dir, world.cwd, project_trusted=True)
    team = str(world.cwd / ".agents" / "skills" / "team")  # outside `.pi`: named by its absolute path
    assert _rows(model, "project") == [
        ("Project extensions", "extensions", "extensions/proj.py", True),
        ("Project skills", "skills", "skills/local", True),
        ("Project skills", "skills", team, True),
        ("Project prompts", "prompts", "prompts/fix.md", True),
        ("Project themes", "themes", "themes/day.json", True),
    ]
    assert _rows(model, "user") == []
    model.set_enabled("project", _row(model, "project", team), False)
    model.set_enabled("project", _row(model, "project", "prompts/fix.md"), False)
    saved = _settings(world.cwd / ".pi" / "settings.json")
    assert saved == {"skills": [f"-{team}"], "prompts": ["-prompts/fix.md"]}
    assert _loaded(world) == (["local"], [])
