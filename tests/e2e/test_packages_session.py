"""Packages in a running `pi`: `-e` packages' skills and templates, `/reload` after an install by another
process, installing configured packages at start-up, and the `git:<host>/<owner>/<repo>@<tag>` shorthand
over HTTPS (rewritten to a loopback dumb-HTTP server by a test-only git configuration)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.app.packages.git_server import git, git_daemon
from tests.e2e.conftest import PI
from tests.e2e.package_world import (
    MODEL,
    World,
    add_demo,
    repos,
    system_text,
    tool_names,
    user_text,
    world,
    write,
)
from tests.support.loopback_http import LoopbackHTTP
from tests.support.openai_chunks import text_reply

pytestmark = pytest.mark.timeout(300)
__all__ = ["repos", "world"]  # fixtures

COMMAND_EXTENSION = """\
def setup(pi):
    async def run(args, ctx):
        pass

    pi.register_command("{name}", run, description="A command from a package")
"""


def commands(world: World, *options: str, offline: bool = True) -> dict[str, dict[str, Any]]:
    """The RPC `get_commands` answer of one `pi --mode rpc` run, by name."""
    done = world.run("--mode", "rpc", *MODEL, *options, stdin='{"id": "c", "type": "get_commands"}\n', offline=offline)
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        if answer.get("type") == "response" and answer.get("id") == "c":
            return {c["name"]: c for c in answer["data"]["commands"]}
    raise AssertionError(done.stdout + done.stderr)


def test_e_pypi_package_brings_its_template_and_skill(world: World) -> None:
    add_demo(world.index, "1.0.0")
    world.installed.server.queue(text_reply("done"))
    done = world.run("-e", "pypi:pi-demo==1.0.0", "-p", *MODEL, "/demo-hello world")
    assert done.returncode == 0, done.stderr
    body = world.installed.server.requests[-1].json()
    assert user_text(body) == "Hello world from pi-demo 1.0.0"
    assert "demo-skill" in system_text(body) and "demo_tool" in tool_names(body)
    # Offline, the cached copy still provides them; without `-e` nothing is left over.
    found = commands(world, "-e", "pypi:pi-demo==1.0.0")
    assert found["demo-hello"]["source"] == "prompt" and "skill:demo-skill" in found
    assert "demo-hello" not in commands(world)


def test_e_git_package_brings_its_template(world: World, repos: Path) -> None:
    with git_daemon(repos) as port:
        source = f"git://127.0.0.1:{port}/acme/demo.git@v1"
        world.installed.server.queue(text_reply("done"))
        done = world.run("-e", source, "-p", *MODEL, "/git-hello")
    assert done.returncode == 0, done.stderr
    body = world.installed.server.requests[-1].json()
    assert user_text(body) == "Hello from tag v1" and "git_tool" in tool_names(body)


class Rpc:
    """`pi --mode rpc` kept running, read line by line until the response a test waits for."""

    def __init__(self, world: World) -> None:
        self.proc = subprocess.Popen(
            [str(PI), "--mode", "rpc", *MODEL],
            cwd=world.cwd,
            env=world.env(offline=True),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            answer: dict[str, Any] = json.loads(line)
            if answer.get("type") == "response" and answer.get("id") == command["id"]:
                return answer
        raise AssertionError(f"pi exited: {self.proc.stderr.read() if self.proc.stderr else ''}")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code


def test_reload_picks_up_a_package_installed_by_another_process(world: World) -> None:
    write(
        world.agent_dir / "extensions" / "reloader.py",
        "def setup(pi):\n    async def run(args, ctx):\n        await ctx.reload()\n\n"
        '    pi.register_command("do-reload", run)\n',
    )
    package = world.cwd / "late"
    write(package / "extensions" / "late.py", COMMAND_EXTENSION.format(name="late-cmd"))
    write(package / "prompts" / "late-hello.md", "Hello from late\n")
    rpc = Rpc(world)
    try:
        before = {c["name"] for c in rpc.ask({"id": "1", "type": "get_commands"})["data"]["commands"]}
        assert "do-reload" in before and "late-cmd" not in before
        installed = world.run("install", "./late")
        assert installed.returncode == 0, installed.stderr
        answer = rpc.ask({"id": "2", "type": "prompt", "message": "/do-reload"})
        assert answer["success"] and answer["data"]["disposition"] == "handled", answer
        after = {c["name"]: c for c in rpc.ask({"id": "3", "type": "get_commands"})["data"]["commands"]}
    finally:
        assert rpc.close() == 0
    assert after["late-cmd"]["source"] == "extension"
    assert after["late-hello"]["path"] == str(package / "prompts" / "late-hello.md")


def test_missing_configured_package_is_installed_once_at_start_with_a_notice(world: World) -> None:
    add_demo(world.index, "1.0.0")
    write(world.agent_dir / "settings.json", json.dumps({"packages": ["pypi:pi-demo==1.0.0", "pypi:pi-absent"]}))
    world.installed.server.queue(text_reply("done"))
    done = world.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Installing pypi:pi-demo==1.0.0...\n") == 1, done.stderr
    assert done.stderr.count("Installing pypi:pi-absent...\n") == 1, done.stderr
    assert done.stderr.count("Warning: Failed to install package pypi:pi-absent: ") == 1, done.stderr
    assert "demo_tool" in tool_names(world.installed.server.requests[-1].json())
    # The next start tries the failed one again, and does no package work for the installed one.
    asked = len(world.index.requests)
    world.installed.server.queue(text_reply("done"))
    again = world.run("-p", *MODEL, "hi")
    assert again.returncode == 0, again.stderr
    assert "Installing pypi:pi-demo" not in again.stderr and "Installing pypi:pi-absent...\n" in again.stderr
    assert all("pi-demo" not in path for path in world.index.requests[asked:]), world.index.requests[asked:]
    # With everything installed, a start touches neither pip nor the index.
    write(world.agent_dir / "settings.json", json.dumps({"packages": ["pypi:pi-demo==1.0.0"]}))
    asked = len(world.index.requests)
    world.installed.server.queue(text_reply("done"))
    quiet = world.run("-p", *MODEL, "hi")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    assert world.index.requests[asked:] == []
    assert "demo_tool" in tool_names(world.installed.server.requests[-1].json())


def test_project_packages_install_at_start_only_with_trust(world: World) -> None:
    add_demo(world.index, "1.0.0")
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": ["pypi:pi-demo==1.0.0"]}))
    world.installed.server.queue(text_reply("done"))
    untrusted = world.run("-p", "-na", *MODEL, "hi")
    assert untrusted.returncode == 0 and "Installing" not in untrusted.stderr, untrusted.stderr
    assert not (world.cwd / ".pi" / "pypi").exists()
    world.installed.server.queue(text_reply("done"))
    trusted = world.run("-p", "-a", *MODEL, "hi")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stderr.count("Installing pypi:pi-demo==1.0.0...\n") == 1, trusted.stderr
    assert (world.cwd / ".pi" / "pypi" / "pi-demo" / "pi_demo" / "ext.py").is_file()


@contextmanager
def dumb_http(base: Path) -> Iterator[str]:
    """Serve `base` as static files on 127.0.0.1 (git's dumb HTTP protocol needs nothing more)."""
    with LoopbackHTTP(partial(_QuietHandler, directory=str(base))) as server:
        yield f"{server.url}/"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_git_shorthand_installs_over_https_and_the_next_start_sees_its_command(world: World, tmp_path: Path) -> None:
    work = tmp_path / "shorthand"
    work.mkdir()
    git(work, "init", "-q")
    write(work / "extensions" / "short.py", COMMAND_EXTENSION.format(name="short-cmd"))
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    git(work, "tag", "v1")
    served = tmp_path / "served"
    bare = served / "owner" / "repo"
    bare.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    git(bare, "update-server-info")
    with dumb_http(served) as url:
        config = write(tmp_path / "gitconfig", f'[url "{url}"]\n\tinsteadOf = https://example.test/\n')
        world.extra_env["GIT_CONFIG_GLOBAL"] = str(config)
        done = world.run("install", "git:example.test/owner/repo@v1")
    assert (done.returncode, done.stdout) == (
        0,
        "Installing git:example.test/owner/repo@v1...\nInstalled git:example.test/owner/repo@v1\n",
    ), done.stderr
    clone = world.agent_dir / "git" / "example.test" / "owner" / "repo"
    assert git(clone, "rev-parse", "HEAD") == git(bare, "rev-parse", "v1^{commit}")
    assert world.settings()["packages"] == ["git:example.test/owner/repo@v1"]
    found = commands(world)
    assert found["short-cmd"]["source"] == "extension"
