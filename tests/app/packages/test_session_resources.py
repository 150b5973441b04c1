"""What configured packages contribute to a session (`package_resources`, and through it `load_resources`)."""

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pi.app.packages.session_resources import package_resources
from pi.app.resources import ResourceOptions, load_resources
from tests.app.packages.conftest import PackageWorld, write
from tests.app.packages.index_server import SimpleIndex, build_wheel


def make_package(root: Path) -> Path:
    """A local package: two extensions, a skill, a prompt template and a theme (conventional dirs)."""
    write(root / "extensions" / "a.py", "def setup(pi): pass\n")
    write(root / "extensions" / "b.py", "def setup(pi): pass\n")
    write(root / "extensions" / "_helper.py", "")
    write(root / "skills" / "pkg-skill" / "SKILL.md", "---\nname: pkg-skill\ndescription: Packaged skill\n---\nBody\n")
    write(root / "prompts" / "pkg-hello.md", "---\ndescription: Say hello\n---\nHello $1 from the package\n")
    write(root / "themes" / "pkg-theme.json", '{"name": "pkg-theme"}')
    return root


def _settings(path: Path, packages: list[object]) -> None:
    write(path, json.dumps({"packages": packages}))


def test_nothing_configured_imports_no_install_machinery(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path\n"
        "from pi.app.packages.session_resources import package_resources\n"
        "w = []\n"
        f"r = package_resources(Path({str(tmp_path)!r}), Path({str(tmp_path)!r}), project_trusted=True, warnings=w)\n"
        "heavy = [m for m in ('pi.app.packages.install', 'pi.app.packages.resolve', 'asyncio', 'pip') "
        "if m in sys.modules]\n"
        "print(heavy, r.extensions, r.skills, w)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[] [] [] []"


def test_local_package_resources_with_filters(world: PackageWorld) -> None:
    """Check 28: `extensions: []` loads no extension but keeps skills; `!extensions/b.py` excludes only b."""
    pkg = make_package(world.cwd / "pkg")
    _settings(world.agent_dir / "settings.json", [{"source": str(pkg), "extensions": []}])
    warnings: list[str] = []
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings)
    assert warnings == []
    assert found.extensions == []
    assert found.skills == [pkg / "skills" / "pkg-skill"]
    assert found.prompts == [pkg / "prompts" / "pkg-hello.md"]
    assert found.themes == [pkg / "themes" / "pkg-theme.json"]
    _settings(world.agent_dir / "settings.json", [{"source": str(pkg), "extensions": ["!extensions/b.py"]}])
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings)
    assert found.extensions == [pkg / "extensions" / "a.py"]
    assert found.owners == {pkg / "extensions" / "a.py": str(pkg)}
    _settings(
        world.agent_dir / "settings.json", [{"source": str(pkg), "extensions": ["!extensions/*", "+extensions/b.py"]}]
    )
    assert package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[]).extensions == [
        pkg / "extensions" / "b.py"
    ]
    _settings(world.agent_dir / "settings.json", [{"source": str(pkg), "extensions": ["-extensions/a.py", "*.py"]}])
    assert package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[]).extensions == [
        pkg / "extensions" / "b.py"
    ]


def test_user_and_project_precedence(world: PackageWorld) -> None:
    """Check 29: the project entry replaces the user one; `autoload: false` is a delta over the user entry."""
    pkg = make_package(world.cwd / "pkg")
    _settings(world.agent_dir / "settings.json", [{"source": str(pkg), "skills": []}])
    _settings(world.cwd / ".pi" / "settings.json", [{"source": "../pkg", "prompts": []}])
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert found.skills == [pkg / "skills" / "pkg-skill"] and found.prompts == []
    assert found.extensions == [pkg / "extensions" / "a.py", pkg / "extensions" / "b.py"]
    delta = {"source": "../pkg", "autoload": False, "extensions": ["-extensions/a.py"]}
    _settings(world.cwd / ".pi" / "settings.json", [delta])
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert found.extensions == [pkg / "extensions" / "b.py"]
    assert found.skills == [] and found.prompts == [pkg / "prompts" / "pkg-hello.md"]


def test_project_packages_need_trust(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    _settings(world.cwd / ".pi" / "settings.json", ["../pkg"])
    untrusted = package_resources(world.agent_dir, world.cwd, project_trusted=False, warnings=[])
    assert untrusted.prompts == [] and untrusted.extensions == []
    trusted = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[])
    assert trusted.prompts == [pkg / "prompts" / "pkg-hello.md"]


def test_missing_local_package_and_bad_entry_are_warnings(world: PackageWorld) -> None:
    _settings(world.agent_dir / "settings.json", ["./gone", {"source": 3}, "npm:left-pad"])
    warnings: list[str] = []
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings)
    assert found.extensions == []
    assert f"Package directory does not exist: {world.agent_dir / 'gone'}" in warnings
    assert any("npm packages need Node.js and are not supported" in w for w in warnings)
    assert any('"source" string' in w for w in warnings)


def test_load_resources_adds_package_skills_prompts_and_themes(world: PackageWorld) -> None:
    pkg = make_package(world.cwd / "pkg")
    _settings(world.agent_dir / "settings.json", [str(pkg)])
    resources = load_resources(world.cwd, world.agent_dir, ResourceOptions())
    assert [s.name for s in resources.skills] == ["pkg-skill"]
    assert resources.skills[0].source == "package"
    assert [t.name for t in resources.templates] == ["pkg-hello"]
    assert resources.themes == [pkg / "themes" / "pkg-theme.json"]
    assert resources.packages is not None and resources.packages.extensions
    # Turning skills and templates off also turns off the packaged ones.
    off = load_resources(world.cwd, world.agent_dir, ResourceOptions(no_skills=True, no_prompt_templates=True))
    assert off.skills == [] and off.templates == []
    # The user's own template of the same name wins over the package's.
    write(world.agent_dir / "prompts" / "pkg-hello.md", "mine")
    mine = load_resources(world.cwd, world.agent_dir, ResourceOptions())
    assert [t.content for t in mine.templates] == ["mine"]


def _unpack(target: Path, wheel: bytes) -> None:
    """What `pip install --target` leaves behind, for tests that do not need pip itself."""
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        archive.extractall(target)


def test_pypi_entry_points_site_dirs_and_module_clashes(world: PackageWorld) -> None:
    """Installed pypi packages: entry-point extensions, import dirs, and a clash of top-level modules reported."""
    for name in ("pi-one", "pi-two"):
        module = name.replace("-", "_")
        files = {
            f"{module}/__init__.py": "",
            f"{module}/ext.py": "def setup(pi): pass\n",
            f"{module}/pi.toml": 'prompts = ["prompts/*.md"]\n',
            f"{module}/prompts/{name}.md": f"prompt of {name}",
            "sharedhelper/__init__.py": f"WHO = {name!r}\n",
        }
        entry_points = f"[pi.packages]\n{module} = {module}\n[pi.extensions]\nmain = {module}.ext:setup\n"
        _, wheel = build_wheel(name, "1.0.0", files, entry_points)
        _unpack(world.agent_dir / "pypi" / name, wheel)
    _settings(world.agent_dir / "settings.json", ["pypi:pi-one", {"source": "pypi:pi-two==1.0.0"}])
    warnings: list[str] = []
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings, offline=True)
    assert [e.label for e in found.entry_points] == ["entrypoint:pi-one:main", "entrypoint:pi-two:main"]
    assert found.entry_points[0].entry_point.value == "pi_one.ext:setup"
    assert found.site_dirs == [world.agent_dir / "pypi" / "pi-one", world.agent_dir / "pypi" / "pi-two"]
    assert found.prompts == [
        world.agent_dir / "pypi" / n / n.replace("-", "_") / "prompts" / f"{n}.md" for n in ("pi-one", "pi-two")
    ]
    assert warnings == [
        'Packages pypi:pi-one and pypi:pi-two==1.0.0 both provide the Python module "sharedhelper"; '
        "only one copy can be imported (the first one found, from pypi:pi-one)"
    ]
    filtered: list[object] = [{"source": "pypi:pi-one", "extensions": ["!entrypoint:*"]}]
    _settings(world.agent_dir / "settings.json", filtered)
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=[], offline=True)
    assert found.entry_points == [] and found.site_dirs == []


def test_missing_pypi_package_offline_is_skipped_with_a_warning(world: PackageWorld) -> None:
    _settings(world.agent_dir / "settings.json", ["pypi:pi-absent"])
    warnings: list[str] = []
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings, offline=True)
    assert found.prompts == []
    assert warnings == ["Package pypi:pi-absent is not installed (offline mode)"]


_LOAD_PACKAGE_EXTENSIONS = """
import sys
from pathlib import Path
from pi.app.packages.session_resources import package_resources
found = package_resources(Path(sys.argv[1]), Path(sys.argv[2]), project_trusted=True, warnings=[], offline=True)
found.activate_site_dirs()
assert sys.path[-1] == str(found.site_dirs[-1])
for point in found.entry_points:
    print(point.label, point.entry_point.load()(None))
"""


@pytest.mark.timeout(240)
def test_missing_package_is_installed_at_start_and_its_extension_imports_its_own_dependency(
    world: PackageWorld, index: SimpleIndex
) -> None:
    helper = {"pi_demo_helper/__init__.py": 'GREETING = "hello from the helper"\n'}
    index.add("pi-demo-helper", *build_wheel("pi-demo-helper", "1.0", helper))
    files = {
        "pi_demo/__init__.py": "",
        "pi_demo/ext.py": "from pi_demo_helper import GREETING\n\ndef setup(pi):\n    return GREETING\n",
    }
    wheel = build_wheel("pi-demo", "1.0.0", files, "[pi.extensions]\nmain = pi_demo.ext:setup\n", ("pi-demo-helper",))
    index.add("pi-demo", *wheel)
    _settings(world.agent_dir / "settings.json", ["pypi:pi-demo", "pypi:pi-absent"])
    warnings: list[str] = []
    found = package_resources(world.agent_dir, world.cwd, project_trusted=True, warnings=warnings)
    assert [e.label for e in found.entry_points] == ["entrypoint:pi-demo:main"]
    assert len(warnings) == 1 and warnings[0].startswith("Failed to install package pypi:pi-absent: pip failed")
    script = [sys.executable, "-c", _LOAD_PACKAGE_EXTENSIONS, str(world.agent_dir), str(world.cwd)]
    done = subprocess.run(script, capture_output=True, text=True, timeout=120)
    assert done.stdout == "entrypoint:pi-demo:main hello from the helper\n", done.stderr


def test_package_theme_is_chosen_by_name_in_the_interactive_ui(world: PackageWorld) -> None:
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.tui.fake_terminal import FakeTerminal
    from pi.tui.theme import OPTIONAL_TOKENS, TOKENS

    pkg = make_package(world.cwd / "pkg")
    colors = {token: "#336699" for token in TOKENS if token not in OPTIONAL_TOKENS}
    write(pkg / "themes" / "pkg-theme.json", json.dumps({"name": "pkg-theme", "colors": colors}))
    _settings(world.agent_dir / "settings.json", [str(pkg)])
    resources = load_resources(world.cwd, world.agent_dir, ResourceOptions())
    context = InteractiveContext(agent_dir=world.agent_dir, cwd=world.cwd, theme_name="pkg-theme")
    theme = resolve_theme(context, None, FakeTerminal(), resources.themes)
    assert theme.name == "pkg-theme" and context.startup_warnings == []
    missing = InteractiveContext(agent_dir=world.agent_dir, cwd=world.cwd, theme_name="pkg-theme")
    resolve_theme(missing, None, FakeTerminal(), [])
    assert missing.startup_warnings == ['Theme "pkg-theme" not found (built-in themes: dark, light, system)']


def test_a_theme_switched_off_in_settings_is_neither_offered_nor_found(world: PackageWorld) -> None:
    """`pi config` writes `-themes/<file>` into the settings' `themes` list: the UI then neither lists
    that theme nor loads it by name; `+themes/<file>` brings it back."""
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.theme_files import offered_names
    from pi.app.resources import SettingsScope, offered_themes
    from pi.tui.fake_terminal import FakeTerminal
    from pi.tui.theme import OPTIONAL_TOKENS, TOKENS

    colors = {token: "#336699" for token in TOKENS if token not in OPTIONAL_TOKENS}
    for name in ("mine", "other"):
        write(world.agent_dir / "themes" / f"{name}.json", json.dumps({"name": name, "colors": colors}))

    def offered(switches: list[str]) -> list[Path]:
        scope = SettingsScope.of(world.agent_dir, {"themes": switches})
        resources = load_resources(world.cwd, world.agent_dir, ResourceOptions(settings_scopes=[scope]))
        return offered_themes(resources, world.cwd, world.agent_dir)

    switched_off = offered(["-themes/mine.json"])
    assert offered_names(switched_off) == ["dark", "light", "system", "other"]
    context = InteractiveContext(agent_dir=world.agent_dir, cwd=world.cwd, theme_name="mine")
    assert resolve_theme(context, None, FakeTerminal(), switched_off).name != "mine"
    assert context.startup_warnings == ['Theme "mine" not found (built-in themes: dark, light, system)']

    switched_on = offered(["-themes/mine.json", "+themes/mine.json"])
    assert offered_names(switched_on) == ["dark", "light", "system", "mine", "other"]
    context = InteractiveContext(agent_dir=world.agent_dir, cwd=world.cwd, theme_name="mine")
    assert resolve_theme(context, None, FakeTerminal(), switched_on).name == "mine"
    assert context.startup_warnings == []
