"""`-e <source>` temporary packages: cached under `<agent dir>/tmp/extensions/`, re-checked on each use."""

import hashlib
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.packages.temporary import TemporaryPackageError, is_package_source, resolve_temporary_package
from tests.app.packages.conftest import PackageWorld, write
from tests.app.packages.git_server import git, git_daemon
from tests.app.packages.index_server import SimpleIndex, build_wheel

pytestmark = pytest.mark.timeout(240)


def _sha8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _demo(version: str) -> tuple[str, bytes]:
    files = {
        "pi_demo/__init__.py": f'VERSION = "{version}"\n',
        "pi_demo/ext.py": "def setup(pi): pass\n",
        "pi_demo/pi.toml": 'prompts = ["prompts/*.md"]\n',
        "pi_demo/prompts/hello.md": f"hello {version}",
    }
    return build_wheel(
        "pi-demo", version, files, "[pi.packages]\npi_demo = pi_demo\n[pi.extensions]\nmain = pi_demo.ext:setup\n"
    )


def test_package_sources_are_told_apart_from_paths() -> None:
    for text in ("pypi:pi-demo", "git:github.com/a/b", "https://github.com/a/b", "git://h/a/b", "ssh://git@h/a/b"):
        assert is_package_source(text), text
    for text in ("./ext.py", "/abs/dir", "builtin:mcp", "ext.py", "~/x"):
        assert not is_package_source(text), text


def test_npm_and_local_sources_are_refused(world: PackageWorld) -> None:
    with pytest.raises(TemporaryPackageError, match=r"npm packages need Node\.js and are not supported"):
        resolve_temporary_package("npm:left-pad", world.agent_dir, world.cwd, warnings=[])
    with pytest.raises(TemporaryPackageError, match="is not a package source"):
        resolve_temporary_package("./here", world.agent_dir, world.cwd, warnings=[])


def test_pypi_source_is_cached_rechecked_and_used_offline(world: PackageWorld, index: SimpleIndex) -> None:
    index.add("pi-demo", *_demo("1.0.0"))
    warnings: list[str] = []
    pinned = "pypi:pi-demo==1.0.0"
    found = resolve_temporary_package(pinned, world.agent_dir, world.cwd, warnings=warnings)
    cache = world.agent_dir / "tmp" / "extensions" / "pypi" / _sha8(pinned) / "pi-demo"
    assert warnings == []
    assert found.prompts == [cache / "pi_demo" / "prompts" / "hello.md"]
    assert [e.label for e in found.entry_points] == ["entrypoint:pi-demo:main"] and found.site_dirs == [cache]
    root = world.agent_dir / "tmp" / "extensions"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert (root / ".gitignore").read_text() == "*\n!.gitignore\n"
    # A pinned copy that is already cached is used without asking the index again.
    asked = len(index.requests)
    assert resolve_temporary_package(pinned, world.agent_dir, world.cwd, warnings=warnings).prompts == found.prompts
    assert len(index.requests) == asked and warnings == []

    unpinned = "pypi:pi-demo"
    upgraded = world.agent_dir / "tmp" / "extensions" / "pypi" / _sha8(unpinned) / "pi-demo"
    resolve_temporary_package(unpinned, world.agent_dir, world.cwd, warnings=warnings)
    assert (upgraded / "pi_demo" / "prompts" / "hello.md").read_text() == "hello 1.0.0"
    index.add("pi-demo", *_demo("1.1.0"))
    resolve_temporary_package(unpinned, world.agent_dir, world.cwd, warnings=warnings)
    assert (upgraded / "pi_demo" / "prompts" / "hello.md").read_text() == "hello 1.1.0"
    # Offline, the cached copy is used; a failed check falls back to it with a warning.
    offline = resolve_temporary_package(unpinned, world.agent_dir, world.cwd, warnings=warnings, offline=True)
    assert offline.prompts == [upgraded / "pi_demo" / "prompts" / "hello.md"] and warnings == []
    del index.wheels["pi-demo"]
    resolve_temporary_package(unpinned, world.agent_dir, world.cwd, warnings=warnings)
    assert len(warnings) == 1 and warnings[0].startswith("Could not check pypi:pi-demo for updates, using the cached")


def test_pypi_source_without_a_copy_fails(world: PackageWorld, index: SimpleIndex) -> None:
    with pytest.raises(TemporaryPackageError, match="pip failed for pi-absent"):
        resolve_temporary_package("pypi:pi-absent", world.agent_dir, world.cwd, warnings=[])
    with pytest.raises(TemporaryPackageError, match="Cannot install pypi:pi-absent in offline mode"):
        resolve_temporary_package("pypi:pi-absent", world.agent_dir, world.cwd, warnings=[], offline=True)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    write(work / "extensions" / "e.py", "def setup(pi): pass\n")
    write(work / "prompts" / "p.md", "one")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    git(work, "tag", "v1")
    base = tmp_path / "repos"
    (base / "acme").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(base / "acme" / "demo.git"))
    git(work, "remote", "add", "origin", str(base / "acme" / "demo.git"))
    yield base, work


def test_git_source_is_cloned_refreshed_and_kept_at_a_commit(world: PackageWorld, repo: tuple[Path, Path]) -> None:
    base, work = repo
    with git_daemon(base) as port:
        source = f"git://127.0.0.1:{port}/acme/demo.git"
        cache = world.agent_dir / "tmp" / "extensions" / "git-127.0.0.1" / _sha8(source) / "acme" / "demo"
        warnings: list[str] = []
        found = resolve_temporary_package(source, world.agent_dir, world.cwd, warnings=warnings)
        assert found.extensions == [cache / "extensions" / "e.py"] and warnings == []
        write(work / "prompts" / "p.md", "two")
        git(work, "commit", "-q", "-am", "two")
        git(work, "push", "-q", "origin", "main")
        resolve_temporary_package(source, world.agent_dir, world.cwd, warnings=warnings)
        assert (cache / "prompts" / "p.md").read_text() == "two"
        first = git(work, "rev-parse", "v1")
        at_commit = f"{source}@{first}"
        resolve_temporary_package(at_commit, world.agent_dir, world.cwd, warnings=warnings)
    # Daemon gone: a checked-out commit needs no fetch; an unpinned source falls back to its cache.
    commit_cache = world.agent_dir / "tmp" / "extensions" / "git-127.0.0.1" / _sha8(at_commit) / "acme" / "demo"
    assert (commit_cache / "prompts" / "p.md").read_text() == "one"
    resolve_temporary_package(at_commit, world.agent_dir, world.cwd, warnings=warnings)
    assert warnings == []
    resolve_temporary_package(source, world.agent_dir, world.cwd, warnings=warnings)
    assert len(warnings) == 1 and warnings[0].startswith(f"Could not check {source} for updates")
