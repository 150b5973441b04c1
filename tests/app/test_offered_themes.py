"""The theme files a session offers are listed once per resource load, and again after a reload."""

from __future__ import annotations

import json
from pathlib import Path

from pi.app.resources import ResourceOptions, load_resources, offered_themes, reload_packages
from pi.tui.theme import OPTIONAL_TOKENS, TOKENS


def _theme(directory: Path, name: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    colors = {token: "#336699" for token in TOKENS if token not in OPTIONAL_TOKENS}
    (directory / f"{name}.json").write_text(json.dumps({"name": name, "colors": colors}))


async def test_theme_files_are_listed_once_per_load_and_again_after_reload(tmp_path: Path) -> None:
    agent_dir, cwd = tmp_path / "agent", tmp_path / "project"
    cwd.mkdir()
    _theme(agent_dir / "themes", "mine")
    resources = load_resources(cwd, agent_dir, ResourceOptions())
    assert [p.name for p in offered_themes(resources, cwd, agent_dir)] == ["mine.json"]

    _theme(cwd / ".pi" / "themes", "project")  # arrives after the load: not looked for until a reload
    assert [p.name for p in offered_themes(resources, cwd, agent_dir)] == ["mine.json"]

    await reload_packages(resources, cwd, agent_dir)
    assert [p.name for p in offered_themes(resources, cwd, agent_dir)] == ["mine.json", "project.json"]
    fresh = load_resources(cwd, agent_dir, ResourceOptions())
    assert [p.name for p in offered_themes(fresh, cwd, agent_dir)] == ["mine.json", "project.json"]
