"""Resolution of secret-bearing values (`env`, `headers`, `oauth.clientSecret`) and `~/` paths.

Values support `${VAR}` (an unset variable becomes empty) and a whole-value `!command`, whose
trimmed standard output is the value. Resolution runs when a server connects, so a slow or failing
command only affects that server.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
COMMAND_TIMEOUT_S = 30.0


class SecretError(RuntimeError):
    """A `!command` value could not be produced."""


def expand_value(value: str, environ: Mapping[str, str] | None = None) -> str:
    """`!command` → its output; otherwise every `${VAR}` replaced from the environment."""
    env = os.environ if environ is None else environ
    if value.startswith("!"):
        command = value[1:].strip()
        try:
            done = subprocess.run(
                command, shell=True, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise SecretError(f"command `{command}` did not finish within {COMMAND_TIMEOUT_S:g} s") from error
        if done.returncode != 0:
            detail = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
            raise SecretError(f"command `{command}` failed: {detail[0]}")
        return done.stdout.strip()
    return _VAR.sub(lambda match: env.get(match.group(1), ""), value)


def expand_map(values: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    return {key: expand_value(value, environ) for key, value in values.items()}


def expand_home(value: str) -> str:
    """A leading `~/` is the home directory."""
    if value.startswith("~/"):
        return str(Path.home() / value[2:])
    return value


__all__ = ["SecretError", "expand_home", "expand_map", "expand_value"]
