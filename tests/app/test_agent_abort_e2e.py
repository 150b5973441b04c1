"""The `pi` process end to end: aborting a running bash command keeps what it printed, as pi 1.6.0 does.

The tool result is the output so far followed by "Command aborted", and the run closes with one more
assistant turn, empty and "aborted", that records the abort itself (also in the session file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply, tool_reply

COMMAND = "echo early; echo also-early >&2; sleep 30; echo never"
ABORTED_RESULT = "early\nalso-early\n\n\nCommand aborted"


def _session_messages(env: Env) -> list[dict[str, Any]]:
    [path] = list(Path(env.agent_dir, "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [e["message"] for e in entries if e["type"] == "message"]


def _printed_so_far(event: dict[str, Any]) -> bool:
    if event.get("type") != "tool_execution_update":
        return False
    text = "".join(block.get("text", "") for block in event["partialResult"]["content"])
    return "also-early" in text


def test_rpc_abort_of_a_running_command_keeps_its_output_and_ends_with_an_aborted_turn(env: Env) -> None:
    env.server.queue(tool_reply([("bash", {"command": COMMAND})]), text_reply("next answer"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "run it"})
        rpc.read_until(_printed_so_far)
        rpc.send({"id": "a", "type": "abort"})
        rpc.response("a")
        seen = rpc.seen
        [end] = [e for e in seen if e.get("type") == "tool_execution_end"]
        assert end["result"] == {"content": [{"type": "text", "text": ABORTED_RESULT}], "details": {}}
        assert end["isError"] is True and isinstance(end["durationMs"], int)

        after_tool = [e["type"] for e in seen[seen.index(end) :] if e["type"] != "tool_execution_update"]
        assert after_tool[:8] == [
            "tool_execution_end", "message_start", "message_end", "turn_end",
            "turn_start", "message_start", "message_end", "turn_end",
        ]  # fmt: skip
        closing = [e for e in seen if e.get("type") == "message_end"][-1]["message"]
        assert closing["role"] == "assistant" and closing["content"] == []
        assert (closing["stopReason"], closing["errorMessage"]) == ("aborted", "This operation was aborted")

        rpc.send({"id": "m", "type": "get_messages"})
        messages = rpc.response("m")["data"]["messages"]
        assert [m["role"] for m in messages][-3:] == ["assistant", "toolResult", "assistant"]
        assert messages[-2]["content"] == [{"type": "text", "text": ABORTED_RESULT}]
        assert len(env.server.requests) == 1  # recording the abort asks the model nothing

        rpc.send({"id": "p2", "type": "prompt", "message": "what happened?"})
        rpc.read_until(lambda o: o.get("type") == "agent_end" and "next answer" in json.dumps(o["messages"]))
        sent = env.server.requests[-1].json()["messages"]
        tool_message = next(m for m in sent if m["role"] == "tool")
        assert tool_message["content"] == ABORTED_RESULT  # the model reads what the command printed
    finally:
        assert rpc.close() == 0

    stored = _session_messages(env)
    result = next(m for m in stored if m["role"] == "toolResult")
    assert result["content"] == [{"type": "text", "text": ABORTED_RESULT}] and result["isError"] is True
    aborted = [m for m in stored if m["role"] == "assistant" and m.get("stopReason") == "aborted"]
    assert [m["errorMessage"] for m in aborted] == ["This operation was aborted"]


def _text_delta(event: dict[str, Any]) -> bool:
    return event.get("type") == "message_update" and event["assistantMessageEvent"]["type"] == "text_delta"


def test_rpc_abort_while_text_streams_closes_the_block_and_says_the_request_was_aborted(env: Env) -> None:
    slow = text_reply("streaming words " * 30)
    slow.chunk_delay = 0.2  # the abort lands while the reply is still arriving
    env.server.queue(slow)
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        rpc.read_until(_text_delta)
        rpc.send({"id": "a", "type": "abort"})
        settled = abort_answered = False
        while not (settled and abort_answered):  # the run may settle before or after the answer
            event = rpc.read_until(lambda o: o.get("type") in ("agent_settled", "response"))
            settled = settled or event["type"] == "agent_settled"
            abort_answered = abort_answered or event.get("id") == "a"
        seen = rpc.seen
        updates = [e["assistantMessageEvent"] for e in seen if e.get("type") == "message_update"]
        [end] = [e["message"] for e in seen if e.get("type") == "message_end"][-1:]
        assert updates[-1]["type"] == "text_end"
        assert updates[-1]["content"] == end["content"][0]["text"]
        assert (end["stopReason"], end["errorMessage"]) == ("aborted", "Request was aborted")
    finally:
        assert rpc.close() == 0
