"""How a configured key or header value is turned into the real secret.

pi's syntax for ``apiKey`` and ``headers`` values (models.json) and stored keys (auth.json):

- a plain string is the literal value, even when it looks like a variable name;
- ``$NAME`` or ``${NAME}`` anywhere in the string is replaced by that environment variable;
- ``$$`` stands for ``$`` and ``$!`` for ``!``;
- a leading ``!`` runs the rest as a shell command and uses its output, trimmed (10 s at most).

A command's output is cached for the process when `cache` is set (auth.json keys); models.json
values are resolved again for every request, so a command that prints a short-lived token works.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping

COMMAND_TIMEOUT_S = 10
_REFERENCE = r"\$(?:\$|!|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"

_command_cache: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}


class ConfigValueError(RuntimeError):
    """A value could not be resolved; the message names the variable or command (pi's wording)."""


KeyCommandError = ConfigValueError
"""The older name of `ConfigValueError`."""


def resolve_config_value(
    value: str, what: str = "value", *, cache: bool = True, env: Mapping[str, str] | None = None
) -> str:
    """The secret `value` stands for; `what` names it in errors (e.g. ``API key for "openai"``).

    `env` holds variables that override the process environment for this value only (a stored
    credential's own ``env``), both for ``$NAME`` and for a command's environment.
    Raises ConfigValueError when a variable is unset or empty, or a command fails, times out or
    prints nothing.
    """
    if value.startswith("!"):
        return _run_command(value[1:], what, cache, env or None)
    return re.sub(_REFERENCE, lambda match: _substitute(match, what, env or {}), value)


def referenced_variables(value: str) -> list[str]:
    """The environment variables a value names (``$NAME``, ``${NAME}``), each once, in order."""
    names = (match.group(1) or match.group(2) for match in re.finditer(_REFERENCE, value))
    return list(dict.fromkeys(name for name in names if name))


def _substitute(match: re.Match[str], what: str, env: Mapping[str, str]) -> str:
    token = match.group(0)
    if token in ("$$", "$!"):
        return token[1]
    name = match.group(1) or match.group(2)
    resolved = env.get(name) or os.environ.get(name)
    if not resolved:
        raise ConfigValueError(f"Failed to resolve {what} from environment variable: {name}")
    return resolved


def _run_command(command: str, what: str, cache: bool, env: Mapping[str, str] | None) -> str:
    # The same command may print something else under another environment.
    key = (command, tuple(sorted(env.items())) if env else ())
    if cache and key in _command_cache:
        return _command_cache[key]
    failure = ConfigValueError(f"Failed to resolve {what} from shell command: {command}")
    try:
        completed = subprocess.run(
            command,
            shell=True,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **env} if env is not None else None,
        )
    except (subprocess.TimeoutExpired, OSError) as exc:
        raise failure from exc
    result = completed.stdout.strip()
    if completed.returncode != 0 or not result:
        raise failure
    if cache:
        _command_cache[key] = result
    return result


__all__ = ["COMMAND_TIMEOUT_S", "ConfigValueError", "KeyCommandError", "resolve_config_value"]
