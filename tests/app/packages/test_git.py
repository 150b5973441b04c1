import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.packages.install import CommandResult, credential_hint, git_environment, git_failure
from tests.app.packages.conftest import PackageWorld, write
from tests.app.packages.git_server import git, git_daemon
from tests.app.packages.index_server import SimpleIndex, build_wheel

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def repos(tmp_path: Path) -> Path:
    """`acme/demo.git` (bare) with tag v1 on the first commit and one more commit on main."""
    base = tmp_path / "repos"
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    write(work / "pi.toml", 'prompts = ["prompts/*.md"]\n')
    write(work / "prompts" / "p.md", "version one")
    write(work / "requirements.txt", "pi-helper==1.0\n")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    git(work, "tag", "v1")
    write(work / "prompts" / "p.md", "version two")
    git(work, "commit", "-q", "-am", "two")
    (base / "acme").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(base / "acme" / "demo.git"))
    return base


@pytest.fixture
def daemon(repos: Path) -> Iterator[int]:
    with git_daemon(repos) as port:
        yield port


def _commit_two(tmp_path: Path, repos: Path) -> None:
    clone = tmp_path / "again"
    git(tmp_path, "clone", "-q", str(repos / "acme" / "demo.git"), str(clone))
    write(clone / "prompts" / "p.md", "version three")
    git(clone, "commit", "-q", "-am", "three")
    git(clone, "push", "-q", "origin", "main")


async def test_install_tag_update_and_remove(
    world: PackageWorld, daemon: int, repos: Path, index: SimpleIndex, tmp_path: Path
) -> None:
    index.add("pi-helper", *build_wheel("pi-helper", "1.0", {"pi_helper/__init__.py": "X = 1\n"}))
    source = f"git://127.0.0.1:{daemon}/acme/demo.git@v1"
    result = await world.run("install", source)
    assert (result.code, result.out, result.err) == (0, f"Installing {source}...\nInstalled {source}\n", "")
    clone = world.agent_dir / "git" / "127.0.0.1" / "acme" / "demo"
    assert (clone / "prompts" / "p.md").read_text() == "version one"
    assert (clone / ".pi-site" / "pi_helper" / "__init__.py").is_file()
    assert (world.agent_dir / "git" / ".gitignore").read_text() == "*\n!.gitignore\n"
    assert (await world.run("update", "--extensions")).out == "Packages are already up to date\n"

    unpinned = f"git://127.0.0.1:{daemon}/acme/demo.git"
    result = await world.run("remove", unpinned)  # same identity without the ref
    assert (result.code, result.out) == (0, f"Removed {unpinned}\n")
    assert not clone.exists()

    assert (await world.run("install", unpinned)).code == 0
    assert (clone / "prompts" / "p.md").read_text() == "version two"
    before = git(clone, "rev-parse", "HEAD")
    _commit_two(tmp_path, repos)
    result = await world.run("update", unpinned)
    after = git(clone, "rev-parse", "HEAD")
    assert (result.code, result.out) == (0, f"Updated 1 package:\n  {unpinned} {before[:7]} -> {after[:7]}\n")
    assert (clone / "prompts" / "p.md").read_text() == "version three"
    settings = json.loads((world.agent_dir / "settings.json").read_text())
    assert settings["packages"] == [unpinned]


async def test_one_segment_url_is_a_local_path(world: PackageWorld, daemon: int) -> None:
    result = await world.run("install", f"git://127.0.0.1:{daemon}/demo.git")
    assert result.code == 1 and result.err.startswith("Error: Package directory does not exist: ")


async def test_clone_failure_is_reported(world: PackageWorld, daemon: int) -> None:
    result = await world.run("install", f"git://127.0.0.1:{daemon}/acme/absent.git")
    assert result.code == 1 and result.err.startswith(f"Error: git failed for git://127.0.0.1:{daemon}/acme/absent.git")


def test_git_never_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    env = git_environment()
    assert (env["GIT_TERMINAL_PROMPT"], env["GIT_SSH_COMMAND"]) == ("0", "ssh -o BatchMode=yes")
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -i key")
    assert git_environment()["GIT_SSH_COMMAND"] == "ssh -i key"
    prompt = CommandResult(128, "", "fatal: could not read Username for 'https://h': terminal prompts disabled\n")
    assert str(git_failure("git:h.io/a/b", prompt)).endswith("\n" + credential_hint("git:h.io/a/b"))
    other = CommandResult(128, "", "fatal: repository not found\n")
    assert str(git_failure("git:h.io/a/b", other)) == "git failed for git:h.io/a/b: fatal: repository not found"


async def test_failed_update_is_a_warning_and_exit_1(world: PackageWorld, repos: Path, tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.git"
    git(tmp_path, "clone", "-q", "--bare", str(repos / "acme" / "demo.git"), str(upstream))
    clone = world.agent_dir / "git" / "example.com" / "acme" / "demo"
    clone.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    shutil.rmtree(upstream)
    write(world.agent_dir / "settings.json", json.dumps({"packages": ["git:example.com/acme/demo"]}))
    result = await world.run("update", "--extension", "git:example.com/acme/demo")
    assert result.code == 1
    assert result.err.startswith("Warning: Failed to update git:example.com/acme/demo: git failed for ")
    assert result.out == "No packages were updated, see the warnings above\n"
