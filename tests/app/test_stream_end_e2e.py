"""A reply stream that ends before its finish frame is retried, never printed as the answer, end to end.

The real `pi -p` process talks to a loopback Chat Completions server whose stream stops after part
of the text: with ``[DONE]`` but no chunk carrying ``finish_reason`` (a gateway that lost its
upstream and closed politely), or with the body simply ending. Either way the reply is incomplete:
the session must send the request again, and when every attempt is cut, fail with an error that
names the cut stream instead of printing the half answer as if it were the whole one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli_sessions import MODEL, make_pi_env
from tests.support.http_server import ScriptedResponse, ScriptedServer, sse
from tests.support.openai_chunks import _chunk, text_reply

PARTIAL = "half an ans"


def _cut_reply(*, done: bool) -> ScriptedResponse:
    """Some text, then either ``[DONE]`` or the end of the body, but never a finish_reason."""
    frames: list[dict[str, Any] | str] = [_chunk({"role": "assistant", "content": ""}), _chunk({"content": PARTIAL})]
    if done:
        frames.append("[DONE]")
    return ScriptedResponse(chunks=sse(*frames))


@pytest.mark.parametrize("done", [True, False], ids=["done-marker", "body-ends"])
def test_a_cut_stream_is_sent_again_and_the_good_reply_printed(
    server: ScriptedServer, tmp_path: Path, done: bool
) -> None:
    server.queue(_cut_reply(done=done), text_reply("the whole answer"))
    env = make_pi_env(server, tmp_path, settings={"retry": {"baseDelayMs": 1}})
    result = env.run("-p", *MODEL, "question")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the whole answer\n"
    assert len(server.requests) == 2


def test_a_stream_cut_on_every_attempt_fails_without_printing_the_partial_text(
    server: ScriptedServer, tmp_path: Path
) -> None:
    for _ in range(5):
        server.queue(_cut_reply(done=True))
    env = make_pi_env(server, tmp_path, settings={"retry": {"baseDelayMs": 1, "maxRetries": 1}})
    result = env.run("-p", *MODEL, "question")
    assert result.returncode == 1
    assert "Stream ended without finish_reason" in result.stderr
    assert len(server.requests) == 2  # the first attempt and one retry
    assert PARTIAL not in result.stdout
