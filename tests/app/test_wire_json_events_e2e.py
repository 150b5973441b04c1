"""The `pi` process end to end: `--mode json` prints the events pi 1.6.0 prints, no more.

`session_start` and `model_select` are for extensions and the UI; pi's JSON stream leaves them out,
and a session move does not report the already empty queues again. Real queue changes still show.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply

EXTENSION = """
def setup(pi):
    async def start(event, ctx):
        if event.reason == "startup":
            await pi.set_model(ctx.model_registry.find("fake", "fake-think"))

    async def fresh(args, ctx):
        await ctx.new_session()

    queued = []

    def on_tool(event, ctx):
        if not queued:
            queued.append(True)
            pi.send_user_message("more", deliver_as="followUp")

    pi.on("session_start", start)
    pi.register_command("fresh", fresh, description="start over")
    pi.on("tool_execution_start", on_tool)
"""


def _run(env: Env, *prompts: str) -> list[dict[str, Any]]:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"].append({"id": "fake-think", "reasoning": True, "contextWindow": 100000})
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    extension = env.cwd.parent / "events.py"
    extension.write_text(textwrap.dedent(EXTENSION))
    done = env.run("--mode", "json", *MODEL, "-e", str(extension), *prompts)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_model_and_session_changes_stay_out_of_the_json_stream(env: Env) -> None:
    env.server.queue(text_reply("one"), text_reply("two"))
    events = _run(env, "hello", "/fresh", "again")
    types = [e["type"] for e in events]
    assert "model_select" not in types and "session_start" not in types
    assert "queue_update" not in types
    assert types.count("agent_start") == 2 and types[-1] == "agent_settled"
    assert [r.json()["model"] for r in env.server.requests] == ["fake-think", "fake-think"]  # the switch happened


def test_queue_changes_still_show(env: Env) -> None:
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("one"), text_reply("two"))
    events = _run(env, "go")
    queues = [(e["steering"], e["followUp"]) for e in events if e["type"] == "queue_update"]
    assert queues == [([], ["more"]), ([], [])]
