"""`pi auth|mcp|install|remove|uninstall|update|list|config ...`: commands that manage pi instead of running a session.

They are recognised by the first argument, as pi does, and each runs without loading models or
opening a session. Project-level files are read only when the project is already trusted by a
saved decision (or `-a`/`--approve`): these commands never ask.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SUBCOMMANDS = frozenset({"auth", "mcp", "install", "remove", "uninstall", "update", "list", "config"})


def is_subcommand(argv: list[str]) -> bool:
    return bool(argv) and argv[0] in SUBCOMMANDS


def _saved_trust(agent_dir: Path, cwd: Path, argv: list[str]) -> bool:
    if "-na" in argv or "--no-approve" in argv:
        return False
    if "-a" in argv or "--approve" in argv:
        return True
    from pi.app.trust import TrustStoreError, read_trust_store, saved_decision

    try:
        return saved_decision(read_trust_store(agent_dir), cwd) is True
    except TrustStoreError as exc:
        sys.stderr.write(f"Warning: {exc}\n")
        return False


def run_subcommand(argv: list[str]) -> int:
    """Run `argv` (its first word one of SUBCOMMANDS) and return the exit code."""
    from pi.app.paths import agent_dir as find_agent_dir

    agent_dir = find_agent_dir()
    cwd = Path.cwd().resolve()
    name, rest = argv[0], argv[1:]
    if name == "auth":
        from pi.app.oauth.auth_command import run_auth_command

        return run_auth_command(rest, agent_dir, sys.stdout, sys.stderr)
    if name == "mcp":
        from pi.app.mcp.cli_command import run_mcp_command

        return run_mcp_command(rest, agent_dir, cwd, _saved_trust(agent_dir, cwd, rest), sys.stdout, sys.stderr)
    if name == "config":
        from pi.app.packages.config_ui import run_config_command

        trusted = _saved_trust(agent_dir, cwd, rest)
        return run_config_command(rest, agent_dir=agent_dir, cwd=cwd, project_trusted=trusted, err=sys.stderr)
    from pi.app.packages.cli import run_package_command

    offline = "--offline" in rest or bool(os.environ.get("PI_OFFLINE"))
    args = [a for a in argv if a != "--offline"]
    return run_package_command(
        args,
        agent_dir=agent_dir,
        cwd=cwd,
        project_trusted=_saved_trust(agent_dir, cwd, rest),
        out=sys.stdout,
        err=sys.stderr,
        offline=offline,
    )


__all__ = ["SUBCOMMANDS", "is_subcommand", "run_subcommand"]
