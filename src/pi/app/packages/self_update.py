"""`pi update` for pi itself: run the configured update command, or say how to upgrade the distribution.

A Python installation can be managed by pip, pipx, uv or a system package manager, and pi cannot tell
which one, so without a configured command it prints the pip command for the interpreter it runs on.
`PI_SELF_UPDATE_COMMAND` (or the `selfUpdateCommand` setting) is a shell command; `{packageName}`,
`{version}` and `{installSpec}` in it are replaced. The newest version is not looked up, so
`{version}` is empty and `{installSpec}` is the bare distribution name (the installer picks the newest).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from pathlib import Path
from typing import TextIO

from pi.app.packages.install import HOST_DISTRIBUTION
from pi.app.packages.settings_file import SettingsFileError, read_settings


def configured_command(agent_dir: Path) -> str | None:
    """`PI_SELF_UPDATE_COMMAND`, else the user setting `selfUpdateCommand`, with the placeholders filled in."""
    command = os.environ.get("PI_SELF_UPDATE_COMMAND")
    if not command:
        try:
            value = read_settings(agent_dir / "settings.json").get("selfUpdateCommand")
        except SettingsFileError:
            value = None
        command = value if isinstance(value, str) and value.strip() else None
    if command is None:
        return None
    replacements = {"{packageName}": HOST_DISTRIBUTION, "{version}": "", "{installSpec}": HOST_DISTRIBUTION}
    for placeholder, text in replacements.items():
        command = command.replace(placeholder, text)
    return command


def pip_command(*, force: bool) -> str:
    args = [sys.executable, "-m", "pip", "install", "--upgrade"]
    if force:
        args.append("--force-reinstall")
    return shlex.join([*args, HOST_DISTRIBUTION])


async def update_self(agent_dir: Path, out: TextIO, err: TextIO, *, force: bool = False) -> int:
    """Run the configured command (its output passed on) or print the upgrade instruction."""
    command = configured_command(agent_dir)
    if command is None:
        from pi.version import __version__

        out.write(f"pi {__version__} is the Python distribution {HOST_DISTRIBUTION}. To update it, run:\n")
        out.write(f"  {pip_command(force=force)}\n")
        return 0
    out.write(f"Running {command}\n")
    out.flush()
    process = await asyncio.create_subprocess_shell(
        command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await process.communicate()
    out.write(stdout.decode(errors="replace"))
    err.write(stderr.decode(errors="replace"))
    if process.returncode:
        err.write(f"Error: {command} exited with code {process.returncode}\n")
        return 1
    return 0


__all__ = ["configured_command", "pip_command", "update_self"]
