"""`pi update` without package arguments updates pi itself: the configured command, or the pip instruction."""

import json
import shlex
import sys

import pytest

from pi.app.packages.self_update import pip_command
from pi.version import __version__
from tests.app.packages.conftest import PackageWorld, write


@pytest.mark.parametrize("argv", [("update",), ("update", "--self"), ("update", "self"), ("update", "pi")])
async def test_self_update_prints_how_to_upgrade(world: PackageWorld, argv: tuple[str, ...]) -> None:
    result = await world.run(*argv)
    expected = shlex.join([sys.executable, "-m", "pip", "install", "--upgrade", "pi-coding-agent"])
    assert (result.code, result.err) == (0, "")
    assert (
        result.out == f"pi {__version__} is the Python distribution pi-coding-agent. To update it, run:\n  {expected}\n"
    )
    assert "--force-reinstall" in pip_command(force=True)


async def test_configured_command_runs_with_placeholders(world: PackageWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_SELF_UPDATE_COMMAND", "echo upgrading {packageName} as [{installSpec}] v[{version}]")
    result = await world.run("update")
    command = "echo upgrading pi-coding-agent as [pi-coding-agent] v[]"
    assert (result.code, result.out) == (0, f"Running {command}\nupgrading pi-coding-agent as [pi-coding-agent] v[]\n")
    monkeypatch.delenv("PI_SELF_UPDATE_COMMAND")
    write(world.agent_dir / "settings.json", json.dumps({"selfUpdateCommand": "exit 3"}))
    result = await world.run("update")
    assert (result.code, result.err) == (1, "Error: exit 3 exited with code 3\n")


async def test_all_updates_pi_and_packages(world: PackageWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_SELF_UPDATE_COMMAND", "true")
    result = await world.run("update", "--all")
    assert (result.code, result.out) == (0, "Running true\nPackages are already up to date\n")
