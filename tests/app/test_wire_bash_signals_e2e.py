"""The `pi` process end to end: a user command killed by a signal reports 128 + the signal, as pi 1.6.0 does.

Shells show such a command's status as 128 + n in ``$?``, and pi reports the same number in the RPC
`bash` response, in the stored `bashExecution` message and in the text the model reads about it.
"""

from __future__ import annotations

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply


def test_a_command_killed_by_sigkill_reports_137_everywhere(env: Env) -> None:
    env.server.queue(text_reply("seen"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "b", "type": "bash", "command": "echo before; kill -KILL $$"})
        data = rpc.response("b")["data"]
        assert data == {"output": "before\n", "exitCode": 137, "cancelled": False, "truncated": False}

        rpc.send({"id": "m", "type": "get_messages"})
        stored = rpc.response("m")["data"]["messages"][-1]
        assert (stored["role"], stored["exitCode"], stored["cancelled"]) == ("bashExecution", 137, False)

        rpc.send({"id": "p", "type": "prompt", "message": "what happened?"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        sent = env.server.requests[-1].json()["messages"]
        about_bash = next(m for m in sent if m["role"] == "user" and "Ran `" in str(m["content"]))
        assert "Command exited with code 137" in str(about_bash["content"])
    finally:
        assert rpc.close() == 0


def test_a_command_killed_by_sigterm_reports_143(env: Env) -> None:
    rpc = Rpc(env)
    try:
        rpc.send({"id": "b", "type": "bash", "command": "kill -TERM $$"})
        assert rpc.response("b")["data"]["exitCode"] == 143
    finally:
        assert rpc.close() == 0
