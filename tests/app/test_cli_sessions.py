"""Sessions on disk, end to end: the real `pi` process writing, continuing, opening, forking and exporting them.

Every test runs `pi` as a subprocess against the loopback Chat Completions server configured in
models.json, then reads the JSONL files it left under `$PI_CODING_AGENT_DIR/sessions/` and the
requests the server received. Signals (SIGKILL, SIGINT, SIGTERM) are sent to the real process.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi.session.manager import SessionManager
from tests.support.http_server import ScriptedServer, json_response
from tests.support.openai_chunks import text_reply, tool_reply

PI = [sys.executable, "-m", "pi"]
MODEL = ["--provider", "fake", "--model", "fake-model"]
SESSION_FILE_NAME = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$"
)
ENTRY_ID = re.compile(r"^[0-9a-f]{8}$")
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
DEFAULT_MODELS: list[dict[str, Any]] = [{"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}]


@dataclass
class PiEnv:
    """One isolated `pi` installation: agent dir, home and project dir, all pointing at one loopback server."""

    server: ScriptedServer
    agent_dir: Path
    cwd: Path

    @property
    def vars(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
        env["PI_CODING_AGENT_DIR"] = str(self.agent_dir)
        env["HOME"] = str(self.agent_dir.parent / "home")
        return env

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*PI, *args],
            cwd=cwd or self.cwd,
            env=self.vars,
            input="",
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*PI, *args],
            cwd=self.cwd,
            env=self.vars,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def project_sessions(self, cwd: Path | None = None) -> Path:
        project = str(cwd or self.cwd)
        return self.agent_dir / "sessions" / ("--" + project.lstrip("/").replace("/", "-") + "--")

    def session_files(self) -> list[Path]:
        return sorted(self.agent_dir.rglob("*.jsonl"))

    def only_session_file(self) -> Path:
        files = self.session_files()
        assert len(files) == 1, files
        return files[0]


def make_pi_env(
    server: ScriptedServer,
    root: Path,
    *,
    models: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
) -> PiEnv:
    agent_dir = root / "agent"
    agent_dir.mkdir()
    (root / "home").mkdir()
    cwd = root / "project"
    cwd.mkdir()
    provider = {
        "baseUrl": f"{server.url}/v1",
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": models or DEFAULT_MODELS,
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}, **(settings or {})}))
    return PiEnv(server, agent_dir, cwd.resolve())


@pytest.fixture
def pi_env(server: ScriptedServer, tmp_path: Path) -> Iterator[PiEnv]:
    yield make_pi_env(server, tmp_path)


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def conversation(request_body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of each message after the system prompt, tool calls written as `name(args)`."""
    out: list[tuple[str, str]] = []
    for message in request_body["messages"]:
        role = message["role"]
        if role in ("system", "developer"):
            continue
        content = message.get("content")
        text = "".join(part.get("text", "") for part in content) if isinstance(content, list) else content or ""
        for call in message.get("tool_calls") or []:
            text += f"{call['function']['name']}({json.dumps(json.loads(call['function']['arguments']))})"
        out.append((role, text))
    return out


def processes_with(token: str) -> list[int]:
    """Pids whose command line contains `token` (a unique string put into a shell command)."""
    found = []
    needle = token.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def wait_for(predicate: Any, timeout: float = 15, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def kill_processes_with(token: str) -> None:
    for pid in processes_with(token):
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except OSError:
            continue


# --- where and what is written --------------------------------------------------------------------


def test_one_exchange_writes_header_model_thinking_user_assistant_in_order(pi_env: PiEnv) -> None:
    pi_env.server.queue(text_reply("Hello there."))
    done = pi_env.run("-p", *MODEL, "Say hello.")
    assert done.returncode == 0, done.stderr
    path = pi_env.only_session_file()
    assert path.parent == pi_env.project_sessions()
    name = SESSION_FILE_NAME.match(path.name)
    assert name is not None, path.name
    lines = lines_of(path)
    header = lines[0]
    assert header == {
        "type": "session",
        "version": 3,
        "id": name.group(1),
        "timestamp": header["timestamp"],
        "cwd": str(pi_env.cwd),
    }
    assert path.name.startswith(header["timestamp"].replace(":", "-").replace(".", "-") + "_")
    entries = lines[1:]
    assert [e["type"] for e in entries] == ["model_change", "thinking_level_change", "message", "message", "message"]
    parent = None
    for entry in entries:
        assert list(entry)[:4] == ["type", "id", "parentId", "timestamp"]
        assert ENTRY_ID.match(entry["id"]) and ISO_TIME.match(entry["timestamp"])
        assert entry["parentId"] == parent
        parent = entry["id"]
    assert entries[0]["provider"] == "fake" and entries[0]["modelId"] == "fake-model"
    assert entries[1]["thinkingLevel"] == "off"  # the model has no reasoning
    assert entries[2]["message"]["role"] == "system"
    user, assistant = entries[3]["message"], entries[4]["message"]
    assert user == {"role": "user", "content": [{"type": "text", "text": "Say hello."}], "timestamp": user["timestamp"]}
    assert isinstance(user["timestamp"], int)
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [{"type": "text", "text": "Hello there."}]
    assert (assistant["api"], assistant["provider"], assistant["model"]) == ("openai-completions", "fake", "fake-model")
    assert assistant["stopReason"] == "stop" and isinstance(assistant["timestamp"], int)
    assert set(assistant["usage"]) == {"input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens", "cost"}
    assert assistant["usage"]["input"] == 100 and assistant["usage"]["totalTokens"] == 110
    assert {"input", "output", "cacheRead", "cacheWrite", "total"} <= set(assistant["usage"]["cost"])


def test_no_file_before_any_reply_but_a_failed_reply_is_kept(pi_env: PiEnv) -> None:
    # Failing before the model is asked (no key for the provider): nothing may be written.
    missing_key = pi_env.run("-p", "--provider", "anthropic", "--model", "claude-opus-4-6", "x")
    assert missing_key.returncode == 1 and "No API key found for anthropic" in missing_key.stderr
    assert pi_env.session_files() == []
    # A request the server rejects still ends in an assistant message (stopReason error): the
    # exchange is recorded, as pi records it, so `-c` can pick up from there.
    pi_env.server.queue(json_response(400, {"error": {"message": "unsupported parameter", "type": "invalid_request"}}))
    failed = pi_env.run("-p", *MODEL, "please fail")
    assert failed.returncode == 1 and "unsupported parameter" in failed.stderr
    entries = lines_of(pi_env.only_session_file())[1:]
    assert [e.get("message", {}).get("role") for e in entries] == [None, None, "system", "user", "assistant"]
    error = entries[-1]["message"]
    assert error["stopReason"] == "error" and "unsupported parameter" in error["errorMessage"]


def test_no_session_writes_nothing(pi_env: PiEnv) -> None:
    pi_env.server.queue(text_reply("ok"))
    done = pi_env.run("-p", "--no-session", *MODEL, "x")
    assert done.returncode == 0 and done.stdout == "ok\n"
    assert list(pi_env.agent_dir.parent.rglob("*.jsonl")) == []


def test_session_dir_is_where_sessions_are_written_and_continued(pi_env: PiEnv, tmp_path: Path) -> None:
    custom = tmp_path / "custom-sessions"
    pi_env.server.queue(text_reply("stored elsewhere"), text_reply("continued"))
    first = pi_env.run("-p", "--session-dir", str(custom), *MODEL, "first")
    assert first.returncode == 0, first.stderr
    files = list(custom.glob("*.jsonl"))
    assert len(files) == 1 and SESSION_FILE_NAME.match(files[0].name)
    assert not (pi_env.agent_dir / "sessions").exists()
    second = pi_env.run("-p", "-c", "--session-dir", str(custom), *MODEL, "second")
    assert second.returncode == 0, second.stderr
    assert conversation(pi_env.server.requests[1].json()) == [
        ("user", "first"),
        ("assistant", "stored elsewhere"),
        ("user", "second"),
    ]
    assert list(custom.glob("*.jsonl")) == files


# --- opening sessions again -----------------------------------------------------------------------


def test_continue_picks_the_newest_session_and_appends_to_it(pi_env: PiEnv) -> None:
    pi_env.server.queue(text_reply("answer A"), text_reply("answer B"), text_reply("answer A2"))
    assert pi_env.run("-p", *MODEL, "question A").returncode == 0
    file_a = pi_env.only_session_file()
    assert pi_env.run("-p", *MODEL, "question B").returncode == 0
    file_b = next(f for f in pi_env.session_files() if f != file_a)
    # Newest by modification time, not by name: make A the most recently written.
    now = time.time()
    os.utime(file_b, (now - 60, now - 60))
    os.utime(file_a, (now, now))
    before = file_a.read_bytes()
    done = pi_env.run("-p", "-c", *MODEL, "question A2")
    assert done.returncode == 0 and done.stdout == "answer A2\n", done.stderr
    assert conversation(pi_env.server.requests[2].json()) == [
        ("user", "question A"),
        ("assistant", "answer A"),
        ("user", "question A2"),
    ]
    after = file_a.read_bytes()
    assert after.startswith(before) and len(after) > len(before)
    assert sorted(pi_env.session_files()) == sorted([file_a, file_b])
    grown = lines_of(file_a)
    assert [e["message"]["role"] for e in grown[-2:]] == ["user", "assistant"]
    assert grown[-2]["parentId"] == json.loads(before.decode().splitlines()[-1])["id"]


def test_continue_without_sessions_starts_a_new_one(pi_env: PiEnv) -> None:
    pi_env.server.queue(text_reply("fresh"))
    done = pi_env.run("-p", "-c", *MODEL, "hello")
    assert done.returncode == 0, done.stderr
    assert conversation(pi_env.server.requests[0].json()) == [("user", "hello")]
    assert len(pi_env.session_files()) == 1


def test_session_by_path_and_by_id_prefix(pi_env: PiEnv) -> None:
    pi_env.server.queue(text_reply("one"), text_reply("two"), text_reply("three"))
    assert pi_env.run("-p", *MODEL, "first").returncode == 0
    path = pi_env.only_session_file()
    session_id = lines_of(path)[0]["id"]
    by_path = pi_env.run("-p", "--session", str(path), *MODEL, "second")
    assert by_path.returncode == 0, by_path.stderr
    by_prefix = pi_env.run("-p", "--session", session_id[:6], *MODEL, "third")
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert conversation(pi_env.server.requests[2].json()) == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
        ("assistant", "two"),
        ("user", "third"),
    ]
    assert pi_env.session_files() == [path]
    assert len(lines_of(path)) == 1 + 2 + 1 + 6


def test_unknown_session_exits_1(pi_env: PiEnv) -> None:
    done = pi_env.run("-p", "--session", "nonexistent", *MODEL, "x")
    assert done.returncode == 1
    assert "No session found matching 'nonexistent'" in done.stderr
    assert pi_env.server.requests == [] and pi_env.session_files() == []


def test_other_projects_session_by_id_asks_for_fork_and_stops_without_a_yes(pi_env: PiEnv, tmp_path: Path) -> None:
    pi_env.server.queue(text_reply("in project"))
    assert pi_env.run("-p", *MODEL, "hello").returncode == 0
    source = pi_env.only_session_file()
    session_id = lines_of(source)[0]["id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = pi_env.run("-p", "--session", session_id[:8], *MODEL, "x", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert f"Session found in different project: {pi_env.cwd}" in done.stderr
    assert done.stderr.endswith("Aborted.\n")
    assert len(pi_env.server.requests) == 1 and pi_env.session_files() == [source]


def test_fork_by_id_copies_the_session_into_a_new_file(pi_env: PiEnv, tmp_path: Path) -> None:
    pi_env.server.queue(tool_reply([("bash", {"command": "echo forked-source"})]), text_reply("done"))
    assert pi_env.run("-p", *MODEL, "run it").returncode == 0
    source = pi_env.only_session_file()
    source_bytes = source.read_bytes()
    session_id = lines_of(source)[0]["id"]
    elsewhere = (tmp_path / "elsewhere").resolve()
    elsewhere.mkdir()
    pi_env.server.queue(text_reply("continuing the copy"))
    done = pi_env.run("-p", "--fork", session_id[:8], *MODEL, "and now?", cwd=elsewhere)
    assert done.returncode == 0 and done.stdout == "continuing the copy\n", done.stderr
    assert conversation(pi_env.server.requests[-1].json()) == [
        ("user", "run it"),
        ("assistant", 'bash({"command": "echo forked-source"})'),
        ("tool", "forked-source\n"),
        ("assistant", "done"),
        ("user", "and now?"),
    ]
    assert source.read_bytes() == source_bytes
    forks = list(pi_env.project_sessions(elsewhere).glob("*.jsonl"))
    assert len(forks) == 1
    fork_lines = lines_of(forks[0])
    header = fork_lines[0]
    assert header["parentSession"] == str(source) and header["cwd"] == str(elsewhere)
    assert header["id"] != session_id
    # The copied entries keep their ids; the new exchange hangs off the copied leaf.
    source_entries = lines_of(source)[1:]
    assert fork_lines[1 : 1 + len(source_entries)] == source_entries
    assert fork_lines[1 + len(source_entries)]["parentId"] == source_entries[-1]["id"]


def test_export_writes_escaped_html_and_reports_errors(pi_env: PiEnv, tmp_path: Path) -> None:
    pi_env.server.queue(text_reply("I will not run <b>that</b>."))
    assert pi_env.run("-p", *MODEL, "hi <script>alert('x')</script>").returncode == 0
    source = pi_env.only_session_file()
    out = tmp_path / "exported.html"
    done = pi_env.run("--export", str(source), str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Exported to: {out}\n"
    page = out.read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert "<script>alert(" not in page
    assert "&lt;script&gt;alert(" in page
    assert "&lt;b&gt;that&lt;/b&gt;" in page
    missing = pi_env.run("--export", str(tmp_path / "missing.jsonl"), str(tmp_path / "x.html"))
    assert missing.returncode == 1 and missing.stderr.startswith("Error: ")
    assert "missing.jsonl" in missing.stderr and not (tmp_path / "x.html").exists()


# --- signals --------------------------------------------------------------------------------------


def test_sigkill_mid_tool_leaves_a_loadable_file_that_continue_resumes(pi_env: PiEnv) -> None:
    token = f"29.{uuid.uuid4().int % 10**6:06d}"
    pi_env.server.queue(
        tool_reply([("bash", {"command": "echo first-step"})]),
        tool_reply([("bash", {"command": f"sleep {token}; echo never"})]),
    )
    proc = pi_env.popen("-p", *MODEL, "do the long thing")
    try:
        wait_for(lambda: processes_with(token), what="the slow command to start")
        path = pi_env.only_session_file()
        wait_for(lambda: token in path.read_text(), what="the tool call to be written")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        kill_processes_with(token)
    raw = path.read_text()
    assert raw.endswith("\n")
    written = [json.loads(line) for line in raw.splitlines()]
    manager = SessionManager.open(path)
    assert manager.warnings == []
    assert [e.id for e in manager.get_entries()] == [e["id"] for e in written[1:]]
    roles = [e["message"]["role"] for e in written if e["type"] == "message"]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]
    assert manager.get_leaf_id() == written[-1]["id"]

    before = path.read_bytes()
    pi_env.server.queue(text_reply("picked up again"))
    done = pi_env.run("-p", "-c", *MODEL, "what happened?")
    assert done.returncode == 0 and done.stdout == "picked up again\n", done.stderr
    sent = conversation(pi_env.server.requests[-1].json())
    assert sent[:4] == [
        ("user", "do the long thing"),
        ("assistant", 'bash({"command": "echo first-step"})'),
        ("tool", "first-step\n"),
        ("assistant", f'bash({{"command": "sleep {token}; echo never"}})'),
    ]
    # The call that never finished gets a placeholder result, so the request is valid for the API.
    assert sent[4][0] == "tool" and sent[-1] == ("user", "what happened?")
    after = path.read_bytes()
    assert after.startswith(before) and len(after) > len(before)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_during_bash_ends_pi_and_its_commands(pi_env: PiEnv, sig: signal.Signals) -> None:
    token = f"31.{uuid.uuid4().int % 10**6:06d}"
    pi_env.server.queue(tool_reply([("bash", {"command": f"sleep {token}; echo after-sleep"})]), text_reply("never"))
    proc = pi_env.popen("-p", *MODEL, "wait a while")
    try:
        wait_for(lambda: len(processes_with(token)) >= 2, what="bash and its sleep child")
        started = time.monotonic()
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=10)
        assert time.monotonic() - started < 5
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig
    assert "Traceback" not in stderr
    wait_for(lambda: not processes_with(token), timeout=3, what="the command's processes to end")


# --- automatic retry and compaction in JSON mode --------------------------------------------------


def json_events(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


OVERLOADED_TEXT = '529: {"message":"Overloaded","type":"overloaded_error"}'
"""How pi 1.6.0 words the refusal on the Chat Completions API: the status and the error object."""


def test_json_mode_reports_auto_retry_of_overloaded_and_unavailable(pi_env: PiEnv) -> None:
    overloaded = {"error": {"message": "Overloaded", "type": "overloaded_error"}}
    unavailable = {"error": {"message": "Service Unavailable", "type": "server_error"}}
    # Each failed request is one attempt of the session's retry (the HTTP layer retries nothing itself).
    pi_env.server.queue(json_response(529, overloaded, headers={"retry-after": "0"}))
    pi_env.server.queue(json_response(503, unavailable, headers={"retry-after": "0"}))
    pi_env.server.queue(text_reply("third time lucky"))
    events = json_events(pi_env.run("--mode", "json", *MODEL, "try hard"))
    retry = [e for e in events if e["type"].startswith("auto_retry")]
    assert retry == [
        {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 10, "errorMessage": OVERLOADED_TEXT},
        {
            "type": "auto_retry_start",
            "attempt": 2,
            "maxAttempts": 3,
            "delayMs": 20,
            "errorMessage": '503: {"message":"Service Unavailable","type":"server_error"}',
        },
        {"type": "auto_retry_end", "success": True, "attempt": 2},
    ]
    types = [e["type"] for e in events]
    first_retry = types.index("auto_retry_start")
    # Between the retry's announcement and the next run: the failed attempt's omission (a context edit).
    assert types[first_retry - 1] == "agent_end" and types[first_retry + 1 : first_retry + 3] == [
        "entry_appended",
        "agent_start",
    ]
    assert events[first_retry + 1]["entry"]["type"] == "context_edit"
    assert events[first_retry - 1]["willRetry"] is True
    # The retries end with the reply that succeeded: right after its message_end, before its turn ends.
    assert types[-5:] == ["message_end", "auto_retry_end", "turn_end", "agent_end", "agent_settled"]
    assert events[-5]["message"]["stopReason"] == "stop"
    assert events[-2]["willRetry"] is False and events[-1] == {"type": "agent_settled", "aborted": False}
    final = events[-2]["messages"][-1]
    assert final["content"] == [{"type": "text", "text": "third time lucky"}]
    # The failed replies never reach the model; they stay in the file.
    assert conversation(pi_env.server.requests[-1].json()) == [("user", "try hard")]
    messages = [e["message"] for e in lines_of(pi_env.only_session_file()) if e["type"] == "message"]
    assert [(m["role"], m.get("stopReason")) for m in messages] == [
        ("system", None),
        ("user", None),
        ("assistant", "error"),
        ("assistant", "error"),
        ("assistant", "stop"),
    ]


def test_json_mode_retries_count_again_after_a_reply_succeeds(pi_env: PiEnv) -> None:
    """A retried reply that calls a tool ends the retries before the tool runs; a later failure in the
    same prompt starts again at attempt 1 (as pi 1.6.0 does)."""
    boom = {"error": {"message": "boom", "type": "server_error"}}
    pi_env.server.queue(json_response(500, boom, headers={"retry-after": "0"}))
    pi_env.server.queue(tool_reply([("bash", {"command": "echo hi"})]))
    pi_env.server.queue(json_response(500, boom, headers={"retry-after": "0"}))
    pi_env.server.queue(text_reply("done"))
    events = json_events(pi_env.run("--mode", "json", *MODEL, "run echo"))
    shown = [
        e["type"] if e["type"] != "auto_retry_start" else f"retry {e['attempt']}"
        for e in events
        if e["type"] in ("auto_retry_start", "auto_retry_end", "tool_execution_start", "turn_end")
    ]
    assert shown == [
        "turn_end",
        "retry 1",
        "auto_retry_end",
        "tool_execution_start",
        "turn_end",
        "turn_end",
        "retry 1",
        "auto_retry_end",
        "turn_end",
    ]
    ends = [e for e in events if e["type"] == "auto_retry_end"]
    assert ends == [{"type": "auto_retry_end", "success": True, "attempt": 1}] * 2
    first_end = events.index(ends[0])
    assert events[first_end - 1]["type"] == "message_end"
    assert events[first_end - 1]["message"]["stopReason"] == "toolUse"


def test_json_mode_overflow_compacts_and_retries_with_the_summary(pi_env: PiEnv) -> None:
    overflow = {
        "message": "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
    pi_env.server.queue(
        text_reply("answer one"),
        text_reply("answer two"),
        json_response(400, {"error": overflow}),
        text_reply("## Goal\nKeep going after the overflow."),
        text_reply("answer three"),
    )
    (pi_env.agent_dir / "settings.json").write_text(
        json.dumps({"retry": {"baseDelayMs": 10}, "compaction": {"keepRecentTokens": 1}})
    )
    events = json_events(pi_env.run("--mode", "json", *MODEL, "one", "two", "three"))
    compaction = [e for e in events if e["type"].startswith("compaction_")]
    assert compaction[0] == {"type": "compaction_start", "reason": "overflow"}
    end = compaction[1]
    assert end["type"] == "compaction_end" and end["willRetry"] is True and end["aborted"] is False
    assert end["result"]["summary"] == "## Goal\nKeep going after the overflow."
    assert isinstance(end["result"]["tokensBefore"], int) and ENTRY_ID.match(end["result"]["firstKeptEntryId"])
    assert len(compaction) == 2
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    assert events[-2]["messages"][-1]["content"] == [{"type": "text", "text": "answer three"}]

    summarize, retried = pi_env.server.requests[3].json(), pi_env.server.requests[4].json()
    assert "tools" not in summarize
    assert "[User]: one" in json.dumps(summarize["messages"])
    sent = conversation(retried)
    assert sent[0][0] == "user"
    assert sent[0][1].startswith("The conversation history before this point was compacted into the following summary:")
    assert "Keep going after the overflow." in sent[0][1]
    assert sent[-1] == ("user", "three")
    assert not any("maximum context length" in text for _, text in sent)
    entries = lines_of(pi_env.only_session_file())
    stored = next(e for e in entries if e["type"] == "compaction")
    assert stored["firstKeptEntryId"] == end["result"]["firstKeptEntryId"]
    assert any(e["type"] == "message" and e["message"].get("stopReason") == "error" for e in entries)


def test_json_mode_threshold_compaction_uses_context_window_and_reserve(server: ScriptedServer, tmp_path: Path) -> None:
    pi_env = make_pi_env(
        server,
        tmp_path,
        models=[{"id": "small-model", "contextWindow": 2000, "maxTokens": 4096}],
        settings={"compaction": {"reserveTokens": 1000, "keepRecentTokens": 50}},
    )
    long_prompt = "please look at this " * 20  # ~100 tokens: the cut lands on this prompt
    server.queue(
        text_reply("short answer", prompt_tokens=50),
        text_reply("getting full", prompt_tokens=1500),  # 1510 > 2000 - 1000
        text_reply("## Goal\nThreshold summary."),
        text_reply("after compaction"),
    )
    model = ["--provider", "fake", "--model", "small-model"]
    events = json_events(pi_env.run("--mode", "json", *model, "first", long_prompt, "third"))
    compaction = [e for e in events if e["type"].startswith("compaction_")]
    assert [e["type"] for e in compaction] == ["compaction_start", "compaction_end"]
    assert compaction[0]["reason"] == "threshold"
    assert compaction[1]["willRetry"] is False and compaction[1]["aborted"] is False
    assert compaction[1]["result"]["summary"] == "## Goal\nThreshold summary."
    assert compaction[1]["result"]["tokensBefore"] == 1510  # the last reply's usage
    # It ran after the second prompt's run, not after the first.
    types = [e["type"] for e in events]
    assert types.count("agent_end") == 3
    assert types.index("compaction_start") > [i for i, t in enumerate(types) if t == "agent_end"][1]

    assert len(server.requests) == 4  # no retry after a threshold compaction
    summarize = server.requests[2].json()
    # No fixed cap: the model's output limit, clamped to fit the window (reserveTokens only triggers it).
    cap = summarize.get("max_completion_tokens") or summarize.get("max_tokens")
    assert cap != 800 and cap < 2000
    serialized = json.dumps(summarize["messages"])
    assert "[User]: first" in serialized and "[Assistant]: short answer" in serialized
    assert "please look at this" not in serialized
    sent = conversation(server.requests[3].json())
    assert "Threshold summary." in sent[0][1]
    assert sent[1:] == [("user", long_prompt), ("assistant", "getting full"), ("user", "third")]
