"""Pi packages through the real `pi` process: install from a loopback index, a git daemon and a directory,
then the next start sees what the package provides; update, list and remove with pi's messages.

Acceptance checks 25-31 of the extension spec are the tests named `test_check_NN_...`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.app.packages.git_server import git, git_daemon
from tests.app.packages.index_server import build_wheel
from tests.e2e.conftest import PI
from tests.e2e.package_world import (
    MODEL,
    World,
    add_demo,
    demo_wheel,
    extension_source,
    local_package,
    repos,
    system_text,
    tool_names,
    user_text,
    world,
    write,
)
from tests.support.openai_chunks import text_reply

pytestmark = pytest.mark.timeout(300)
__all__ = ["repos", "world"]  # fixtures


def test_check_25_install_local_package_and_its_template_is_a_command(world: World) -> None:
    local_package(world.cwd / "pkg")
    done = world.run("install", "./pkg")
    assert (done.returncode, done.stdout) == (0, "Installing ./pkg...\nInstalled ./pkg\n"), done.stderr
    assert world.settings()["packages"] == [os.path.relpath(world.cwd / "pkg", world.agent_dir)]
    rpc = world.run("--mode", "rpc", *MODEL, stdin='{"id": "c", "type": "get_commands"}\n', offline=True)
    responses = [json.loads(line) for line in rpc.stdout.splitlines() if '"id": "c"' in line or '"id":"c"' in line]
    assert responses, rpc.stdout + rpc.stderr
    commands = {c["name"]: c for c in responses[0]["data"]["commands"]}
    assert commands["review"]["source"] == "prompt"
    assert commands["review"]["path"] == str(world.cwd / "pkg" / "prompts" / "review.md")
    # The template expands in print mode; the skill (conventional dir) is in the system prompt.
    body = world.prompt("/review main.py")
    assert user_text(body) == "Review main.py carefully."
    assert "local-skill" in system_text(body)


def test_local_package_extension_tools_load_in_the_next_start(world: World) -> None:
    local_package(world.cwd / "pkg")
    assert world.run("install", "./pkg").returncode == 0
    assert {"tool_a", "tool_b"} <= set(tool_names(world.prompt("hi")))


def test_check_26_pypi_install_pinned_update_unpinned_update_list_remove(world: World) -> None:
    add_demo(world.index, "1.0.0")
    done = world.run("install", "pypi:pi-demo==1.0.0")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Installing pypi:pi-demo==1.0.0...\nInstalled pypi:pi-demo==1.0.0\n"
    target = world.agent_dir / "pypi" / "pi-demo"
    assert (target / "pi_demo" / "ext.py").is_file() and (target / "pi_demo_helper" / "__init__.py").is_file()
    body = world.prompt("/demo-hello world")
    assert user_text(body) == "Hello world from pi-demo 1.0.0"
    assert "demo-skill" in system_text(body) and "Demonstrates skills" in system_text(body)

    world.index.add("pi-demo", *demo_wheel("1.1.0"))
    done = world.run("update", "--extensions")
    assert (done.returncode, done.stdout) == (0, "Packages are already up to date\n"), done.stderr
    write(world.agent_dir / "settings.json", json.dumps({"packages": ["pypi:pi-demo"]}))
    done = world.run("update", "--extensions")
    assert (done.returncode, done.stdout) == (0, "Updated 1 package:\n  pypi:pi-demo 1.0.0 -> 1.1.0\n"), done.stderr
    assert user_text(world.prompt("/demo-hello there")) == "Hello there from pi-demo 1.1.0"

    listed = world.run("list")
    assert listed.stdout == f"User packages:\n  pypi:pi-demo\n    {target}\n"
    removed = world.run("remove", "pypi:pi-demo")
    assert (removed.returncode, removed.stdout) == (0, "Removed pypi:pi-demo\n")
    assert not target.exists()
    assert user_text(world.prompt("/demo-hello x")) == "/demo-hello x"


def test_check_26_pypi_entry_point_extension_with_its_own_dependency_loads(world: World) -> None:
    add_demo(world.index, "1.0.0")
    assert world.run("install", "pypi:pi-demo==1.0.0").returncode == 0
    body = world.prompt("hi")
    tools = {t["function"]["name"]: t["function"] for t in body.get("tools", [])}
    assert tools["demo_tool"]["description"] == "Greets from a helper"


def test_two_packages_with_the_same_module_name_are_reported(world: World) -> None:
    add_demo(world.index, "1.0.0")
    other = build_wheel(
        "pi-other",
        "2.0",
        {"pi_demo/__init__.py": "", "pi_demo/ext.py": extension_source("other")},
        "[pi.extensions]\nmain = pi_demo.ext:setup\n",
    )
    world.index.add("pi-other", *other)
    assert world.run("install", "pypi:pi-demo").returncode == 0
    assert world.run("install", "pypi:pi-other").returncode == 0
    world.installed.server.queue(text_reply("done"))
    done = world.run("-p", *MODEL, "hi", offline=True)
    assert (
        'Warning: Packages pypi:pi-demo and pypi:pi-other both provide the Python module "pi_demo"; '
        "only one copy can be imported (the first one found, from pypi:pi-demo)"
    ) in done.stderr


def test_check_27_git_install_at_tag_identity_update_remove(world: World, repos: Path) -> None:
    with git_daemon(repos) as port:
        source = f"git://127.0.0.1:{port}/acme/demo.git@v1"
        done = world.run("install", source)
        assert (done.returncode, done.stdout) == (0, f"Installing {source}...\nInstalled {source}\n"), done.stderr
        clone = world.agent_dir / "git" / "127.0.0.1" / "acme" / "demo"
        assert git(clone, "rev-parse", "HEAD") == git(repos / "acme" / "demo.git", "rev-parse", "v1^{commit}")
        assert user_text(world.prompt("/git-hello")) == "Hello from tag v1"
        assert (world.run("update", "--extensions").stdout) == "Packages are already up to date\n"

        one_segment = world.run("install", f"git://127.0.0.1:{port}/demo.git")
        assert one_segment.returncode == 1
        assert one_segment.stderr.startswith("Error: Package directory does not exist: ")

        unpinned = f"git://127.0.0.1:{port}/acme/demo.git"
        removed = world.run("remove", unpinned)  # the same identity without the ref
        assert (removed.returncode, removed.stdout) == (0, f"Removed {unpinned}\n")
        assert not clone.exists() and world.settings()["packages"] == []
        assert world.run("install", f"git:{unpinned}").returncode == 0
        assert user_text(world.prompt("/git-hello")) == "Hello from main"


def test_git_package_extension_loads(world: World, repos: Path) -> None:
    with git_daemon(repos) as port:
        assert world.run("install", f"git://127.0.0.1:{port}/acme/demo.git@v1").returncode == 0
    assert "git_tool" in tool_names(world.prompt("hi"))


def test_check_28_filters_drop_extensions_but_keep_skills(world: World) -> None:
    pkg = local_package(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": [{"source": str(pkg), "extensions": []}]}))
    body = world.prompt("/review x")
    assert user_text(body) == "Review x carefully." and "local-skill" in system_text(body)
    assert not {"tool_a", "tool_b"} & set(tool_names(body))
    entry = {"source": str(pkg), "extensions": ["!extensions/b.py"]}
    write(world.agent_dir / "settings.json", json.dumps({"packages": [entry]}))
    names = tool_names(world.prompt("hi"))
    assert "tool_a" in names and "tool_b" not in names


def test_check_29_project_entry_wins_and_autoload_false_is_a_delta(world: World) -> None:
    pkg = local_package(world.cwd / "pkg")
    write(world.agent_dir / "settings.json", json.dumps({"packages": [{"source": str(pkg), "prompts": []}]}))
    project = {"packages": [{"source": "../pkg", "skills": []}]}
    write(world.cwd / ".pi" / "settings.json", json.dumps(project))
    world.installed.server.queue(text_reply("done"))
    done = world.run("-p", "-a", *MODEL, "/review y", offline=True)
    assert done.returncode == 0, done.stderr
    body = world.installed.server.requests[-1].json()
    assert user_text(body) == "Review y carefully." and "local-skill" not in system_text(body)
    delta = {"source": "../pkg", "autoload": False, "extensions": ["-extensions/a.py"]}
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": [delta]}))
    world.installed.server.queue(text_reply("done"))
    done = world.run("-p", "-a", *MODEL, "/review z", offline=True)
    assert done.returncode == 0, done.stderr
    body = world.installed.server.requests[-1].json()
    assert user_text(body) == "/review z"  # the user entry's `prompts: []` still applies
    names = tool_names(body)
    assert "tool_b" in names and "tool_a" not in names


def test_check_30_remove_unknown_and_install_into_untrusted_project(world: World) -> None:
    done = world.run("remove", "pypi:nothing")
    assert (done.returncode, done.stderr) == (1, "No matching package found for pypi:nothing\n")
    local_package(world.cwd / "pkg")
    write(world.cwd / ".pi" / "settings.json", "{}")
    done = world.run("install", "-l", "./pkg")
    assert done.returncode == 1
    assert done.stderr == "Error: Project is not trusted. Use --approve to modify local package config.\n"
    assert json.loads((world.cwd / ".pi" / "settings.json").read_text()) == {}


def test_check_31_list_user_and_filtered_project_package(world: World) -> None:
    local_package(world.cwd / "pkg")
    local_package(world.cwd / "other")
    assert world.run("install", "./pkg").returncode == 0
    write(world.cwd / ".pi" / "settings.json", json.dumps({"packages": [{"source": "../other", "skills": []}]}))
    done = world.run("list", "-a")
    assert done.returncode == 0, done.stderr
    user_src = os.path.relpath(world.cwd / "pkg", world.agent_dir)
    assert done.stdout == (
        f"User packages:\n  {user_src}\n    {world.cwd / 'pkg'}\n"
        f"\nProject packages:\n  ../other (filtered)\n    {world.cwd / 'other'}\n"
    )


def test_pi_config_in_a_pty_switches_a_builtin_off_and_saves(world: World) -> None:
    import pexpect

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "PIP_"))}
    env.update(PI_CODING_AGENT_DIR=str(world.agent_dir), HOME=str(world.installed.home), TERM="xterm-256color")
    child = pexpect.spawn(str(PI), ["config"], cwd=str(world.cwd), env=env, dimensions=(30, 100), encoding="utf-8")
    try:
        child.expect("Resource configuration", timeout=60)
        child.expect("builtin:mcp", timeout=30)
        child.send(" ")
        child.expect("disabled", timeout=30)
        child.send("\x1b")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert world.settings()["extensions"] == ["-builtin:mcp"]
    assert world.settings()["retry"] == {"enabled": False}


def test_temporary_package_from_e_is_cached_and_its_extension_loads(world: World) -> None:
    import hashlib

    add_demo(world.index, "1.0.0")
    source = "pypi:pi-demo==1.0.0"
    world.installed.server.queue(text_reply("done"))
    done = world.run("-e", source, "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    tools = tool_names(world.installed.server.requests[-1].json())
    assert "demo_tool" in tools
    digest = hashlib.sha256(source.encode()).hexdigest()[:8]
    cache = world.agent_dir / "tmp" / "extensions" / "pypi" / digest / "pi-demo"
    assert (cache / "pi_demo" / "ext.py").is_file()
    assert "packages" not in world.settings()
    # Offline, the cached copy is used.
    body = world.prompt_with("-e", source)
    assert "demo_tool" in tool_names(body)


def test_pi_config_lists_a_user_prompt_and_switching_it_off_takes_effect(world: World) -> None:
    import pexpect

    write(world.agent_dir / "prompts" / "greet.md", "---\ndescription: Greets\n---\nGreetings, $1\n")
    write(world.agent_dir / "skills" / "tidy" / "SKILL.md", "---\nname: tidy\ndescription: Tidies up\n---\n")
    assert user_text(world.prompt("/greet you")) == "Greetings, you"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "PIP_"))}
    env.update(PI_CODING_AGENT_DIR=str(world.agent_dir), HOME=str(world.installed.home), TERM="xterm-256color")
    child = pexpect.spawn(str(PI), ["config"], cwd=str(world.cwd), env=env, dimensions=(30, 100), encoding="utf-8")
    try:
        child.expect("User skills: skills/tidy", timeout=60)
        for ch in "greet":  # the search narrows the list to the prompt's row
            child.send(ch)
        child.expect("User prompts: prompts/greet.md", timeout=30)
        child.send(" ")
        child.expect("disabled", timeout=30)
        child.send("\x1b")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert world.settings()["prompts"] == ["-prompts/greet.md"]
    body = world.prompt("/greet you")
    assert user_text(body) == "/greet you" and "tidy" in system_text(body)
