"""The "Extension Updates" notice: changelog sections of packages whose version changed since the last start."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pi.app.packages.session_resources import PackageChangelog, PackageResourcePaths, package_resources
from pi.app.packages.update_notice import STATE_FILE, extension_updates_panel, pending_updates, sections_between
from pi.tui.text_width import strip_ansi
from pi.tui.theme import Theme
from tests.app.packages.conftest import PackageWorld, write
from tests.app.packages.index_server import SimpleIndex, build_wheel

CHANGELOG = """# Changelog

## [1.2.0] - 2026-11-01

- Third

## 1.1.0

### Fixed

- Second

## [1.0.0]

- First
"""


def test_sections_between_versions() -> None:
    assert sections_between(CHANGELOG, "1.0.0", "1.1.0") == "## 1.1.0\n\n### Fixed\n\n- Second"
    assert sections_between(CHANGELOG, "1.0.0", "1.2.0").startswith("## [1.2.0] - 2026-11-01\n\n- Third\n\n## 1.1.0")
    assert sections_between(CHANGELOG, "1.2.0", "1.2.0") == ""


def test_first_sight_is_silent_then_an_update_is_announced_once(tmp_path: Path) -> None:
    log = write(tmp_path / "pkg" / "CHANGELOG.md", CHANGELOG)
    first = [PackageChangelog("pypi:pi-demo", "pypi:pi-demo", log, "1.0.0")]
    assert pending_updates(tmp_path, first) is None
    assert json.loads((tmp_path / STATE_FILE).read_text()) == {"pypi:pi-demo": "1.0.0"}
    assert pending_updates(tmp_path, first) is None
    updated = [PackageChangelog("pypi:pi-demo", "pypi:pi-demo", log, "1.1.0")]
    notes = pending_updates(tmp_path, updated)
    assert notes == "**pypi:pi-demo** 1.0.0 → 1.1.0\n\n### 1.1.0\n\n#### Fixed\n\n- Second"
    assert pending_updates(tmp_path, updated) is None
    # A package without a changelog (`changelog-path = ""`) only has its version recorded.
    silent = [PackageChangelog("git:h.io/a/b", "git:h.io/a/b", None, "2.0")]
    assert pending_updates(tmp_path, silent) is None
    assert pending_updates(tmp_path, [PackageChangelog("git:h.io/a/b", "git:h.io/a/b", None, "3.0")]) is None
    assert json.loads((tmp_path / STATE_FILE).read_text())["git:h.io/a/b"] == "3.0"


def test_panel_for_the_interactive_startup(tmp_path: Path) -> None:
    log = write(tmp_path / "CHANGELOG.md", CHANGELOG)
    write(tmp_path / STATE_FILE, json.dumps({"local:/x": "1.1.0"}))
    packages = PackageResourcePaths(changelogs=[PackageChangelog("local:/x", "./x", log, "1.2.0")])
    app = SimpleNamespace(
        session=SimpleNamespace(resources=SimpleNamespace(packages=packages)),
        context=SimpleNamespace(agent_dir=tmp_path),
        theme=Theme.plain(),
    )
    panel = extension_updates_panel(app)
    assert panel is not None
    text = "\n".join(strip_ansi(line) for line in panel.render(80))
    assert "Extension Updates" in text and "./x" in text and "Third" in text and "Second" not in text
    assert extension_updates_panel(app) is None


@pytest.mark.timeout(240)
async def test_notice_after_pi_update_of_a_pypi_package(world: PackageWorld, index: SimpleIndex) -> None:
    def wheel(version: str) -> tuple[str, bytes]:
        files = {
            "pi_demo/__init__.py": "",
            "pi_demo/ext.py": "def setup(pi): pass\n",
            "pi_demo/pi.toml": 'extensions = ["ext.py"]\n',
            "pi_demo/CHANGELOG.md": f"## [{version}]\n\n- Notes for {version}\n\n## [1.0.0]\n\n- First\n",
        }
        return build_wheel("pi-demo", version, files, "[pi.packages]\npi_demo = pi_demo\n")

    index.add("pi-demo", *wheel("1.0.0"))
    assert (await world.run("install", "pypi:pi-demo")).code == 0
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert pending_updates(world.agent_dir, found.changelogs) is None
    index.add("pi-demo", *wheel("1.3.0"))
    assert (await world.run("update", "--extensions")).out == "Updated 1 package:\n  pypi:pi-demo 1.0.0 -> 1.3.0\n"
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert pending_updates(world.agent_dir, found.changelogs) == (
        "**pypi:pi-demo** 1.0.0 → 1.3.0\n\n### [1.3.0]\n\n- Notes for 1.3.0"
    )
