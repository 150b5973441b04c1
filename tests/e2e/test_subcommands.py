"""`pi auth`, `pi mcp` and the package commands, run through the installed `pi` without a session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e.conftest import Installed


def test_list_without_packages(installed: Installed) -> None:
    done = installed.run("list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "No packages installed."
    assert installed.server.requests == []


def test_install_and_remove_a_local_package(installed: Installed, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "prompts").mkdir(parents=True)
    (package / "prompts" / "review.md").write_text("Review $1 carefully.\n")
    (package / "pi.toml").write_text('prompts = ["prompts/*.md"]\n')
    done = installed.run("install", str(package))
    assert done.returncode == 0, done.stderr
    assert f"Installed {package}" in done.stdout
    settings = json.loads((installed.agent_dir / "settings.json").read_text())
    assert settings["retry"] == {"enabled": False}  # other keys kept
    assert len(settings["packages"]) == 1
    assert installed.run("remove", str(package)).returncode == 0
    missing = installed.run("remove", "pypi:nothing")
    assert missing.returncode == 1
    assert "No matching package found for pypi:nothing" in missing.stdout + missing.stderr


def test_auth_logout_with_nothing_stored_exits_zero(installed: Installed) -> None:
    done = installed.run("auth", "logout", "openrouter")
    assert done.returncode == 0, done.stderr
    assert (
        not (installed.agent_dir / "auth.json").exists()
        or "openrouter" not in (installed.agent_dir / "auth.json").read_text()
    )


def test_mcp_add_then_list_connects_to_the_published_time_server(installed: Installed) -> None:
    added = installed.run("mcp", "add", "time", "--exposure", "direct", "--", sys.executable, "-m", "mcp_server_time")
    assert added.returncode == 0, added.stderr
    assert f'Added global MCP server "time" in {installed.agent_dir / "mcp.json"}.' in added.stdout
    listed = installed.run("mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "time: connected, 2 tools (direct, global)" in listed.stdout
    assert "get_current_time" in listed.stdout
