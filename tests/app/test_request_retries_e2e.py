"""How often a failing request is sent, and how long a silent response is waited for, end to end.

The real `pi -p` process talks to a loopback Chat Completions server. The session's retry
(`retry.maxRetries`) records every failed attempt; the HTTP layer retries only as often as
`retry.provider.maxRetries` says (0 by default), so a 500 is sent 1 + maxRetries times, not three
times as many. `httpIdleTimeoutMs` bounds how long a response may send nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.app.test_cli_sessions import MODEL, make_pi_env
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response, sse
from tests.support.openai_chunks import text_reply

BROKEN = {"error": {"message": "Internal error", "type": "server_error"}}


def _fail_every_request(server: ScriptedServer, count: int) -> None:
    for _ in range(count):
        server.queue(json_response(500, BROKEN, headers={"retry-after": "0"}))


def _run(server: ScriptedServer, root: Path, settings: dict[str, Any]) -> tuple[int, str, int]:
    env = make_pi_env(server, root, settings=settings)
    done = env.run("-p", *MODEL, "hello")
    return done.returncode, done.stderr, len(server.requests)


def test_a_failing_request_is_sent_once_per_session_attempt(server: ScriptedServer, tmp_path: Path) -> None:
    _fail_every_request(server, 20)
    code, stderr, sent = _run(server, tmp_path, {"retry": {"baseDelayMs": 1, "maxRetries": 2}})
    assert code == 1
    assert "500" in stderr and "Internal error" in stderr
    assert sent == 3  # the first attempt and two retries


def test_provider_max_retries_adds_http_retries_inside_each_attempt(server: ScriptedServer, tmp_path: Path) -> None:
    _fail_every_request(server, 20)
    settings = {"retry": {"baseDelayMs": 1, "maxRetries": 2, "provider": {"maxRetries": 1}}}
    code, _, sent = _run(server, tmp_path, settings)
    assert code == 1
    assert sent == 6  # three attempts of two requests each


def test_disabled_retry_sends_a_failing_request_once(server: ScriptedServer, tmp_path: Path) -> None:
    _fail_every_request(server, 20)
    code, stderr, sent = _run(server, tmp_path, {"retry": {"enabled": False}})
    assert code == 1 and "Internal error" in stderr
    assert sent == 1


def test_a_response_that_goes_silent_fails_after_the_idle_timeout(server: ScriptedServer, tmp_path: Path) -> None:
    start = {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "fake-model",
        "choices": [{"index": 0, "delta": {"content": "start"}}],
    }
    server.queue(ScriptedResponse(chunks=sse(start), hold_open=60.0))
    settings = {"retry": {"enabled": False}, "httpIdleTimeoutMs": 300}
    began = time.monotonic()
    code, stderr, sent = _run(server, tmp_path, settings)
    assert code == 1, stderr
    assert "timed out" in stderr.lower() or "timeout" in stderr.lower(), stderr
    assert sent == 1
    assert time.monotonic() - began < 30  # far below the 60 s the server would have stayed silent


def test_an_invalid_idle_timeout_is_named_and_the_default_kept(server: ScriptedServer, tmp_path: Path) -> None:
    server.queue(text_reply("fine"))
    env = make_pi_env(server, tmp_path, settings={"httpIdleTimeoutMs": "soon"})
    done = env.run("-p", *MODEL, "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fine"
    assert "Invalid httpIdleTimeoutMs setting: soon" in done.stderr
