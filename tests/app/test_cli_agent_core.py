"""The real `pi` process: PI_* variables for commands, and an abort in the middle of a tool call."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pi.ai.faux import FauxProvider
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from pi.tools.bash import BashParams
from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply


def test_bash_sees_the_session_variables_and_the_process_markers(env: Env) -> None:
    command = "echo $PI_MODEL $AI_AGENT $PI_CODING_AGENT $PI_PROVIDER $PI_REASONING_LEVEL $PI_SESSION_ID"
    env.server.queue(tool_reply([("bash", {"command": command})]), text_reply("seen"))
    done = env.run("-p", *MODEL, "--thinking", "low", "show the variables")
    assert done.returncode == 0, done.stderr
    tool_message = next(m for m in env.server.requests[-1].json()["messages"] if m["role"] == "tool")
    words = str(tool_message["content"]).split()
    assert words[:5] == ["fake-model", "pi", "true", "fake", "off"]  # fake-model does not reason: "off"
    session_file = next((env.agent_dir / "sessions").rglob("*.jsonl"))
    header = json.loads(session_file.read_text().splitlines()[0])
    assert words[5] == header["id"]


async def test_bash_reads_the_variables_when_each_command_starts(faux: FauxProvider, tmp_path: Path) -> None:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            tool_names=["bash"],
            settings=SettingsManager.in_memory(),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )
    bash = next(tool for tool in session.tools if tool.name == "bash")

    async def model_seen() -> str:
        result = await bash.execute("c", BashParams(command="echo $PI_MODEL:$PI_SESSION_ID"), None, None)
        return "".join(getattr(block, "text", "") for block in result.content).strip()

    assert await model_seen() == f"{faux.model.id}:{session.session_id}"
    session.set_model(faux.model.model_copy(update={"id": "second-model"}))
    await session.new_session()
    assert await model_seen() == f"second-model:{session.session_id}"


def test_rpc_abort_during_a_long_bash_call_answers_promptly_and_sends_nothing_more(env: Env) -> None:
    env.server.queue(tool_reply([("bash", {"command": "sleep 60"})]), text_reply("should never be asked"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "wait a minute"})
        assert rpc.response("p1")["data"] == {"disposition": "started"}
        rpc.read_until(lambda o: o.get("type") == "tool_execution_start")
        rpc.send({"id": "s1", "type": "steer", "message": "steer text"})
        rpc.send({"id": "f1", "type": "follow_up", "message": "follow-up text"})
        assert rpc.response("f1")["data"] == {"disposition": "queued"}
        started = time.monotonic()
        rpc.send({"id": "a1", "type": "abort"})
        assert rpc.response("a1")["success"] is True
        assert time.monotonic() - started < 10
        rpc.send({"id": "g1", "type": "get_state"})
        state = rpc.response("g1")["data"]
        assert state["isStreaming"] is False and state["pendingMessageCount"] == 2
        queue = [o for o in rpc.seen if o.get("type") == "queue_update"][-1]
        assert queue == {"type": "queue_update", "steering": ["steer text"], "followUp": ["follow-up text"]}
        assert any(o.get("type") == "agent_settled" and o["aborted"] is True for o in rpc.seen)
        rpc.send({"id": "c1", "type": "clear_queue"})
        assert rpc.response("c1")["data"] == {"steering": ["steer text"], "followUp": ["follow-up text"]}
    finally:
        assert rpc.close() == 0
    assert len(env.server.requests) == 1
