"""`pi --mode rpc` end to end where pi 1.6.0 was compared side by side: the end of input, work sent
while a run streams, compaction's prompt checkpoint, unsaved sessions, the events on stdout, and the
answers to commands with missing or invalid fields."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from tests.app.test_cli_e2e import Rpc
from tests.app.test_rpc_sessions import LONG
from tests.support.cli_env import Env
from tests.support.http_server import ScriptedResponse
from tests.support.openai_chunks import text_reply, tool_reply


def _held(text: str) -> ScriptedResponse:
    """A reply that streams `text` and then keeps the connection open: the run is still streaming."""
    reply = text_reply(text)
    reply.hold_open = 30
    return reply


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its parent to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _session_entries(rpc: Rpc) -> list[dict[str, Any]]:
    rpc.send({"id": "state", "type": "get_state"})
    path = Path(rpc.response("state")["data"]["sessionFile"])
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


# -- R2: the end of stdin --------------------------------------------------------------------------


def test_end_of_input_during_a_tool_stops_the_run_and_its_command(env: Env) -> None:
    env.server.queue(
        tool_reply([("bash", {"command": 'sleep 60 & echo "child=$!"; wait'})]),
        text_reply("never asked for"),
    )
    rpc = Rpc(env)
    rpc.send({"id": "p1", "type": "prompt", "message": "run it"})
    update = rpc.read_until(
        lambda o: o.get("type") == "tool_execution_update" and re.search(r"child=\d", json.dumps(o)) is not None
    )
    found = re.search(r"child=(\d+)", json.dumps(update["partialResult"]))
    assert found is not None
    child = int(found.group(1))
    assert _running(child)
    started = time.monotonic()
    try:
        rest, _ = rpc.proc.communicate(timeout=10)  # closes stdin, then reads to the end
    finally:
        if rpc.proc.poll() is None:
            rpc.proc.kill()
    assert rpc.proc.returncode == 0
    assert time.monotonic() - started < 5
    assert rest == ""  # as pi: nothing is written once the client has gone
    assert not _running(child)
    assert len(env.server.requests) == 1


def test_end_of_input_while_a_reply_streams_aborts_it(env: Env) -> None:
    env.server.queue(_held("a reply that never ends"))
    rpc = Rpc(env)
    rpc.send({"id": "p1", "type": "prompt", "message": "talk"})
    rpc.read_until(lambda o: o.get("type") == "message_update")
    try:
        rest, _ = rpc.proc.communicate(timeout=10)  # closes stdin, then reads to the end
    finally:
        if rpc.proc.poll() is None:
            rpc.proc.kill()
    assert rpc.proc.returncode == 0 and "agent_settled" not in rest


# -- R3, R4: user bash and compaction sent while a run goes on -------------------------------------


def test_user_bash_during_a_run_is_stored_when_the_run_settles(env: Env) -> None:
    # The model's command waits for the user's, so the user's is sure to finish while the run goes on.
    env.server.queue(
        tool_reply([("bash", {"command": "while [ ! -f go ]; do sleep 0.05; done; echo released"})]),
        text_reply("all done"),
    )
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "wait for it"})
        rpc.read_until(lambda o: o.get("type") == "tool_execution_start")
        rpc.send({"id": "b1", "type": "bash", "command": "touch go; echo during"})
        assert rpc.response("b1")["data"]["output"] == "during\n"
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        stored = [e["message"] for e in _session_entries(rpc) if e["type"] == "message"]
        assert [m["role"] for m in stored][-1] == "bashExecution"
        assert stored[-1]["command"] == "touch go; echo during"
        assert [m["role"] for m in stored[-4:-1]] == ["assistant", "toolResult", "assistant"]
    finally:
        assert rpc.close() == 0


def _keep_little(env: Env) -> None:
    """keepRecentTokens small enough that a compaction keeps only the latest long prompt and after."""
    (env.agent_dir / "settings.json").write_text(
        json.dumps({"retry": {"baseDelayMs": 10}, "compaction": {"keepRecentTokens": 50}})
    )


def _two_long_prompts(rpc: Rpc) -> None:
    for index, text in enumerate(["first", "second"]):
        rpc.send({"id": f"long{index}", "type": "prompt", "message": text + LONG})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")


def test_compact_while_a_reply_streams_aborts_the_run_first(env: Env) -> None:
    _keep_little(env)
    env.server.queue(
        text_reply("reply one"), text_reply("reply two"), _held("streaming on"), text_reply("## Goal\nSum.")
    )
    rpc = Rpc(env)
    try:
        _two_long_prompts(rpc)
        start = len(rpc.seen)
        rpc.send({"id": "p3", "type": "prompt", "message": "third"})
        rpc.read_until(lambda o: o.get("type") == "message_update")
        rpc.send({"id": "c", "type": "compact"})
        result = rpc.response("c")
        assert result["success"] is True and result["data"]["summary"] == "## Goal\nSum."
        frames = rpc.seen[start:]
        kinds = [f.get("type") for f in frames]
        assert kinds.index("agent_settled") < kinds.index("compaction_start")
        ended = [f["message"] for f in frames if f.get("type") == "message_end"]
        assert ended[-1]["role"] == "assistant" and ended[-1]["stopReason"] == "aborted"
    finally:
        assert rpc.close() == 0


def test_an_extension_starting_a_new_session_sends_no_empty_queue_update(env: Env, tmp_path: Path) -> None:
    """As pi 1.6.0: nothing was queued, so nothing about the queue changed when the session did."""
    extension = tmp_path / "fresh.py"
    extension.write_text(
        "def setup(pi):\n"
        "    async def handler(args, ctx):\n"
        "        await ctx.new_session()\n"
        "    pi.register_command('fresh', handler, description='start over')\n"
    )
    env.server.queue(text_reply("first answer"))
    rpc = Rpc(env, "-e", str(extension))
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "one"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        start = len(rpc.seen)
        rpc.send({"id": "p2", "type": "prompt", "message": "/fresh"})
        assert rpc.response("p2")["data"] == {"disposition": "handled"}
        rpc.send({"id": "state", "type": "get_state"})
        assert rpc.response("state")["data"]["messageCount"] == 0
        assert [frame.get("type") for frame in rpc.seen[start:]] == ["response", "response"]
    finally:
        assert rpc.close() == 0


def test_queued_messages_leave_the_queue_in_the_turn_that_sends_them(env: Env) -> None:
    """The `queue_update` of a dequeued steering or follow-up message comes after its turn's
    `turn_start`, right before its `message_start` (pi 1.6.0's order)."""
    env.server.queue(
        tool_reply([("bash", {"command": "while [ ! -f go ]; do sleep 0.05; done; echo ok"})]),
        text_reply("steered answer"),
        text_reply("follow-up answer"),
    )
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "go"})
        rpc.read_until(lambda o: o.get("type") == "tool_execution_start")
        rpc.send({"id": "st", "type": "steer", "message": "steered"})
        rpc.response("st")
        rpc.send({"id": "fu", "type": "follow_up", "message": "later"})
        rpc.response("fu")
        (env.cwd / "go").touch()
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        shown = []
        for frame in rpc.seen:
            kind = frame.get("type")
            if kind == "queue_update":
                shown.append(f"queue {frame['steering']} {frame['followUp']}")
            elif kind == "turn_start" or (kind == "message_start" and frame["message"]["role"] == "user"):
                shown.append(kind)
        assert shown[-6:] == [
            "turn_start",
            "queue [] ['later']",
            "message_start",
            "turn_start",
            "queue [] []",
            "message_start",
        ]
    finally:
        assert rpc.close() == 0


# -- R5: the compacted context keeps its system message --------------------------------------------


def test_messages_after_a_compaction_start_with_the_prompt_checkpoint(env: Env) -> None:
    _keep_little(env)
    env.server.queue(text_reply("reply one"), text_reply("reply two"), text_reply("## Goal\nSum."), text_reply("3"))
    rpc = Rpc(env)
    try:
        _two_long_prompts(rpc)
        rpc.send({"id": "c", "type": "compact"})
        assert rpc.response("c")["success"] is True
        rpc.send({"id": "m", "type": "get_messages"})
        messages = rpc.response("m")["data"]["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "compactionSummary"]
        assert [t["name"] for t in messages[0]["toolsAdded"]] == ["read", "bash", "edit", "write"]
        assert "cwd" in messages[0]["sections"]
        compaction = next(e for e in _session_entries(rpc) if e["type"] == "compaction")
        assert compaction["systemMessage"] == messages[0]
        rpc.send({"id": "p", "type": "prompt", "message": "after"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    sent = env.server.requests[-1].json()["messages"]
    assert sent[0]["role"] == "system" and "coding assistant" in json.dumps(sent[0])


# -- R8: a session that was never saved -----------------------------------------------------------


def test_clone_before_anything_was_sent_says_the_session_is_not_saved(env: Env) -> None:
    rpc = Rpc(env)
    try:
        rpc.send({"id": "c1", "type": "clone"})
        answer = rpc.response("c1")
        assert answer["success"] is False
        assert answer["error"] == "This session has not been saved yet. Send a message before cloning or forking it."
        rpc.send({"id": "s1", "type": "get_state"})
        assert not Path(rpc.response("s1")["data"]["sessionFile"]).exists()
    finally:
        assert rpc.close() == 0


def test_clone_without_a_session_file_copies_from_memory(env: Env) -> None:
    rpc = Rpc(env, "--no-session")
    try:
        rpc.send({"id": "c1", "type": "clone"})
        answer = rpc.response("c1")
        assert answer["success"] is True and answer["data"] == {"cancelled": False}
    finally:
        assert rpc.close() == 0


# -- R11: only the events pi's RPC stream carries --------------------------------------------------


def test_model_and_session_changes_are_told_by_their_responses_only(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"].append({"id": "fake-other", "contextWindow": 100000, "maxTokens": 4096})
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    env.server.queue(text_reply("hello"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "hi"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        start = len(rpc.seen)
        commands = [
            {"id": "m1", "type": "set_model", "provider": "fake", "modelId": "fake-other"},
            {"id": "m2", "type": "cycle_model"},
            {"id": "c1", "type": "clone"},
            {"id": "n1", "type": "new_session"},
            {"id": "s1", "type": "get_state"},
        ]
        for command in commands:
            rpc.send(command)
            assert rpc.response(command["id"])["success"] is True
        assert [o["type"] for o in rpc.seen[start:]] == ["response"] * len(commands)
    finally:
        assert rpc.close() == 0


# -- R12: missing and invalid fields ---------------------------------------------------------------


def test_missing_and_invalid_fields_are_named(env: Env) -> None:
    rpc = Rpc(env)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"id": "x1"}, 'Missing required field "type" (the command name, e.g. "get_state")'),
        ({"id": "x2", "type": 5}, "Unknown command: 5"),
        ({"id": "m1", "type": "set_model", "provider": "fake"}, 'Missing required field "modelId"'),
        ({"id": "q1", "type": "set_steering_mode"}, 'Missing required field "mode". Valid values: all, one-at-a-time'),
        ({"id": "q2", "type": "set_follow_up_mode", "mode": "x"}, 'Invalid mode "x". Valid values: all, one-at-a-time'),
        (
            {"id": "t1", "type": "set_thinking_level"},
            'Missing required field "level". Valid values: off, minimal, low, medium, high, xhigh, max',
        ),
        ({"id": "p1", "type": "prompt"}, 'Missing required field "message"'),
        (
            {"id": "p2", "type": "prompt", "message": "hi", "streamingBehavior": "bogus"},
            'Invalid streamingBehavior "bogus". Valid values: steer, followUp',
        ),
    ]
    try:
        for command, error in cases:
            rpc.send(command)
            answer = rpc.response(command["id"])
            assert (answer["success"], answer["error"]) == (False, error)
            assert "None" not in json.dumps(answer)
        assert "command" not in next(o for o in rpc.seen if o.get("id") == "x1")
    finally:
        assert rpc.close() == 0
    assert env.server.requests == []


def test_nothing_to_cycle_answers_null_and_a_cancelled_bash_has_no_exit_code(env: Env) -> None:
    rpc = Rpc(env)
    try:
        rpc.send({"id": "c1", "type": "cycle_thinking_level"})  # fake-model does not reason
        assert rpc.response("c1") == {
            "id": "c1",
            "type": "response",
            "command": "cycle_thinking_level",
            "success": True,
            "data": None,
        }
        rpc.send({"id": "b1", "type": "bash", "command": "echo started; sleep 30"})
        rpc.read_until(lambda o: o.get("type") == "bash_execution_update")
        rpc.send({"id": "x1", "type": "abort_bash"})
        assert rpc.response("b1")["data"] == {"output": "started\n", "cancelled": True, "truncated": False}
    finally:
        assert rpc.close() == 0
