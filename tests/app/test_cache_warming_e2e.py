"""The `pi` process end to end: an idle RPC session re-sends its last request before the cache expires.

The model's `promptCache.short` lifetime in models.json is 11 seconds, so the refresh is due one
second after the reply (90 % of the lifetime, at least ten seconds before its end).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply

WARM_MODEL = {
    "id": "fake-model",
    "contextWindow": 100000,
    "maxTokens": 4096,
    "promptCache": {"short": 11},
    "cost": {"input": 1, "output": 1, "cacheRead": 0.1, "cacheWrite": 100000},
}


def _use_warm_model(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"] = [WARM_MODEL]
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def _prompt_and_wait_for_refresh(rpc: Rpc) -> dict[str, Any]:
    """Prompt once, wait for the run to settle, and return the `entry_appended` event of the refresh."""
    rpc.send({"id": "p1", "type": "prompt", "message": "hello"})
    rpc.read_until(lambda o: o.get("type") == "agent_settled")
    return rpc.read_until(lambda o: o.get("type") == "entry_appended")


def test_an_idle_session_refreshes_the_cache_with_a_one_token_request(env: Env) -> None:
    _use_warm_model(env)
    env.server.queue(text_reply("first answer"), text_reply("x", completion_tokens=1))
    rpc = Rpc(env)
    try:
        entry = _prompt_and_wait_for_refresh(rpc)["entry"]
        assert (entry["type"], entry["kind"], entry["provider"], entry["model"]) == (
            "usage",
            "cache_warm",
            "fake",
            "fake-model",
        )
        assert entry["usage"]["output"] == 1
        rpc.send({"id": "s1", "type": "get_state"})
        state = rpc.response("s1")["data"]
    finally:
        assert rpc.close() == 0
    real, warm = (request.json() for request in env.server.requests[:2])
    assert warm["messages"] == real["messages"]
    assert warm.get("tools") == real.get("tools")
    assert warm.get("max_completion_tokens", warm.get("max_tokens")) == 1
    stored = [json.loads(line) for line in Path(state["sessionFile"]).read_text(encoding="utf-8").splitlines()]
    assert [e["kind"] for e in stored if e.get("type") == "usage"] == ["cache_warm"]


def _stats(rpc: Rpc, command_id: str) -> dict[str, object]:
    rpc.send({"id": command_id, "type": "get_session_stats"})
    data: dict[str, object] = rpc.response(command_id)["data"]
    return data


def test_the_refresh_cost_counts_in_the_stats_live_and_after_the_session_is_resumed(env: Env) -> None:
    _use_warm_model(env)
    env.server.queue(text_reply("first answer"), text_reply("x", completion_tokens=1))
    rpc = Rpc(env)
    try:
        appended = _prompt_and_wait_for_refresh(rpc)
        live = _stats(rpc, "s1")
    finally:
        assert rpc.close() == 0
    session_file = str(live["sessionFile"])
    stored = [json.loads(line) for line in Path(session_file).read_text(encoding="utf-8").splitlines()]
    (reply,) = [e["message"] for e in stored if e.get("type") == "message" and e["message"]["role"] == "assistant"]
    warm = appended["entry"]["usage"]
    assert warm["cost"]["total"] > 0
    expected_cost = reply["usage"]["cost"]["total"] + warm["cost"]["total"]
    expected_output = reply["usage"]["output"] + warm["output"]
    assert live["cost"] == pytest.approx(expected_cost)
    assert live["tokens"]["output"] == expected_output  # type: ignore[index]

    resumed = Rpc(env, "--session", session_file)
    try:
        after = _stats(resumed, "s2")
        resumed.send({"id": "st", "type": "get_state"})
        assert resumed.response("st")["data"]["sessionFile"] == session_file
    finally:
        assert resumed.close() == 0
    assert after["cost"] == pytest.approx(expected_cost)
    assert after["tokens"] == live["tokens"]
    assert after["assistantMessages"] == 1
