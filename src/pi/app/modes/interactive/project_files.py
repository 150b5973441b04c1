"""The project's files for `@` completion: what `rg --files` lists (.gitignore respected, hidden files
included, `.git` left out), capped so that a huge tree cannot stall the editor."""

from __future__ import annotations

import subprocess

MAX_FILES = 20_000
TIMEOUT_S = 2.0


def list_project_files(cwd: str) -> list[str]:
    """Relative paths of the files under `cwd`; empty when rg is missing or takes too long."""
    from pi.tools.rg_binary import locate_rg

    rg = locate_rg()
    if rg is None:
        return []
    try:
        done = subprocess.run(
            [rg, "--files", "--hidden", "--no-config", "--glob", "!.git"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    paths = done.stdout.splitlines()[:MAX_FILES]
    return sorted(path.removeprefix("./") for path in paths)


__all__ = ["list_project_files"]
