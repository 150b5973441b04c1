"""The real `pi` process, end to end, against a loopback OpenAI-compatible model configured in models.json."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import json_response
from tests.support.openai_chunks import text_reply, tool_reply


def test_scripted_tool_sequence_leaves_files_and_prints_final_text(env: Env) -> None:
    env.server.queue(
        tool_reply([("bash", {"command": "echo one > from_bash.txt"})]),
        tool_reply([("write", {"path": "notes.txt", "content": "alpha\nbeta\n"})]),
        tool_reply([("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]})]),
        tool_reply([("read", {"path": "notes.txt"})]),
        text_reply("All done."),
    )
    done = env.run("-p", *MODEL, "make the files")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "All done.\n"
    assert (env.cwd / "from_bash.txt").read_text() == "one\n"
    assert (env.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    # The model saw each tool's result: the last request carries the read result with the edited text.
    last = env.server.requests[-1].json()
    tool_messages = [m for m in last["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 4
    assert "alpha\ngamma" in tool_messages[-1]["content"]
    assert last["messages"][0]["role"] in ("system", "developer")
    assert env.server.requests[0].headers["authorization"] == "Bearer test-key"


def test_json_mode_prints_header_then_every_event(env: Env) -> None:
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("ok"))
    done = env.run("--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    header = lines[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(env.cwd)
    types = [line["type"] for line in lines[1:]]
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "agent_settled"]
    for expected in (
        "turn_start",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "turn_end",
    ):
        assert expected in types
    end = next(line for line in lines if line["type"] == "tool_execution_end")
    assert end["toolName"] == "bash" and end["isError"] is False
    assert end["result"]["content"][0]["text"].strip() == "hi"
    update = next(line for line in lines if line["type"] == "message_update")
    assert "assistantMessageEvent" in update and "contentIndex" in json.dumps(update)


def test_stdin_is_the_first_message_and_forces_print_mode(env: Env) -> None:
    env.server.queue(text_reply("piped answer"))
    done = env.run(*MODEL, stdin="summarise this text")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "piped answer\n"
    user = [m for m in env.server.requests[0].json()["messages"] if m["role"] == "user"]
    assert "summarise this text" in json.dumps(user)


def test_at_file_is_inlined(env: Env) -> None:
    (env.cwd / "spec.md").write_text("the spec body")
    env.server.queue(text_reply("read it"))
    done = env.run("-p", *MODEL, "@spec.md", "what does it say?")
    assert done.returncode == 0, done.stderr
    body = json.dumps(env.server.requests[0].json()["messages"])
    assert f'<file name=\\"{env.cwd / "spec.md"}\\">\\nthe spec body\\n</file>\\nwhat does it say?' in body


def test_bad_flag_exits_1_naming_the_choices(env: Env) -> None:
    done = env.run("--mode", "yaml", "x")
    assert done.returncode == 1
    assert 'Invalid mode "yaml". Valid values: text, json, rpc' in done.stderr
    assert env.server.requests == []


def test_missing_at_file_exits_1(env: Env) -> None:
    done = env.run("-p", *MODEL, "@nope.txt", "x")
    assert done.returncode == 1
    assert f"Error: File not found: {env.cwd / 'nope.txt'}" in done.stderr


def test_unknown_model_exits_1(env: Env) -> None:
    done = env.run("-p", "--model", "no-such-model-anywhere", "x")
    assert done.returncode == 1
    assert 'Model "no-such-model-anywhere" not found. Use --list-models to see available models.' in done.stderr


def test_no_api_key_names_the_provider_and_the_fix(env: Env) -> None:
    done = env.run("-p", "--provider", "anthropic", "--model", "claude-opus-4-6", "x")
    assert done.returncode == 1
    assert "No API key found for anthropic" in done.stderr
    assert "ANTHROPIC_API_KEY" in done.stderr


def test_server_error_500_exits_1_after_retries(env: Env) -> None:
    failure = {"error": {"message": "internal server error", "type": "server_error"}}
    for _ in range(20):
        env.server.queue(json_response(500, failure, headers={"retry-after": "0"}))
    done = env.run("-p", *MODEL, "x")
    assert done.returncode == 1
    assert "500" in done.stderr and "internal server error" in done.stderr
    assert len(env.server.requests) > 1


def test_context_overflow_error_exits_1_with_the_message(env: Env) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    for _ in range(4):
        env.server.queue(json_response(400, body))
    done = env.run("-p", *MODEL, "x")
    assert done.returncode == 1
    assert "maximum context length is 8192 tokens" in done.stderr


def test_list_models_shows_models_with_keys(env: Env) -> None:
    done = env.run("--list-models", "fake")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert done.stdout.splitlines()[1].split()[:3] == ["fake", "fake-model", "100K"]


def test_api_key_flag_is_used_and_never_written(env: Env) -> None:
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "--api-key", "sk-runtime-secret", "x")
    assert done.returncode == 0, done.stderr
    assert env.server.requests[0].headers["authorization"] == "Bearer sk-runtime-secret"
    for path in env.agent_dir.rglob("*"):
        if path.is_file():
            assert "sk-runtime-secret" not in path.read_text(errors="replace"), path


def test_no_prompt_on_a_terminal_explains_print_mode(env: Env) -> None:
    done = subprocess.run(
        [*PI], cwd=env.cwd, env=env.vars, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30
    )
    # Nothing piped and no prompt: the message explains how to run one.
    assert "pi -p" in done.stderr


class Rpc:
    def __init__(self, env: Env, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*PI, "--mode", "rpc", *MODEL, *args],
            cwd=env.cwd,
            env=env.vars,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.seen: list[dict[str, Any]] = []

    def send(self, command: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((command if isinstance(command, str) else json.dumps(command)) + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"pi exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
            obj: dict[str, Any] = json.loads(line)
            self.seen.append(obj)
            if predicate(obj):
                return obj
        raise AssertionError("timed out waiting for RPC output")

    def response(self, command_id: str) -> dict[str, Any]:
        return self.read_until(lambda o: o.get("type") == "response" and o.get("id") == command_id)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)


def test_rpc_round_trips(env: Env) -> None:
    env.server.queue(text_reply("first answer"))
    rpc = Rpc(env)
    try:
        rpc.send({"id": "s1", "type": "get_state"})
        state = rpc.response("s1")
        assert state["success"] is True and state["command"] == "get_state"
        assert state["data"]["model"]["id"] == "fake-model" and state["data"]["isStreaming"] is False

        rpc.send("this is not json")
        parse = rpc.read_until(lambda o: o.get("command") == "parse")
        assert parse["success"] is False and parse["error"].startswith("Failed to parse command:")

        rpc.send({"id": "b1", "type": "bash", "command": "echo from-user-bash"})
        bash = rpc.response("b1")
        assert bash["data"]["output"].strip() == "from-user-bash" and bash["data"]["exitCode"] == 0

        rpc.send({"id": "p1", "type": "prompt", "message": "hello \u2028 there"})
        assert rpc.response("p1")["success"] is True
        rpc.read_until(lambda o: o.get("type") == "agent_end")
        request = env.server.requests[0].json()
        user_texts = json.dumps([m for m in request["messages"] if m["role"] == "user"], ensure_ascii=False)
        assert "Ran `echo from-user-bash`" in user_texts
        assert "hello \u2028 there" in user_texts

        rpc.send({"id": "m1", "type": "get_messages"})
        messages = rpc.response("m1")["data"]["messages"]
        assert [m["role"] for m in messages] == ["bashExecution", "system", "user", "assistant"]

        rpc.send({"id": "t1", "type": "get_last_assistant_text"})
        assert rpc.response("t1")["data"] == {"text": "first answer"}

        rpc.send({"id": "u1", "type": "no_such_command"})
        unknown = rpc.read_until(lambda o: o.get("command") == "no_such_command")
        assert unknown["error"] == "Unknown command: no_such_command"
    finally:
        assert rpc.close() == 0


def test_rpc_steer_follow_up_and_abort_during_a_slow_tool(env: Env) -> None:
    env.server.queue(
        tool_reply([("bash", {"command": "sleep 30"})]),
        text_reply("after abort"),
    )
    rpc = Rpc(env)
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "run it"})
        rpc.response("p1")
        rpc.read_until(lambda o: o.get("type") == "tool_execution_start")
        rpc.send({"id": "busy", "type": "prompt", "message": "again"})
        busy = rpc.response("busy")
        assert busy["success"] is False and "streamingBehavior" in busy["error"]
        rpc.send({"id": "st", "type": "steer", "message": "steer me"})
        assert rpc.response("st")["success"] is True
        rpc.send({"id": "fu", "type": "follow_up", "message": "later"})
        assert rpc.response("fu")["success"] is True
        started = time.monotonic()
        rpc.send({"id": "a1", "type": "abort"})
        assert rpc.response("a1")["success"] is True
        # abort answers once the run is over, so agent_end may already have been read.
        end = next((o for o in rpc.seen if o.get("type") == "agent_end"), None) or rpc.read_until(
            lambda o: o.get("type") == "agent_end"
        )
        assert time.monotonic() - started < 10
        assert any(m.get("stopReason") == "aborted" or m.get("isError") for m in end["messages"])
        rpc.send({"id": "s2", "type": "get_state"})
        assert rpc.response("s2")["data"]["isStreaming"] is False
    finally:
        rpc.close()


def test_expired_login_that_cannot_be_refreshed_says_so(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    (env.agent_dir / "auth.json").write_text(
        json.dumps({"anthropic": {"type": "oauth", "access": "old", "refresh": "r", "expires": 1}})
    )
    monkeypatch.setenv("PI_OAUTH_ENDPOINTS", json.dumps({"anthropic": env.server.url}))
    env.server.queue(json_response(400, {"error": "invalid_grant"}))
    done = env.run("-p", "--provider", "anthropic", "--model", "claude-opus-4-6", "x")
    assert done.returncode == 1
    assert "OAuth refresh failed for anthropic" in done.stderr
    assert [r.path for r in env.server.requests] == ["/v1/oauth/token"]


def test_flags_this_version_cannot_act_on_are_reported(env: Env) -> None:
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "-e", "my_ext.py", "x")
    assert done.returncode == 1
    assert f"Extension path does not exist: {env.cwd / 'my_ext.py'}" in done.stderr
    resume = env.run("-r", *MODEL)
    assert resume.returncode == 1
    assert "Use -c to continue the latest session" in resume.stderr
