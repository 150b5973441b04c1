"""The `pi` process in RPC mode end to end: the command changes of delta-1.6 §3.2 not covered elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply, tool_reply


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def _reasoning_model(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"].append(
        {
            "id": "fake-reasoner",
            "reasoning": True,
            "contextWindow": 100000,
            "maxTokens": 4096,
            "thinkingLevelMap": {"minimal": None, "max": "max"},
        }
    )
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_session_names_are_trimmed_single_line_and_never_empty(env: Env) -> None:
    rpc = Rpc(env)
    try:
        rpc.send({"id": "n1", "type": "set_session_name", "name": "   "})
        empty = rpc.response("n1")
        assert empty["success"] is False and empty["error"] == "Session name cannot be empty"
        rpc.send({"id": "n2", "type": "set_session_name", "name": " first\r\n\nsecond  "})
        assert rpc.response("n2")["success"] is True
        rpc.send({"id": "s1", "type": "get_state"})
        assert rpc.response("s1")["data"]["sessionName"] == "first second"
    finally:
        assert rpc.close() == 0


def test_thinking_and_model_changes_are_session_only_and_clamped(env: Env) -> None:
    _reasoning_model(env)
    settings_before = (env.agent_dir / "settings.json").read_text()
    rpc = Rpc(env)
    try:
        rpc.send({"id": "m1", "type": "set_model", "provider": "fake", "modelId": "fake-reasoner"})
        assert rpc.response("m1")["success"] is True
        rpc.send({"id": "t0", "type": "get_available_thinking_levels"})
        assert rpc.response("t0")["data"] == {"levels": ["off", "low", "medium", "high", "max"]}
        for level, clamped in [("max", "max"), ("minimal", "low"), ("xhigh", "max")]:
            rpc.send({"id": f"t-{level}", "type": "set_thinking_level", "level": level})
            assert rpc.response(f"t-{level}")["success"] is True
            rpc.send({"id": f"s-{level}", "type": "get_state"})
            assert rpc.response(f"s-{level}")["data"]["thinkingLevel"] == clamped
    finally:
        assert rpc.close() == 0
    assert (env.agent_dir / "settings.json").read_text() == settings_before


def test_user_bash_is_stored_at_once_and_streams_its_output(env: Env) -> None:
    env.server.queue(text_reply("hello"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "first"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "b1", "type": "bash", "command": "echo one; echo two"})
        result = rpc.response("b1")
        assert result["data"]["output"] == "one\ntwo\n"
        updates = [o for o in rpc.seen if o.get("type") == "bash_execution_update"]
        assert updates and "".join(u["delta"] for u in updates) == "one\ntwo\n"
        rpc.send({"id": "s1", "type": "get_state"})
        path = Path(rpc.response("s1")["data"]["sessionFile"])
        stored = [e for e in _entries(path) if e["type"] == "message"]
        assert stored[-1]["message"]["role"] == "bashExecution"
        assert stored[-1]["message"]["command"] == "echo one; echo two"
    finally:
        assert rpc.close() == 0


def test_messages_include_the_system_message_and_last_text_skips_tool_only_replies(env: Env) -> None:
    env.server.queue(text_reply("the real answer"), tool_reply([("bash", {"command": "true"})]), text_reply(""))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "first"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "p2", "type": "prompt", "message": "second"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "g1", "type": "get_messages"})
        roles = [m["role"] for m in rpc.response("g1")["data"]["messages"]]
        assert roles[0] == "system" and roles.count("system") == 1
        rpc.send({"id": "l1", "type": "get_last_assistant_text"})
        assert rpc.response("l1")["data"] == {"text": "the real answer"}
        rpc.send({"id": "st", "type": "get_session_stats"})
        stats = rpc.response("st")["data"]
        assert stats["totalMessages"] == len(roles)
    finally:
        assert rpc.close() == 0


def test_compact_reports_the_estimate_after_and_the_summary_usage(env: Env) -> None:
    env.server.queue(
        text_reply("one " * 50),
        text_reply("two " * 50),
        text_reply("## Goal\nShort.", prompt_tokens=321, completion_tokens=12),
        text_reply("## Original Request\nPrefix.", prompt_tokens=79, completion_tokens=8),
    )
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "compaction": {"keepRecentTokens": 1}}))
    rpc = Rpc(env)
    try:
        for i, text in enumerate(["first " * 50, "second " * 50]):
            rpc.send({"id": f"p{i}", "type": "prompt", "message": text})
            rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "c1", "type": "compact"})
        response = rpc.response("c1")
        assert response["success"] is True, json.dumps(response)
        result = response["data"]
        assert isinstance(result["estimatedTokensAfter"], int) and result["estimatedTokensAfter"] > 0
        assert (result["usage"]["input"], result["usage"]["output"]) == (400, 20)  # both summary calls
    finally:
        assert rpc.close() == 0
