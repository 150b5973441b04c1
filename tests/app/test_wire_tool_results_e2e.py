"""The `pi` process end to end: tool results in `tool_execution_*` events have pi 1.6.0's keys.

pi prints the object a tool returned: no `details` key when the tool set none (rather than null),
bash's `structuredContent` (snake_case inside, as pi's is) and the tool's own `isError` on a failed
command. A bash call's first update is bare (`{"content": []}`); each output update carries
details, empty until the output is cut; a command that printed nothing sends no second update.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _events(env: Env) -> list[dict[str, Any]]:
    env.server.queue(
        tool_reply(
            [
                ("bash", {"command": "echo hi"}),
                ("bash", {"command": "exit 3"}),
                ("write", {"path": "a.txt", "content": "x\n"}),
            ]
        ),
        tool_reply([("edit", {"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}]})]),
        text_reply("done"),
    )
    done = env.run("--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _by_command(events: list[dict[str, Any]], kind: str, command: str) -> list[dict[str, Any]]:
    calls = {
        e["toolCallId"] for e in events if e["type"] == "tool_execution_start" and e["args"] == {"command": command}
    }
    return [e for e in events if e["type"] == kind and e["toolCallId"] in calls]


def test_tool_results_carry_only_the_keys_the_tool_set(env: Env) -> None:
    events = _events(env)
    ends = {e["toolName"]: e for e in events if e["type"] == "tool_execution_end" and e["toolName"] != "bash"}

    [ok] = _by_command(events, "tool_execution_end", "echo hi")
    assert set(ok["result"]) == {"content", "structuredContent"}
    structured = ok["result"]["structuredContent"]
    assert {k: v for k, v in structured.items() if k != "wall_time_seconds"} == {
        "output": "hi\n",
        "truncated": False,
        "exit_code": 0,
    }
    assert isinstance(structured["wall_time_seconds"], int | float)

    [failed] = _by_command(events, "tool_execution_end", "exit 3")
    assert set(failed["result"]) == {"content", "structuredContent", "isError"}
    assert failed["result"]["isError"] is True and failed["isError"] is True
    assert failed["result"]["structuredContent"]["exit_code"] == 3

    assert ends["write"]["result"] == {
        "content": [{"type": "text", "text": ends["write"]["result"]["content"][0]["text"]}]
    }
    assert ends["edit"]["result"]["details"]["firstChangedLine"] == 1
    assert "structuredContent" not in ends["edit"]["result"]


def test_bash_updates_open_bare_and_then_carry_empty_details(env: Env) -> None:
    events = _events(env)
    printed = [e["partialResult"] for e in _by_command(events, "tool_execution_update", "echo hi")]
    assert printed[0] == {"content": []}
    assert len(printed) >= 2 and all(update["details"] == {} for update in printed[1:])
    assert "".join(update["content"][0]["text"] for update in printed[-1:]) == "hi\n"

    silent = [e["partialResult"] for e in _by_command(events, "tool_execution_update", "exit 3")]
    assert silent == [{"content": []}]
