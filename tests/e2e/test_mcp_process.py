"""MCP stdio servers end with pi: no server process or child of one is left after SIGTERM or SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from tests.e2e.conftest import PI, Installed
from tests.e2e.mcp_support import MODEL, fixture_entry, is_gone, write_mcp
from tests.support.openai_chunks import text_reply, tool_reply


def _env(installed: Installed) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
    env.update(PI_CODING_AGENT_DIR=str(installed.agent_dir), HOME=str(installed.home), PI_OFFLINE="1")
    return env


def _tool_end_text(event: dict[str, object]) -> str:
    return json.dumps(event.get("result"))


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT])
def test_no_server_process_is_left_after_pi_is_signalled(installed: Installed, signo: signal.Signals) -> None:
    write_mcp(installed.agent_dir, {"srv": fixture_entry(exposure="direct")})
    installed.server.queue(
        tool_reply([("mcp__srv__server_pid", {})]),
        tool_reply([("mcp__srv__spawn_child", {})]),
        tool_reply([("mcp__srv__hang", {})]),
        text_reply("never reached"),
    )
    proc = subprocess.Popen(
        [str(PI), "--mode", "json", *MODEL, "-p", "start things"],
        cwd=installed.cwd,
        env=_env(installed),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids: list[int] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            if event.get("type") == "tool_execution_end" and event.get("toolName") != "mcp__srv__hang":
                pids += [int(word) for word in _tool_end_text(event).replace('"', " ").split() if word.isdigit()][:1]
            if event.get("type") == "tool_execution_start" and event.get("toolName") == "mcp__srv__hang":
                break
        assert len(pids) == 2, pids
        assert not any(is_gone(pid) for pid in pids)
        proc.send_signal(signo)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert all(is_gone(pid) for pid in pids), "the server and its child ended with pi"
    # The servers' pipes were closed while the event loop ran, not by the garbage collector after it.
    assert "Exception ignored" not in stderr and "Event loop is closed" not in stderr, stderr
