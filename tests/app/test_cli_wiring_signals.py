"""SIGTERM, SIGHUP and Ctrl+C end `pi` with 143, 129 and 130 in print, JSON and RPC mode: no command it started
survives, and the session still shuts down in order."""

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

SHUTDOWN_RECORDER = """
from pathlib import Path


def setup(pi):
    def record(event, ctx):
        Path(ctx.cwd, "shutdown.txt").write_text(event.reason)

    pi.on("session_shutdown", record)
"""


@pytest.mark.parametrize(
    ("mode", "signum", "code"),
    [
        ("print", signal.SIGTERM, 143),
        ("print", signal.SIGHUP, 129),
        ("print", signal.SIGINT, 130),
        ("json", signal.SIGTERM, 143),
        ("json", signal.SIGHUP, 129),
        ("rpc", signal.SIGTERM, 143),
        ("rpc", signal.SIGHUP, 129),
    ],
)
def test_signal_during_a_command_exits_with_its_code_kills_the_command_and_shuts_down_in_order(
    env: Env, mode: str, signum: int, code: int
) -> None:
    recorder = env.cwd.parent / "recorder.py"
    recorder.write_text(SHUTDOWN_RECORDER)
    flags = ("-e", str(recorder))
    env.server.queue(tool_reply([("bash", {"command": SLOW_COMMAND})]), text_reply("never reached"))
    if mode == "rpc":
        proc = _start(env, "--mode", "rpc", *flags, *MODEL, rpc=True)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"type": "prompt", "id": "1", "message": "run it"}) + "\n")
        proc.stdin.flush()
    else:
        proc = _start(env, *(("--mode", "json") if mode == "json" else ("-p",)), *flags, *MODEL, "run it")
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
    # The session still ends in order: extensions hear `session_shutdown` (MCP servers get their close
    # sequence) while the event loop runs, and nothing is left for the garbage collector to report.
    assert (env.cwd / "shutdown.txt").read_text() == "quit"
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
