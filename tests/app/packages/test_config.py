"""`pi config`: the rows per scope, what each switch writes, and the panel on the in-process terminal."""

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi.app.packages.config_items import ConfigItem, ConfigModel, builtin_names
from pi.app.packages.config_ui import run_config_command, run_config_ui
from pi.app.packages.session_resources import package_resources
from pi.tui.fake_terminal import FakeTerminal
from tests.app.packages.conftest import PackageWorld, write
from tests.app.packages.test_session_resources import make_package


def _settings(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _item(model: ConfigModel, scope: str, key_end: str) -> ConfigItem:
    (item,) = [i for i in model.items(scope) if i.key.endswith(key_end)]  # type: ignore[arg-type]
    return item


def test_user_scope_rows_and_package_switches(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    write(world.agent_dir / "extensions" / "mine.py", "def setup(pi): pass\n")
    write(world.agent_dir / "settings.json", json.dumps({"theme": "dark", "packages": [str(pkg)]}))
    model = ConfigModel(world.agent_dir, world.cwd, project_trusted=True)
    rows = model.items("user")
    assert [r.path for r in rows if r.group == "Built-in extensions"] == [f"builtin:{n}" for n in builtin_names()]
    assert "builtin:mcp" in [r.path for r in rows]
    assert [(r.group, r.path) for r in rows if r.group == "User extensions"] == [
        ("User extensions", "extensions/mine.py")
    ]
    assert [(r.kind, r.path, r.enabled) for r in rows if r.identity is not None] == [
        ("extensions", "extensions/a.py", True),
        ("extensions", "extensions/b.py", True),
        ("skills", "skills/pkg-skill", True),
        ("prompts", "prompts/pkg-hello.md", True),
        ("themes", "themes/pkg-theme.json", True),
    ]
    model.set_enabled("user", _item(model, "user", ":extensions:extensions/a.py"), False)
    settings = _settings(world.agent_dir / "settings.json")
    assert settings == {"theme": "dark", "packages": [{"source": str(pkg), "extensions": ["-extensions/a.py"]}]}
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert found.extensions == [pkg / "extensions" / "b.py"]
    assert not _item(model, "user", ":extensions:extensions/a.py").enabled
    model.set_enabled("user", _item(model, "user", ":extensions:extensions/a.py"), True)
    assert _settings(world.agent_dir / "settings.json")["packages"] == [{"source": str(pkg)}]


def test_empty_filter_then_one_resource_switched_on(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": [{"source": str(pkg), "extensions": []}]}))
    model = ConfigModel(world.agent_dir, world.cwd, project_trusted=True)
    model.set_enabled("user", _item(model, "user", ":extensions:extensions/b.py"), True)
    assert _settings(world.agent_dir / "settings.json")["packages"] == [
        {"source": str(pkg), "extensions": ["extensions/b.py"]}
    ]
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert found.extensions == [pkg / "extensions" / "b.py"]


def test_project_scope_writes_an_autoload_false_delta_for_user_packages(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    user_settings = {"packages": [str(pkg)], "extensions": ["-builtin:tool-search"]}
    write(world.agent_dir / "settings.json", json.dumps(user_settings))
    model = ConfigModel(world.agent_dir, world.cwd, project_trusted=True)
    model.set_enabled("project", _item(model, "project", ":skills:skills/pkg-skill"), False)
    assert _settings(world.cwd / ".pi" / "settings.json") == {
        "packages": [{"source": "../pkg", "autoload": False, "skills": ["-skills/pkg-skill"]}]
    }
    assert _settings(world.agent_dir / "settings.json") == user_settings
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert found.skills == [] and found.prompts == [pkg / "prompts" / "pkg-hello.md"]
    # Built-ins: the project entry overrides the user one.
    tool_search = _item(model, "project", "builtin:tool-search")
    assert not tool_search.enabled
    model.set_enabled("project", tool_search, True)
    model.set_enabled("project", _item(model, "project", "builtin:mcp"), False)
    assert _settings(world.cwd / ".pi" / "settings.json")["extensions"] == ["+builtin:tool-search", "-builtin:mcp"]
    model.set_enabled("user", _item(model, "user", "builtin:tool-search"), True)
    assert _settings(world.agent_dir / "settings.json")["extensions"] == []
    assert ConfigModel(world.agent_dir, world.cwd, project_trusted=False).scopes() == ["user"]


def test_untrusted_local_config_and_unknown_options(world: PackageWorld) -> None:
    err = io.StringIO()
    code = run_config_command(["-l"], agent_dir=world.agent_dir, cwd=world.cwd, project_trusted=False, err=err)
    assert (code, err.getvalue()) == (
        1,
        "Error: Project is not trusted. Use --approve to modify local resource config.\n",
    )
    err = io.StringIO()
    code = run_config_command(["--bogus"], agent_dir=world.agent_dir, cwd=world.cwd, project_trusted=True, err=err)
    assert (code, err.getvalue()) == (1, 'Unknown option --bogus for "config".\nUsage: pi config [-l]\n')


async def _until(term: FakeTerminal, condition: Callable[[str], bool]) -> str:
    """Wait (generously) until the visible screen satisfies `condition`; returns it."""
    for _ in range(2000):
        screen = "\n".join(term.display())
        if condition(screen):
            return screen
        await asyncio.sleep(0.005)
    raise AssertionError("screen never matched:\n" + "\n".join(term.display()))


@pytest.mark.timeout(60)
async def test_panel_switches_saves_and_changes_scope(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": [str(pkg)]}))
    write(world.cwd / ".pi" / "settings.json", "{}")
    term = FakeTerminal(100, 30)
    task = asyncio.create_task(
        run_config_ui(world.agent_dir, world.cwd, local=False, project_trusted=True, terminal=term)
    )
    await _until(term, lambda s: "Resource configuration" in s and "builtin:mcp" in s)
    for ch in "a.py":  # search narrows the rows to the package's extension a
        term.feed_bytes(ch)
    screen = await _until(term, lambda s: "builtin:mcp" not in s and "pkg: extensions/a.py" in s)
    assert "enabled" in screen
    term.feed_bytes(" ")
    await _until(term, lambda s: "disabled" in s)
    assert _settings(world.agent_dir / "settings.json")["packages"] == [
        {"source": str(pkg), "extensions": ["-extensions/a.py"]}
    ]
    term.feed_bytes("\t")
    await _until(term, lambda s: "[Project (.pi)]" in s and "builtin:mcp" in s)
    term.feed_bytes("\x1b")
    term.flush_input()
    assert await asyncio.wait_for(task, 30) == 0
