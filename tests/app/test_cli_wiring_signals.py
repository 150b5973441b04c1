"""SIGTERM and SIGHUP end `pi` with 143 / 129 in print, JSON and RPC mode, and no command it started survives."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli_env import MODEL, PI, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting to be reaped has already ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: Callable[[], object], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _start(env: Env, *args: str, rpc: bool = False) -> subprocess.Popen[str]:
    """`pi` with stdin open for RPC commands, or at end of file (print and JSON mode read it all first)."""
    return subprocess.Popen(
        [*PI, *args],
        cwd=env.cwd,
        env=env.vars,
        stdin=subprocess.PIPE if rpc else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


SLOW_COMMAND = "sleep 60 & echo $! > sleep.pid; wait"


@pytest.mark.parametrize(
    ("mode", "signum", "code"),
    [
        ("print", signal.SIGTERM, 143),
        ("print", signal.SIGHUP, 129),
        ("json", signal.SIGTERM, 143),
        ("rpc", signal.SIGTERM, 143),
        ("rpc", signal.SIGHUP, 129),
    ],
)
def test_signal_during_a_command_exits_with_its_code_and_kills_the_command(
    env: Env, mode: str, signum: int, code: int
) -> None:
    env.server.queue(tool_reply([("bash", {"command": SLOW_COMMAND})]), text_reply("never reached"))
    if mode == "print":
        proc = _start(env, "-p", *MODEL, "run it")
    elif mode == "json":
        proc = _start(env, "--mode", "json", *MODEL, "run it")
    else:
        proc = _start(env, "--mode", "rpc", *MODEL, rpc=True)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"type": "prompt", "id": "1", "message": "run it"}) + "\n")
        proc.stdin.flush()
    pid_file = env.cwd / "sleep.pid"
    try:
        _wait_for(lambda: pid_file.is_file() and pid_file.read_text().strip(), "the command to start")
        child = int(pid_file.read_text().strip())
        assert _alive(child)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, stderr
    _wait_for(lambda: not _alive(child), "the command's child to end", timeout=10)
