"""The `pi` process end to end: a built-in tool an extension turns on later works like one the session began with.

The session starts with `--tools ls`, so neither bash nor read is built at start-up; an extension
activates them when the session starts. bash must still see the session's PI_* variables, and read
must still note that the session's text-only model cannot look at the image it read.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from tests.app.test_agent_startup_e2e import ONE_PIXEL_PNG
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply

EXTENSION = """
def setup(pi):
    pi.on("session_start", lambda event, ctx: pi.set_active_tools(["ls", "bash", "read"]))
"""


def _ends(env: Env, *calls: tuple[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    extension = env.cwd.parent / "late.py"
    extension.write_text(textwrap.dedent(EXTENSION))
    env.server.queue(tool_reply(list(calls)), text_reply("done"))
    done = env.run("--mode", "json", *MODEL, "--tools", "ls", "-e", str(extension), "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    offered = [tool["function"]["name"] for tool in env.server.requests[0].json()["tools"]]
    assert sorted(offered) == ["bash", "ls", "read"]
    return {e["toolName"]: e for e in events if e["type"] == "tool_execution_end"}


def test_bash_turned_on_later_sees_the_session_variables(env: Env) -> None:
    ends = _ends(env, ("bash", {"command": 'echo "[$PI_PROVIDER/$PI_MODEL/${PI_SESSION_ID:+id}]"'}))
    assert ends["bash"]["result"]["content"][0]["text"] == "[fake/fake-model/id]\n"


def test_read_turned_on_later_notes_a_model_that_takes_no_images(env: Env) -> None:
    (env.cwd / "pixel.png").write_bytes(ONE_PIXEL_PNG)
    ends = _ends(env, ("read", {"path": "pixel.png"}))
    assert ends["read"]["result"]["details"] == {"imageUnsupportedByModel": "fake-model"}
