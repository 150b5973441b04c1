"""Git repositories made in a test and a `git daemon` serving them on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity and no user configuration; returns stdout."""
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    done = subprocess.run(["git", *identity, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def git_daemon(base: Path) -> Iterator[int]:
    """Serve every repository under `base` read-only over git://127.0.0.1:<port>/ until the block ends."""
    port = free_port()
    args = ["git", "daemon", "--listen=127.0.0.1", f"--port={port}", f"--base-path={base}", "--export-all"]
    process = subprocess.Popen([*args, "--verbose", "--reuseaddr", str(base)], stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if "Ready to rumble" in line:
            break
    try:
        yield port
    finally:
        process.terminate()
        process.wait()
        process.stderr.close()
