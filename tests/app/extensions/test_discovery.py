"""Which extensions are found, in which order, and which are switched off (extension spec §1.2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pi.app.extensions.discovery import DiscoveryOptions, discover_extensions
from pi.app.extensions.events import SessionStartEvent

from .conftest import load_sources, write

RECORDING = """
def setup(pi):
    @pi.on("session_start")
    def started(event, ctx):
        ctx.record("{name}")
"""


def ext(path: Path, name: str) -> Path:
    return write(path, RECORDING.format(name=name))


def layout(home: dict[str, Path]) -> DiscoveryOptions:
    agent, cwd = home["agent"], home["cwd"]
    ext(cwd / "cli.py", "cli")
    ext(cwd / ".pi" / "x.py", "x")
    ext(cwd / ".pi" / "extensions" / "p.py", "p")
    ext(agent / "mine" / "us.py", "user-setting")
    ext(agent / "extensions" / "u.py", "u")
    ext(agent / "extensions" / "pkgdir" / "__init__.py", "pkgdir")
    write(agent / "extensions" / "mdir" / "pi.toml", 'extensions = ["src/m.py"]\n')
    ext(agent / "extensions" / "mdir" / "src" / "m.py", "mdir")
    ext(agent / "extensions" / "_helper.py", "helper")
    return DiscoveryOptions(
        cwd=cwd,
        agent_dir=agent,
        project_trusted=True,
        cli_paths=[str(cwd / "cli.py")],
        user_entries=["mine/us.py"],
        project_entries=["./x.py"],
        entry_points=False,
    )


async def test_load_order_follows_the_ranks_table(home: dict[str, Path]) -> None:
    discovered = discover_extensions(layout(home))
    loaded = await load_sources(discovered.enabled(), home["cwd"])
    await loaded.runner.emit(SessionStartEvent(reason="startup"))
    assert loaded.recorder.seen == ["cli", "x", "p", "user-setting", "mdir", "pkgdir", "u"]
    assert not loaded.result.diagnostics


async def test_untrusted_project_extensions_are_not_found(home: dict[str, Path]) -> None:
    options = layout(home)
    options.project_trusted = False
    paths = [s.path for s in discover_extensions(options).enabled()]
    assert not any("/.pi/" in p for p in paths)
    assert len(paths) == 5


def test_no_extensions_keeps_only_cli_entries(home: dict[str, Path]) -> None:
    options = layout(home)
    options.no_extensions = True
    options.builtins = {"mcp": lambda pi: None}
    assert [s.path for s in discover_extensions(options).enabled()] == [str(home["cwd"] / "cli.py")]
    options.cli_paths = [*options.cli_paths, "builtin:mcp"]
    assert [s.path for s in discover_extensions(options).enabled()][-1] == "builtin:mcp"


def test_same_file_twice_loads_once_first_wins(home: dict[str, Path]) -> None:
    agent = home["agent"]
    ext(agent / "extensions" / "u.py", "u")
    options = DiscoveryOptions(
        cwd=home["cwd"],
        agent_dir=agent,
        project_trusted=True,
        cli_paths=[str(agent / "extensions" / "u.py")],
        user_entries=["extensions/u.py"],
        entry_points=False,
    )
    sources = discover_extensions(options).enabled()
    assert len(sources) == 1
    assert sources[0].scope == "temporary"


def test_missing_cli_path_is_an_error_with_the_resolved_path(home: dict[str, Path]) -> None:
    options = DiscoveryOptions(
        cwd=home["cwd"], agent_dir=home["agent"], project_trusted=False, cli_paths=["nope.py"], entry_points=False
    )
    result = discover_extensions(options)
    resolved = home["cwd"] / "nope.py"
    assert [d.message for d in result.diagnostics] == [
        f'Failed to load extension "nope.py": Extension path does not exist: {resolved}'
    ]
    assert result.diagnostics[0].level == "error"


def test_typescript_files_are_skipped_with_a_warning(home: dict[str, Path]) -> None:
    write(home["agent"] / "extensions" / "old.ts", "export default () => {}\n")
    write(home["agent"] / "extensions" / "tsdir" / "index.js", "module.exports = () => {}\n")
    options = DiscoveryOptions(cwd=home["cwd"], agent_dir=home["agent"], project_trusted=False, entry_points=False)
    result = discover_extensions(options)
    assert result.sources == []
    assert sorted(d.render() for d in result.diagnostics) == [
        f"Warning: TypeScript/JavaScript extensions are not supported: {home['agent'] / 'extensions' / 'old.ts'}",
        "Warning: TypeScript/JavaScript extensions are not supported: "
        f"{home['agent'] / 'extensions' / 'tsdir' / 'index.js'}",
    ]


def test_pyproject_manifest_and_fallback_to_package(home: dict[str, Path]) -> None:
    root = home["agent"] / "extensions"
    write(root / "a" / "pyproject.toml", '[tool.pi]\nextensions = ["one.py", "two"]\n')
    ext(root / "a" / "one.py", "one")
    ext(root / "a" / "two" / "__init__.py", "two")
    write(root / "b" / "pi.toml", 'extensions = ["missing.py"]\n')
    ext(root / "b" / "__init__.py", "b")
    write(root / "c" / "README.md", "not an extension\n")
    options = DiscoveryOptions(cwd=home["cwd"], agent_dir=home["agent"], project_trusted=False, entry_points=False)
    found = [(s.path, s.kind) for s in discover_extensions(options).enabled()]
    assert found == [
        (str(root / "a" / "one.py"), "file"),
        (str(root / "a" / "two"), "package"),
        (str(root / "b"), "package"),
    ]


def test_settings_patterns_switch_entries(home: dict[str, Path]) -> None:
    root = home["agent"] / "extensions"
    for name in ("a", "b", "c"):
        ext(root / f"{name}.py", name)
    ext(home["agent"] / "extra" / "d.py", "d")
    options = DiscoveryOptions(
        cwd=home["cwd"],
        agent_dir=home["agent"],
        project_trusted=False,
        entry_points=False,
        user_entries=["!extensions/b.py", "-extensions/c.py", "+extra/d.py", "-builtin:mcp"],
        builtins={"mcp": lambda pi: None, "codemode": lambda pi: None},
    )
    result = discover_extensions(options)
    enabled = [Path(s.path).name if s.kind != "builtin" else s.path for s in result.enabled()]
    assert enabled == ["d.py", "a.py", "builtin:codemode"]
    disabled = sorted(Path(s.path).name for s in result.sources if not s.enabled)
    assert disabled == ["b.py", "builtin:mcp", "c.py"]


def test_project_pattern_overrides_user_pattern_for_builtins(home: dict[str, Path]) -> None:
    options = DiscoveryOptions(
        cwd=home["cwd"],
        agent_dir=home["agent"],
        project_trusted=True,
        entry_points=False,
        user_entries=["-builtin:mcp"],
        project_entries=["+builtin:mcp"],
        builtins={"mcp": lambda pi: None},
    )
    assert [s.path for s in discover_extensions(options).enabled()] == ["builtin:mcp"]


def test_absolute_and_home_relative_settings_entries(home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(home["root"]))
    ext(home["root"] / "tilde.py", "t")
    absolute = ext(home["root"] / "elsewhere" / "abs.py", "a")
    options = DiscoveryOptions(
        cwd=home["cwd"],
        agent_dir=home["agent"],
        project_trusted=False,
        entry_points=False,
        user_entries=["~/tilde.py", str(absolute)],
    )
    assert [Path(s.path).name for s in discover_extensions(options).enabled()] == ["tilde.py", "abs.py"]


async def test_entry_point_extensions_load_after_user_ones(
    home: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = home["root"] / "site"
    write(site / "pi_demo_ext_mod.py", RECORDING.format(name="entry"))
    write(site / "pi_demo-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: pi-demo\nVersion: 1.0\n")
    write(site / "pi_demo-1.0.dist-info" / "entry_points.txt", "[pi.extensions]\ndemo = pi_demo_ext_mod:setup\n")
    monkeypatch.syspath_prepend(str(site))
    ext(home["agent"] / "extensions" / "u.py", "u")
    options = DiscoveryOptions(cwd=home["cwd"], agent_dir=home["agent"], project_trusted=False)
    sources = discover_extensions(options).enabled()
    assert [s.kind for s in sources] == ["file", "entry_point"]
    assert sources[1].path == "pi_demo_ext_mod:setup"
    loaded = await load_sources(sources, home["cwd"])
    await loaded.runner.emit(SessionStartEvent(reason="startup"))
    assert loaded.recorder.seen == ["u", "entry"]
    sys.modules.pop("pi_demo_ext_mod", None)
