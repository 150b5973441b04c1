import json
from pathlib import Path

import pytest

from pi.app.packages.cli import run_package_command
from pi.app.packages.install import PackageInstallError, PackageStore, ensure_install_root, host_dependency_warning
from pi.app.packages.resolve import resolve_packages
from pi.app.packages.sources import parse_source
from tests.app.packages.conftest import PackageWorld, write


def _make_pkg(root: Path) -> Path:
    write(root / "pi.toml", 'prompts = ["prompts/*.md"]\nextensions = ["extensions/*.py"]\n')
    write(root / "prompts" / "greet.md", "---\ndescription: greet\n---\nSay hi")
    write(root / "extensions" / "a.py", "def setup(pi): pass\n")
    write(root / "extensions" / "b.py", "def setup(pi): pass\n")
    write(root / "skills" / "s" / "SKILL.md", "---\nname: s\ndescription: d\n---\n")
    return root


def _settings(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


async def test_install_local_package_writes_relative_settings_entry(world: PackageWorld) -> None:
    _make_pkg(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", '{"theme": "dark"}')
    result = await world.run("install", "./pkg")
    assert (result.code, result.out, result.err) == (0, "Installing ./pkg...\nInstalled ./pkg\n", "")
    settings = _settings(world.agent_dir / "settings.json")
    assert settings == {"theme": "dark", "packages": ["../../../project/pkg"]}
    # Installing again keeps one entry.
    assert (await world.run("install", str(world.cwd / "pkg"))).code == 0
    assert _settings(world.agent_dir / "settings.json")["packages"] == ["../../../project/pkg"]
    warnings: list[str] = []
    (package,) = resolve_packages(PackageStore(world.agent_dir, world.cwd, True), warnings)
    assert warnings == [] and package.installed
    assert package.selected["prompts"] == [str(world.cwd / "pkg" / "prompts" / "greet.md")]
    assert package.site_dirs == []


async def test_install_missing_directory_fails(world: PackageWorld) -> None:
    result = await world.run("install", "./nowhere")
    assert result.code == 1
    assert result.err == f"Error: Package directory does not exist: {world.cwd / 'nowhere'}\n"
    assert not (world.agent_dir / "settings.json").exists()


async def test_filters_select_per_type(world: PackageWorld) -> None:
    pkg = _make_pkg(world.cwd / "pkg")
    entries = [{"source": str(pkg), "extensions": []}]
    write(world.agent_dir / "settings.json", json.dumps({"packages": entries}))
    store = PackageStore(world.agent_dir, world.cwd, True)
    (package,) = resolve_packages(store, [])
    assert package.selected["extensions"] == []
    assert package.selected["skills"] == [str(pkg / "skills" / "s")]
    entries = [{"source": str(pkg), "extensions": ["!extensions/b.py"]}]
    write(world.agent_dir / "settings.json", json.dumps({"packages": entries}))
    (package,) = resolve_packages(store, [])
    assert package.selected["extensions"] == [str(pkg / "extensions" / "a.py")]


async def test_project_entry_wins_and_autoload_false_is_a_delta(world: PackageWorld) -> None:
    pkg = _make_pkg(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": [str(pkg)]}))
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": [{"source": "../pkg", "prompts": []}]}))
    store = PackageStore(world.agent_dir, world.cwd, True)
    (package,) = resolve_packages(store, [])
    assert package.scope == "project" and package.selected["prompts"] == []
    delta = {"source": "../pkg", "autoload": False, "extensions": ["-extensions/a.py"]}
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": [delta]}))
    (package,) = resolve_packages(store, [])
    assert package.scope == "user"
    assert package.selected["extensions"] == [str(pkg / "extensions" / "b.py")]
    assert len(package.selected["prompts"]) == 1
    # Untrusted: project settings are not read at all.
    (package,) = resolve_packages(PackageStore(world.agent_dir, world.cwd, False), [])
    assert len(package.selected["extensions"]) == 2


async def test_remove_unknown_package_and_untrusted_project(world: PackageWorld) -> None:
    result = await world.run("remove", "pypi:nothing")
    assert (result.code, result.err) == (1, "No matching package found for pypi:nothing\n")
    _make_pkg(world.cwd / "pkg")
    write(world.cwd / ".pi" / "settings.json", "{}")
    world.trusted = False
    result = await world.run("install", "-l", "./pkg")
    assert result.code == 1
    assert result.err == "Error: Project is not trusted. Use --approve to modify local package config.\n"
    assert _settings(world.cwd / ".pi" / "settings.json") == {}
    assert (await world.run("install", "-l", "./pkg", "--approve")).code == 0
    assert _settings(world.cwd / ".pi" / "settings.json") == {"packages": ["../pkg"]}


async def test_remove_and_uninstall(world: PackageWorld) -> None:
    pkg = _make_pkg(world.cwd / "pkg")
    await world.run("install", "./pkg")
    await world.run("install", "-l", "./pkg")
    result = await world.run("uninstall", str(pkg))
    assert (result.code, result.out) == (0, f"Removed {pkg}\n")
    assert _settings(world.agent_dir / "settings.json")["packages"] == []
    assert pkg.is_dir()  # local packages are referenced, never deleted
    assert (await world.run("remove", "./pkg", "-l")).out == "Removed ./pkg\n"
    assert _settings(world.cwd / ".pi" / "settings.json")["packages"] == []


async def test_list_sections(world: PackageWorld) -> None:
    assert (await world.run("list")).out == "No packages installed.\n"
    pkg = _make_pkg(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": ["pypi:pi-demo"]}))
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": [{"source": "../pkg", "skills": []}]}))
    result = await world.run("list")
    assert result.out == (
        "User packages:\n"
        "  pypi:pi-demo\n"
        f"    {world.agent_dir / 'pypi' / 'pi-demo'}\n"
        "\n"
        "Project packages:\n"
        "  ../pkg (filtered)\n"
        f"    {pkg}\n"
    )


async def test_usage_errors(world: PackageWorld) -> None:
    result = await world.run("install", "--bogus", "x")
    assert result.code == 1 and result.err.startswith('Unknown option --bogus for "install".\nUsage: pi install')
    result = await world.run("remove")
    assert result.code == 1 and result.err.startswith("Missing remove source.\n")
    result = await world.run("update", "--bogus")
    assert result.err.startswith('Unknown option --bogus for "update".\nUsage: pi update')
    result = await world.run("list", "extra")
    assert result.err.startswith('Unknown option extra for "list".')
    result = await world.run("install", "npm:left-pad")
    assert result.err == "Error: npm packages need Node.js and are not supported; use pypi: or git: sources\n"


async def test_update_of_local_packages_and_offline(world: PackageWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    _make_pkg(world.cwd / "pkg")
    await world.run("install", "./pkg")
    assert (await world.run("update", "--extensions")).out == "Packages are already up to date\n"
    assert (await world.run("update", "./pkg")).out == "./pkg is already up to date\n"
    result = await world.run("update", "pypi:absent")
    assert (result.code, result.err) == (1, "No matching package found for pypi:absent\n")
    monkeypatch.setenv("PI_OFFLINE", "1")
    assert (await world.run("update", "--extensions")).out == "Skipped package updates (offline mode)\n"
    result = await world.run("install", "pypi:pi-demo")
    assert result.code == 1 and "offline mode" in result.err


def test_project_storage_needs_trust_and_paths_stay_inside_root(tmp_path: Path) -> None:
    store = PackageStore(tmp_path / "agent", tmp_path / "cwd", project_trusted=False)
    with pytest.raises(PackageInstallError) as caught:
        store.install_path(parse_source("pypi:x", base_dir=tmp_path), "project")
    assert str(caught.value) == "Project is not trusted; refusing to access project package storage"
    (tmp_path / "agent" / "git").mkdir(parents=True)
    (tmp_path / "agent" / "git" / "evil.com").symlink_to(tmp_path)
    with pytest.raises(PackageInstallError) as caught:
        store.install_path(parse_source("git:evil.com/a/b", base_dir=tmp_path), "user")
    assert str(caught.value) == f"Refusing to use path outside package install root: {tmp_path}/agent/git/evil.com/a/b"
    ensure_install_root(tmp_path / "agent" / "pypi")
    assert (tmp_path / "agent" / "pypi" / ".gitignore").read_text() == "*\n!.gitignore\n"


def test_sync_entry_point(tmp_path: Path) -> None:
    import io

    out, err = io.StringIO(), io.StringIO()
    code = run_package_command(["list"], agent_dir=tmp_path, cwd=tmp_path, project_trusted=True, out=out, err=err)
    assert (code, out.getvalue()) == (0, "No packages installed.\n")


def test_host_distribution_as_dependency_is_warned_about(tmp_path: Path) -> None:
    store = PackageStore(tmp_path, tmp_path, True)
    info = tmp_path / "pypi" / "pi-x" / "pi_x-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: pi_x\nVersion: 1.0\nRequires-Dist: Pi_Coding_Agent>=0.1\n")
    source = parse_source("pypi:pi-x", base_dir=tmp_path)
    assert host_dependency_warning(store, source, "user") == (
        "Host-provided extension packages must not be declared as dependencies: pi-coding-agent"
    )
    write(info / "METADATA", "Metadata-Version: 2.1\nName: pi_x\nVersion: 1.0\nRequires-Dist: httpx\n")
    assert host_dependency_warning(store, source, "user") is None
