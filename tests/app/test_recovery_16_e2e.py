"""The recovery policy through the real `pi` process: failed attempts omitted, overflow answered anyway."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response
from tests.support.openai_chunks import text_reply, tool_reply

OVERFLOW_BODY = {
    "error": {
        "message": "This model's maximum context length is 8000 tokens. However, your messages resulted in more.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}


def _configure(env: Env, base_url: str, model: dict[str, Any], settings: dict[str, Any]) -> None:
    provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "test-key", "models": [model]}
    (env.agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (env.agent_dir / "settings.json").write_text(json.dumps(settings))


def _session_lines(env: Env) -> list[dict[str, Any]]:
    files = sorted(env.agent_dir.rglob("*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text().splitlines() if line.strip()]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_refused_connections_make_four_attempts_each_failure_omitted(env: Env) -> None:
    model = {"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}
    _configure(env, f"http://127.0.0.1:{_closed_port()}/v1", model, {"retry": {"baseDelayMs": 5}})
    done = env.run("-p", *MODEL, "hi")
    assert done.returncode == 1
    assert done.stderr.strip()
    shape: list[str] = []
    for line in _session_lines(env):
        if line["type"] == "message":
            message = line["message"]
            shape.append("error" if message.get("stopReason") == "error" else message["role"])
        elif line["type"] == "context_edit":
            assert line["replacement"] is None
            shape.append("omit")
    if shape and shape[0] == "system":
        shape.pop(0)
    assert shape == ["user", "error", "omit", "error", "omit", "error", "omit", "error"]


class SizeGate:
    """Stands in for the server's response queue: a request over `limit` bytes is answered with an overflow.

    Summary requests get a summary; every other request the next scripted response.
    """

    def __init__(self, server: ScriptedServer, limit: int, responses: list[ScriptedResponse]) -> None:
        self.server = server
        self.limit = limit
        self.responses = responses
        self.sizes: list[int] = []

    def __bool__(self) -> bool:
        return True

    def popleft(self) -> ScriptedResponse:
        body = self.server.requests[-1].body
        self.sizes.append(len(body))
        if len(body) > self.limit:
            return json_response(400, OVERFLOW_BODY)
        if b"context summarization assistant" in body:
            return text_reply("## Goal\nRead the file.")
        return self.responses.pop(0)


def _overflow_env(env: Env) -> None:
    model = {"id": "fake-model", "contextWindow": 8000, "maxTokens": 1000}
    settings = {"retry": {"baseDelayMs": 5}, "compaction": {"reserveTokens": 1000}}
    _configure(env, f"{env.server.url}/v1", model, settings)


def test_overflow_with_only_recent_context_shrinks_the_tool_result_and_answers(env: Env) -> None:
    _overflow_env(env)
    lines = [f"line {i:05d} of a large file, padded to forty" for i in range(1500)]
    (env.cwd / "big.txt").write_text("\n".join(lines) + "\n")
    gate = SizeGate(
        env.server, 40000, [tool_reply([("read", {"path": "big.txt"})]), text_reply("The file lists numbered lines.")]
    )
    env.server.responses = gate  # type: ignore[assignment]
    done = env.run("-p", *MODEL, "read big.txt and tell me what it holds")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The file lists numbered lines.\n"
    assert "Nothing to compact" not in done.stderr
    # First the overflow, then a retry small enough to be answered.
    assert any(size > 40000 for size in gate.sizes) and gate.sizes[-1] <= 40000
    entries = _session_lines(env)
    edits = [e for e in entries if e["type"] == "context_edit"]
    shrunk = [e for e in edits if e["replacement"] is not None]
    assert len(shrunk) == 1
    text = shrunk[0]["replacement"]["content"][0]["text"]
    assert text.startswith("line 00000") and "Output shortened to fit the context window" in text
    assert "read big.txt again with offset=" in text
    # The failed attempt is omitted, and the full tool output stays in the file.
    assert any(e["replacement"] is None for e in edits)
    results = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult"]
    assert "line 01000" in json.dumps(results[0]["message"]["content"])
    retried = env.server.requests[-1].json()
    tool_texts = [m["content"] for m in retried["messages"] if m["role"] == "tool"]
    assert tool_texts and "Output shortened" in json.dumps(tool_texts)


def test_a_prompt_larger_than_the_window_says_so(env: Env, tmp_path: Path) -> None:
    _overflow_env(env)
    gate = SizeGate(env.server, 20000, [text_reply("never sent")])
    env.server.responses = gate  # type: ignore[assignment]
    done = env.run("-p", *MODEL, "word " * 10000)
    assert done.returncode == 1
    assert "The prompt alone is too large for the model's context window" in done.stderr
    assert len(gate.sizes) == 1
