"""The `pi` process end to end: what the agent loop records on messages and events (pi 1.6.0's fields).

Assistant replies carry `thinkingLevel` and `durationMs`, tool results and `tool_execution_end` carry
`durationMs` in whole milliseconds, on the wire and in the session file; `message_start` shows a
streamed reply as it opened, not as it ended.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _stored_messages(env: Env) -> list[dict[str, Any]]:
    [path] = list(Path(env.agent_dir, "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [e["message"] for e in entries if e["type"] == "message"]


def _reasoning_model(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"][0]["reasoning"] = True
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_json_mode_messages_carry_thinking_level_and_durations(env: Env) -> None:
    _reasoning_model(env)
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("all done " * 40))
    done = env.run("--mode", "json", *MODEL, "--thinking", "high", "go")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)

    replies = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert [m["thinkingLevel"] for m in replies] == ["high", "high"]
    assert all(isinstance(m["durationMs"], int) and m["durationMs"] >= 0 for m in replies)

    [end] = [e for e in events if e["type"] == "tool_execution_end"]
    [result] = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "toolResult"]
    assert isinstance(end["durationMs"], int) and result["durationMs"] == end["durationMs"]

    starts = [e["message"] for e in events if e["type"] == "message_start" and e["message"]["role"] == "assistant"]
    assert [(m["content"], m["stopReason"]) for m in starts] == [([], "pending"), ([], "pending")]

    stored = _stored_messages(env)
    stored_replies = [m for m in stored if m["role"] == "assistant"]
    assert [(m["thinkingLevel"], m["durationMs"]) for m in stored_replies] == [
        (m["thinkingLevel"], m["durationMs"]) for m in replies
    ]
    assert next(m for m in stored if m["role"] == "toolResult")["durationMs"] == end["durationMs"]
