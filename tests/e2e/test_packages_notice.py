"""The "Extension Updates" notice in the real interactive `pi` (in tmux) after a package's version changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.version import __version__
from tests.support.http_server import ScriptedServer
from tests.tui_e2e.harness import TmuxPi, tmux_available

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    yield srv
    srv.stop()


def _package(root: Path, version: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "notes-demo"\nversion = "{version}"\n\n[tool.pi]\nextensions = ["ext.py"]\n'
    )
    (root / "ext.py").write_text("def setup(pi):\n    pass\n")
    (root / "CHANGELOG.md").write_text(
        "# Changelog\n\n## [1.1.0]\n\n- Adds the shiny command\n\n## [1.0.0]\n\n- First release\n"
    )


def test_extension_updates_notice_after_a_package_update(server: ScriptedServer, tmp_path: Path) -> None:
    if not tmux_available():
        pytest.fail("tmux is needed for the terminal UI tests (.ci/run installs it)")
    package = tmp_path / "notes-demo"
    _package(package, "1.0.0")
    settings = {"lastChangelogVersion": __version__, "packages": [str(package)]}
    first = TmuxPi(server, tmp_path / "first", settings)
    try:
        first.start("--tui-mode", "regular")
        assert "Extension Updates" not in first.wait_for("fake-claude • medium")
    finally:
        first.close()
    state = json.loads((first.agent_dir / "package-changelogs.json").read_text())
    assert state == {f"local:{package}": "1.0.0"}

    _package(package, "1.1.0")
    second = TmuxPi(server, tmp_path / "second", settings)
    (second.agent_dir / "package-changelogs.json").write_text(json.dumps(state))
    try:
        second.start("--tui-mode", "regular")
        second.wait_for("fake-claude • medium")
        text = second.wait_for("Adds the shiny command", history=True)
    finally:
        second.close()
    assert "Extension Updates" in text and "First release" not in text
    assert json.loads((second.agent_dir / "package-changelogs.json").read_text()) == {f"local:{package}": "1.1.0"}
