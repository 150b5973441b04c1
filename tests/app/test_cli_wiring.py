"""The `pi` process end to end: stdin and the prompt as one request, redirected stdout, print-mode exit codes."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import ScriptedResponse, sse
from tests.support.openai_chunks import text_reply


def _user_texts(request: Any) -> list[str]:
    texts = []
    for message in request.json()["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.append("".join(part.get("text", "") for part in content))
    return texts


def test_piped_stdin_and_the_prompt_are_one_message_and_one_request(env: Env) -> None:
    env.server.queue(text_reply("feat: add the parser"), text_reply("a second answer nobody asked for"))
    diff = "diff --git a/x.py b/x.py\n+print('hi')\n\n"
    done = env.run("-p", *MODEL, "write a commit message", stdin=diff)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "feat: add the parser\n"
    assert len(env.server.requests) == 1
    assert _user_texts(env.server.requests[0]) == [diff.strip() + "write a commit message"]


def test_stdin_then_file_text_then_the_message_without_separators(env: Env) -> None:
    (env.cwd / "note.txt").write_text("hello\n")
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "@note.txt", "MSG", stdin="STDIN\n")
    assert done.returncode == 0, done.stderr
    expected = f'STDIN<file name="{env.cwd / "note.txt"}">\nhello\n\n</file>\nMSG'
    assert _user_texts(env.server.requests[0]) == [expected]


def test_redirected_stdout_selects_print_mode_with_a_terminal_on_stdin(env: Env, tmp_path: Path) -> None:
    env.server.queue(text_reply("written to the file"))
    out = tmp_path / "out.txt"
    main_fd, terminal_fd = pty.openpty()
    try:
        with out.open("w") as sink:
            done = subprocess.run(
                [*PI, *MODEL, "hi"],
                cwd=env.cwd,
                env=env.vars,
                stdin=terminal_fd,
                stdout=sink,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
    finally:
        os.close(terminal_fd)
        os.close(main_fd)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "written to the file\n"
    assert len(env.server.requests) == 1


def _reply_cut_at_the_limit(text: str) -> ScriptedResponse:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    usage = {"prompt_tokens": 100, "completion_tokens": 4096, "total_tokens": 4196}
    frames = [chunk({"role": "assistant", "content": ""}), chunk({"content": text}), chunk({}, "length")]
    frames.append({**chunk({}), "choices": [], "usage": usage})
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


def test_a_reply_cut_at_the_output_limit_prints_the_part_and_exits_1(env: Env) -> None:
    env.server.queue(_reply_cut_at_the_limit("The first half of the ans"))
    done = env.run("-p", *MODEL, "explain")
    assert done.returncode == 1
    assert done.stdout == "The first half of the ans\n"
    assert "Response was truncated: the model reached its output token limit.\n" in done.stderr


def test_an_error_reply_prints_its_message_on_stderr_and_exits_1(env: Env) -> None:
    from tests.support.http_server import json_response

    env.server.queue(json_response(400, {"error": {"message": "model does not support this request"}}))
    done = env.run("-p", *MODEL, "explain")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "model does not support this request" in done.stderr


def test_json_mode_exits_0_when_the_reply_is_cut(env: Env) -> None:
    env.server.queue(_reply_cut_at_the_limit("partial"))
    done = env.run("--mode", "json", *MODEL, "explain")
    assert done.returncode == 0, done.stderr
    ends = [json.loads(line) for line in done.stdout.splitlines() if '"message_end"' in line]
    assert ends[-1]["message"]["stopReason"] == "length"
