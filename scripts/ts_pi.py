"""pi 1.6.0 for the scripts that run it next to ours: where it is, its version, and a throwaway environment.

The fixture scripts need the TypeScript pi itself (its files are what they record), so it is found
the way the benchmarks find it (`PI_TS_BIN`, with `PI_TS_NODE` for the Node.js to run it with), or
under an npm prefix, where it is installed with npm when missing. See bench/README.md, "How to get
pi 1.6.0 for comparison".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.side_by_side import output_line, pinned_env  # noqa: E402

TS_PACKAGE = "@earendil-works/pi-coding-agent"
TS_VERSION = "1.6.0"
DEFAULT_TS_PREFIX = Path("/tmp/tspi")


def ensure_ts_pi(explicit: Path | None = None, prefix: Path = DEFAULT_TS_PREFIX) -> Path:
    """The TypeScript `pi`: the given path, else `PI_TS_BIN`, else the one under `prefix`, installed if missing."""
    chosen = explicit or (Path(os.environ["PI_TS_BIN"]) if os.environ.get("PI_TS_BIN") else None)
    if chosen is not None:
        if not chosen.exists():
            raise SystemExit(f"the TypeScript pi {chosen} does not exist: pass --ts-pi PATH or fix PI_TS_BIN")
        return chosen
    binary = prefix / "node_modules" / ".bin" / "pi"
    if not binary.exists():
        package = f"{TS_PACKAGE}@{TS_VERSION}"
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"{binary} is missing and npm is not on PATH to install {package}")
        print(f"installing {package} into {prefix} ...", file=sys.stderr)
        subprocess.run([npm, "install", "--prefix", str(prefix), package], check=True, stdout=subprocess.DEVNULL)
    return binary


def node_dir() -> str | None:
    """The directory of `PI_TS_NODE`, put first on PATH so the TypeScript pi's `#!/usr/bin/env node` finds it."""
    node = os.environ.get("PI_TS_NODE")
    return str(Path(node).parent) if node else None


def program_version(binary: Path) -> str:
    """The version the TypeScript pi prints, run with `PI_TS_NODE` when that is set."""
    node = os.environ.get("PI_TS_NODE")
    return output_line([*([node] if node else []), str(binary), "--version"])


def node_version() -> str:
    """The version of the Node.js the TypeScript pi runs with (`PI_TS_NODE`, else `node` on PATH), or "?"."""
    node = os.environ.get("PI_TS_NODE") or shutil.which("node")
    return output_line([node, "--version"]) if node else "? (no node: set PI_TS_NODE or put node on PATH)"


def isolated_env(agent_dir: Path, home: Path) -> dict[str, str]:
    """The benchmarks' pinned environment (bench.side_by_side.pinned_env), with pi 1.6.0's node on PATH."""
    return pinned_env(agent_dir, home, node_dir())


__all__ = [
    "DEFAULT_TS_PREFIX",
    "TS_PACKAGE",
    "TS_VERSION",
    "ensure_ts_pi",
    "isolated_env",
    "node_dir",
    "node_version",
    "program_version",
]
