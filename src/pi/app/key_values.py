"""How a configured key or header value is turned into the real secret.

pi's rule, used for auth.json keys and models.json apiKey/headers: ``!command`` runs the command
and uses its output (once per process), a name of an existing environment variable uses that
variable, anything else is the literal value.
"""

from __future__ import annotations

import os
import subprocess

_command_cache: dict[str, str | None] = {}


class KeyCommandError(RuntimeError):
    pass


def resolve_config_value(value: str) -> str | None:
    """The secret `value` stands for, or None when a command printed nothing."""
    if value.startswith("!"):
        return _run_key_command(value[1:])
    env_value = os.environ.get(value)
    if env_value:
        return env_value
    return value


def _run_key_command(command: str) -> str | None:
    if command in _command_cache:
        return _command_cache[command]
    try:
        completed = subprocess.run(
            command, shell=True, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as exc:
        raise KeyCommandError(f"The key command `{command}` did not finish within 30 s") from exc
    if completed.returncode != 0:
        detail = completed.stderr.strip().splitlines()[-1:] or [f"exit code {completed.returncode}"]
        raise KeyCommandError(f"The key command `{command}` failed: {detail[0]}")
    result = completed.stdout.strip() or None
    _command_cache[command] = result
    return result


__all__ = ["KeyCommandError", "resolve_config_value"]
