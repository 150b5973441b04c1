"""Codemode workers in a real `pi --mode rpc` process: the per-process limit and what an abort ends.

A script holds its worker by running `cat gate` through the bash tool (`gate` is a FIFO the test
opens for writing when the script may go on); the tests wait on the RPC events, never on time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tests.app.extensions.cli_support import Rpc
from tests.e2e.test_codemode_checks import CODEMODE
from tests.support.cli_env import Env, env
from tests.support.openai_chunks import text_reply, tool_reply

__all__ = ["env"]

HOLD = 'const out = await tools.bash({command: "cat gate"}); return "held: " + out.output.trim()'


def _marked_processes(agent_dir: Path) -> dict[int, bytes]:
    """pid -> command line of every live process started for the `pi` run that uses `agent_dir`."""
    marker = f"PI_CODING_AGENT_DIR={agent_dir}".encode()
    found: dict[int, bytes] = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in environ.split(b"\0") and state != "Z":
            found[int(proc.name)] = cmdline
    return found


def _others(agent_dir: Path, pi_pid: int) -> dict[int, bytes]:
    """The processes of the run other than `pi` itself."""
    return {pid: cmd for pid, cmd in _marked_processes(agent_dir).items() if pid != pi_pid}


def _workers(agent_dir: Path) -> list[int]:
    return [pid for pid, cmd in _marked_processes(agent_dir).items() if b"pi.app.codemode.worker" in cmd]


def _nested_bash_started(parent: str) -> Any:
    return lambda o: (
        o.get("type") == "tool_execution_start" and o.get("toolName") == "bash" and o.get("parentToolCallId") == parent
    )


def _codemode_end(call_id: str) -> Any:
    return lambda o: o.get("type") == "tool_execution_end" and o.get("toolCallId") == call_id


def _text(event: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in event["result"]["content"] if part.get("type") == "text")


def _release(gate: Path, data: str = "go\n") -> None:
    """Let the script reading `gate` go on (opening a FIFO for writing waits for its reader)."""
    with gate.open("w") as handle:
        handle.write(data)


class _WorkersEnv(Env):
    """The test's `pi` environment with `PI_CODEMODE_MAX_WORKERS` set."""

    def __init__(self, base: Env, workers: int) -> None:
        super().__init__(base.server, base.agent_dir, base.cwd)
        self.workers = workers

    @property
    def vars(self) -> dict[str, str]:
        return {**super().vars, "PI_CODEMODE_MAX_WORKERS": str(self.workers)}


def test_a_second_script_waits_for_the_only_worker_and_times_out_without_starting(env: Env) -> None:
    os.mkfifo(env.cwd / "gate")
    waiting = '// @options: {"timeout_ms": 1500}\nreturn "second ran"'
    env.server.queue(
        tool_reply([("codemode", {"code": HOLD}), ("codemode", {"code": waiting})]),
        text_reply("done"),
    )
    rpc = Rpc(_WorkersEnv(env, 1), *CODEMODE)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "two scripts"})
        second = rpc.read_until(_codemode_end("call_1_codemode"))
        assert second["isError"] is True
        text = _text(second)
        assert text.startswith("Script failed\n"), text
        assert "Script timed out: Execution timed out after 1500 ms while waiting for a free codemode worker" in text
        assert "second ran" not in text
        assert second["result"]["details"]["calls"] == []
        assert len(_workers(env.agent_dir)) == 1  # the first script's, still holding the gate
        _release(env.cwd / "gate")
        first = rpc.read_until(_codemode_end("call_0_codemode"))
        assert _text(first).endswith("Output:\nheld: go"), _text(first)
        rpc.wait_for(lambda o: o.get("type") == "agent_end")
    finally:
        rpc.close()


def test_with_two_workers_both_scripts_run_at_once(env: Env) -> None:
    os.mkfifo(env.cwd / "gate")
    os.mkfifo(env.cwd / "gate2")
    env.server.queue(
        tool_reply([("codemode", {"code": HOLD}), ("codemode", {"code": HOLD.replace("gate", "gate2")})]),
        text_reply("done"),
    )
    rpc = Rpc(_WorkersEnv(env, 2), *CODEMODE)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "two scripts"})
        rpc.read_until(_nested_bash_started("call_0_codemode"))
        rpc.wait_for(_nested_bash_started("call_1_codemode"))
        assert len(_workers(env.agent_dir)) == 2
        _release(env.cwd / "gate")
        _release(env.cwd / "gate2")
        for call_id in ("call_0_codemode", "call_1_codemode"):
            assert _text(rpc.wait_for(_codemode_end(call_id))).startswith("Script completed\n")
        rpc.wait_for(lambda o: o.get("type") == "agent_end")
    finally:
        rpc.close()


def test_an_abort_ends_the_script_and_leaves_no_process_behind(env: Env) -> None:
    os.mkfifo(env.cwd / "gate")
    env.server.queue(tool_reply([("codemode", {"code": HOLD})]), text_reply("unused"))
    rpc = Rpc(env, *CODEMODE)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "hold"})
        rpc.read_until(_nested_bash_started("call_0_codemode"))
        (worker,) = _workers(env.agent_dir)
        rpc.send({"id": "stop", "type": "abort"})
        end = rpc.read_until(_codemode_end("call_0_codemode"))
        assert end["isError"] is True
        rpc.wait_for(lambda o: o.get("type") == "agent_end")
        # The run reports the abort at once; the script's worker and its nested command are ended by the
        # tool as it unwinds, which may finish just after `agent_end`: wait for that, within a bound.
        deadline = time.monotonic() + 15
        left = _others(env.agent_dir, rpc.proc.pid)
        while left and time.monotonic() < deadline:
            time.sleep(0.05)
            left = _others(env.agent_dir, rpc.proc.pid)
        assert worker not in left
        assert left == {}, left
    finally:
        rpc.close()
