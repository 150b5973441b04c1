"""RPC commands and shapes of pi 1.6.0: queues, thinking levels, entries, tree, clone, unknown commands."""

from __future__ import annotations

import json
import time

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply


def test_new_commands_and_their_shapes(env: Env) -> None:
    env.server.queue(text_reply("first answer"), text_reply("second answer"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "q1", "type": "clear_queue"})
        assert rpc.response("q1")["data"] == {"steering": [], "followUp": []}
        rpc.send({"id": "t1", "type": "get_available_thinking_levels"})
        assert rpc.response("t1")["data"] == {"levels": ["off"]}  # fake-model does not reason
        rpc.send({"id": "x1", "type": "nope"})
        unknown = rpc.response("x1")
        assert unknown == {
            "id": "x1",
            "type": "response",
            "command": "nope",
            "success": False,
            "error": "Unknown command: nope",
        }
        rpc.send({"id": "p1", "type": "prompt", "message": "hello"})
        assert rpc.response("p1")["data"] == {"disposition": "started"}
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "e1", "type": "get_entries"})
        entries = rpc.response("e1")["data"]
        assert [e["type"] for e in entries["entries"]] == [
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message",
        ]
        assert entries["leafId"] == entries["entries"][-1]["id"]
        rpc.send({"id": "e2", "type": "get_entries", "since": entries["leafId"]})
        assert rpc.response("e2")["data"]["entries"] == []
        rpc.send({"id": "e3", "type": "get_entries", "since": "no-such-id"})
        assert rpc.response("e3")["error"] == "Entry not found: no-such-id"
        rpc.send({"id": "g1", "type": "get_tree"})
        tree = rpc.response("g1")["data"]
        assert tree["leafId"] == entries["leafId"] and len(tree["tree"]) == 1
        rpc.send({"id": "s1", "type": "get_state"})
        before = rpc.response("s1")["data"]["sessionFile"]
        seen_before_clone = len(rpc.seen)
        rpc.send({"id": "c1", "type": "clone"})
        assert rpc.response("c1")["data"] == {"cancelled": False}
        # As in pi 1.6.0 the response alone tells of the move: `session_start` is an extension event, and
        # the new session's empty queues are no news.
        assert [o["type"] for o in rpc.seen[seen_before_clone:]] == ["response"]
        rpc.send({"id": "s2", "type": "get_state"})
        state = rpc.response("s2")["data"]
        assert state["sessionFile"] != before and state["messageCount"] == 3
        rpc.send({"id": "n1", "type": "set_session_name", "name": "cloned"})
        rpc.response("n1")
        assert {"type": "session_info_changed", "name": "cloned"} in rpc.seen
        rpc.send({"id": "b1", "type": "bash", "command": "echo private", "excludeFromContext": True})
        assert rpc.response("b1")["data"]["output"] == "private\n"
        rpc.send({"id": "p2", "type": "prompt", "message": "again"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        started = time.monotonic()
        assert rpc.close() == 0  # stdin EOF ends the process
        assert time.monotonic() - started < 10
    sent = json.dumps(env.server.requests[-1].json()["messages"])
    assert "private" not in sent and "first answer" in sent
