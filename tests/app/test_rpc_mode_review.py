"""RPC mode edge cases: commands that must reach a running command, unusual input, strict framing."""

from __future__ import annotations

import io
import json
import subprocess
import time
from pathlib import Path
from typing import Any

from pi.app.modes.jsonl import JsonlWriter
from tests.app.test_cli_e2e import Rpc
from tests.app.test_cli_sessions import make_pi_env
from tests.app.test_rpc_sessions import LONG, RpcClient
from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import ScriptedResponse, ScriptedServer
from tests.support.openai_chunks import text_reply


def test_abort_bash_reaches_a_running_bash_command(env: Env) -> None:
    rpc = Rpc(env)
    try:
        rpc.send({"id": "b1", "type": "bash", "command": "echo running; sleep 30"})
        update = rpc.read_until(lambda o: o.get("type") == "bash_execution_update")
        assert update == {"type": "bash_execution_update", "id": "b1", "delta": "running\n"}
        started = time.monotonic()
        rpc.send({"id": "x1", "type": "abort_bash"})
        bash = rpc.response("b1")
        assert time.monotonic() - started < 10
        assert bash["success"] is True and bash["data"]["cancelled"] is True
        stop = next(o for o in rpc.seen if o.get("id") == "x1")
        assert stop["success"] is True
    finally:
        rpc.close()


def test_commands_are_read_from_a_regular_file(env: Env) -> None:
    commands = env.cwd / "commands.jsonl"
    commands.write_text(json.dumps({"id": "s1", "type": "get_state"}) + "\n")
    with commands.open("rb") as stdin:
        done = subprocess.run(
            [*PI, "--mode", "rpc", *MODEL], cwd=env.cwd, env=env.vars, stdin=stdin, capture_output=True, timeout=30
        )
    assert done.returncode == 0, done.stderr.decode()
    frames = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert frames[0]["id"] == "s1" and frames[0]["success"] is True


def test_a_lone_surrogate_in_a_command_does_not_end_the_process(env: Env) -> None:
    rpc = Rpc(env)
    try:
        # "\ud800" is a valid JSON escape that decodes to a lone surrogate.
        rpc.send('{"id":"\\ud800","type":"get_state"}')
        rpc.send({"id": "s2", "type": "get_state"})
        assert rpc.response("s2")["success"] is True
        first = rpc.seen[0]
        assert first["id"] == "\ud800" and first["success"] is True
    finally:
        assert rpc.close() == 0


def test_writer_escapes_lone_surrogates_like_json_stringify() -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    writer = JsonlWriter(out)
    writer.write({"text": "a\ud83db\u2028c\U0001f600"})
    out.seek(0)
    line = out.buffer.getvalue().decode("utf-8")
    assert line == '{"text":"a\\ud83db\u2028c\U0001f600"}\n'
    assert json.loads(line) == {"text": "a\ud83db\u2028c\U0001f600"}


def test_abort_reaches_a_running_manual_compaction(server: ScriptedServer, tmp_path: Path) -> None:
    pi_env = make_pi_env(server, tmp_path, settings={"compaction": {"keepRecentTokens": 50}})
    summary = ScriptedResponse(chunks=[], hold_open=30)  # the summary request never answers
    server.queue(text_reply("reply one"), text_reply("reply two"), summary)
    rpc = RpcClient(pi_env)
    try:
        rpc.prompt("first" + LONG)
        rpc.prompt("second" + LONG)
        assert rpc.proc.stdin is not None
        rpc.proc.stdin.write(json.dumps({"id": "c1", "type": "compact"}) + "\n")
        rpc.proc.stdin.flush()
        while len(server.requests) < 3:
            time.sleep(0.05)
        started = time.monotonic()
        rpc.proc.stdin.write(json.dumps({"id": "abort-1", "type": "abort"}) + "\n")
        rpc.proc.stdin.flush()
        # abort answers once the compaction has ended, so the two responses may come in either order.
        responses: dict[str, dict[str, Any]] = {}
        while len(responses) < 2:
            frame = rpc._read_until(lambda f: f.get("id") in ("c1", "abort-1") and f.get("type") == "response")
            responses[frame["id"]] = frame
        compact = responses["c1"]
        assert responses["abort-1"]["success"] is True
        assert time.monotonic() - started < 10
        assert compact["success"] is False and compact["error"] == "Compaction cancelled"
        assert rpc.data("get_state")["isCompacting"] is False
    finally:
        rpc.close()
