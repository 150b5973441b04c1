"""RPC session commands, end to end: compact, fork, new/switch session, names, statistics and HTML export.

A real `pi --mode rpc` process is driven over stdin/stdout; what each command answers is checked
against what it left in the session files and what the next request to the loopback model carried.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli_sessions import MODEL, PI, PiEnv, conversation, lines_of, make_pi_env
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply, tool_reply


class RpcClient:
    def __init__(self, env: PiEnv) -> None:
        self.proc = subprocess.Popen(
            [*PI, "--mode", "rpc", *MODEL],
            cwd=env.cwd,
            env=env.vars,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._next = 0

    def _read_until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                stderr = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"pi exited: {stderr}")
            frame: dict[str, Any] = json.loads(line)
            if predicate(frame):
                return frame
        raise AssertionError("timed out waiting for RPC output")

    def call(self, command_type: str, **fields: Any) -> dict[str, Any]:
        """Send a command and return its response (which must be a success)."""
        self._next += 1
        command_id = f"c{self._next}"
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"id": command_id, "type": command_type, **fields}) + "\n")
        self.proc.stdin.flush()
        response = self._read_until(lambda f: f.get("type") == "response" and f.get("id") == command_id)
        assert response["success"] is True, response
        assert response["command"] == command_type
        return response

    def data(self, command_type: str, **fields: Any) -> Any:
        return self.call(command_type, **fields).get("data")

    def prompt(self, message: str) -> dict[str, Any]:
        """Prompt and wait for the run to end; returns the agent_end event."""
        self.call("prompt", message=message)
        return self._read_until(lambda f: f.get("type") == "agent_end")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=20)
        finally:
            self.proc.kill()


@pytest.fixture
def pi_env(server: ScriptedServer, tmp_path: Path) -> Iterator[PiEnv]:
    # keepRecentTokens small enough that compaction keeps only the last long prompt and what follows.
    yield make_pi_env(server, tmp_path, settings={"compaction": {"keepRecentTokens": 50}})


@pytest.fixture
def rpc(pi_env: PiEnv) -> Iterator[RpcClient]:
    client = RpcClient(pi_env)
    try:
        yield client
    finally:
        assert client.close() == 0


LONG = " and some detail" * 25  # about 100 tokens, more than keepRecentTokens


def test_compact_returns_the_result_and_the_next_request_starts_from_it(pi_env: PiEnv, rpc: RpcClient) -> None:
    pi_env.server.queue(
        text_reply("reply one"),
        text_reply("reply two"),
        text_reply("## Goal\nManual summary."),
        text_reply("reply three"),
    )
    rpc.prompt("first" + LONG)
    rpc.prompt("second" + LONG)
    result = rpc.data("compact", customInstructions="focus on the details")
    assert result["summary"] == "## Goal\nManual summary."
    assert result["tokensBefore"] == 110  # the last reply's usage
    path = Path(rpc.data("get_state")["sessionFile"])
    entries = lines_of(path)[1:]
    second = next(
        e
        for e in entries
        if e["type"] == "message"
        and e["message"]["role"] == "user"
        and e["message"]["content"][0]["text"].startswith("se")
    )
    assert result["firstKeptEntryId"] == second["id"]
    stored = entries[-1]
    assert stored["type"] == "compaction" and stored["summary"] == result["summary"]
    assert stored["firstKeptEntryId"] == second["id"] and stored["tokensBefore"] == 110

    summarize = pi_env.server.requests[2].json()
    assert "tools" not in summarize
    assert "Additional focus: focus on the details" in json.dumps(summarize["messages"])
    assert rpc.data("get_state")["messageCount"] == 4  # prompt checkpoint, summary, second prompt, its reply

    rpc.prompt("third")
    sent = conversation(pi_env.server.requests[3].json())
    assert "Manual summary." in sent[0][1]
    assert sent[1:] == [("user", "second" + LONG), ("assistant", "reply two"), ("user", "third")]

    # The statistics cover the whole file, as pi's do: messages the compaction took out of the
    # context still count, and so does the summary request's own usage.
    stats = rpc.data("get_session_stats")
    assert (stats["userMessages"], stats["assistantMessages"]) == (3, 3)
    written = lines_of(path)[1:]
    usages = [e["message"]["usage"] for e in written if e["type"] == "message" and e["message"]["role"] == "assistant"]
    usages += [e["usage"] for e in written if e["type"] == "compaction" and e.get("usage")]
    assert len(usages) == 4
    assert stats["tokens"]["output"] == sum(u["output"] for u in usages)
    assert stats["tokens"]["input"] == sum(u["input"] for u in usages)
    assert stats["totalMessages"] == sum(1 for e in written if e["type"] == "message")


def test_session_name_stats_and_html_export(pi_env: PiEnv, rpc: RpcClient) -> None:
    pi_env.server.queue(tool_reply([("bash", {"command": "echo rpc-export"})]), text_reply("exported soon"))
    rpc.prompt("run the command")
    state = rpc.data("get_state")
    assert "sessionName" not in state
    assert rpc.call("set_session_name", name="  Release checklist  ").get("data") is None
    state = rpc.data("get_state")
    assert state["sessionName"] == "Release checklist"
    path = Path(state["sessionFile"])
    header, *entries = lines_of(path)
    assert state["sessionId"] == header["id"]
    assert entries[-1]["type"] == "session_info" and entries[-1]["name"] == "Release checklist"

    stats = rpc.data("get_session_stats")
    assert stats == {
        "sessionFile": str(path),
        "sessionId": header["id"],
        "userMessages": 1,
        "assistantMessages": 2,
        "toolCalls": 1,
        "toolResults": 1,
        "totalMessages": 5,
        "tokens": {"input": 200, "output": 30, "cacheRead": 0, "cacheWrite": 0, "total": 230},
        "cost": 0,
        # The last reply's usage against the model's window.
        "contextUsage": {"tokens": 110, "contextWindow": 100000, "percent": 0.11},
    }

    exported = rpc.data("export_html", outputPath="out/session.html")
    assert exported == {"path": str(pi_env.cwd / "out" / "session.html")}
    page = Path(exported["path"]).read_text()
    assert "echo rpc-export" in page and "exported soon" in page and "Release checklist" in page
    default = rpc.data("export_html")
    assert Path(default["path"]) == pi_env.cwd / f"pi-session-{path.stem}.html"
    assert Path(default["path"]).is_file()


def test_fork_new_session_and_switch_back(pi_env: PiEnv, rpc: RpcClient) -> None:
    pi_env.server.queue(text_reply("r1"), text_reply("r2"), text_reply("r2 again"), text_reply("r3"))
    rpc.prompt("q1")
    rpc.prompt("q2")
    original = Path(rpc.data("get_state")["sessionFile"])
    original_id = lines_of(original)[0]["id"]

    forkable = rpc.data("get_fork_messages")["messages"]
    assert [m["text"] for m in forkable] == ["q1", "q2"]
    ids = {e["id"] for e in lines_of(original)[1:]}
    assert all(m["entryId"] in ids for m in forkable)
    assert rpc.data("fork", entryId=forkable[1]["entryId"]) == {"text": "q2", "cancelled": False}

    forked_state = rpc.data("get_state")
    forked = Path(forked_state["sessionFile"])
    assert forked != original and forked.parent == original.parent
    assert forked_state["messageCount"] == 3  # the prompt, q1 and r1: the fork stops before the chosen message
    header, *copied = lines_of(forked)
    assert header["parentSession"] == str(original) and header["id"] == forked_state["sessionId"]
    original_bytes = original.read_bytes()
    rpc.prompt("q2, rephrased")
    assert conversation(pi_env.server.requests[-1].json()) == [
        ("user", "q1"),
        ("assistant", "r1"),
        ("user", "q2, rephrased"),
    ]
    assert original.read_bytes() == original_bytes
    assert lines_of(forked)[1 : 1 + len(copied)] == copied

    assert rpc.data("new_session") == {"cancelled": False}
    fresh = rpc.data("get_state")
    assert fresh["sessionId"] not in (original_id, header["id"])
    assert fresh["messageCount"] == 0 and fresh["sessionFile"] not in (str(original), str(forked))

    assert rpc.data("switch_session", sessionPath=str(original)) == {"cancelled": False}
    switched = rpc.data("get_state")
    assert switched["sessionId"] == original_id and switched["sessionFile"] == str(original)
    assert switched["messageCount"] == 5
    rpc.prompt("q3")
    assert conversation(pi_env.server.requests[-1].json()) == [
        ("user", "q1"),
        ("assistant", "r1"),
        ("user", "q2"),
        ("assistant", "r2"),
        ("user", "q3"),
    ]
    grown = original.read_bytes()
    assert grown.startswith(original_bytes) and len(grown.splitlines()) == len(original_bytes.splitlines()) + 2
