"""What the `pi` process itself guarantees: the variables its commands inherit, and a deleted cwd."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import PI, Installed
from tests.support.openai_chunks import text_reply, tool_reply

MODEL = ["--provider", "fake-openai", "--model", "fake-model"]


def test_commands_run_by_pi_see_the_process_markers(installed: Installed) -> None:
    installed.server.queue(
        tool_reply([("bash", {"command": 'echo "agent=$AI_AGENT marker=$PI_CODING_AGENT offline=$PI_OFFLINE"'})]),
        text_reply("done"),
    )
    done = installed.run("-p", *MODEL, "--offline", "show the markers")
    assert done.returncode == 0, done.stderr
    second = installed.server.requests[1].json()
    results = [m for m in second["messages"] if m["role"] == "tool"]
    assert "agent=pi marker=true offline=1" in json.dumps(results)


def test_the_library_does_not_set_the_markers() -> None:
    code = "import os, pi.app.sdk, pi.app.main; print(os.environ.get('AI_AGENT'))"
    env = {k: v for k, v in os.environ.items() if k not in ("AI_AGENT", "PI_CODING_AGENT")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "None", out.stderr


def test_a_deleted_working_directory_is_a_clear_error(tmp_path: Path) -> None:
    script = f'mkdir gone && cd gone && rmdir ../gone && exec "{PI}" -p hi'
    done = subprocess.run(["sh", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (
        "Error: The current working directory no longer exists. Change to an existing directory and try again.\n"
    )
