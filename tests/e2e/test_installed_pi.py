"""Smoke test of the installed `pi` executable, as a user runs it.

By default the `pi` script next to the test interpreter is used; CI points ``PI_UNDER_TEST`` at
the `pi` of a virtual environment where the built wheel was installed (not in editable mode), so
this also proves that the wheel carries what the program needs at run time, such as the manual
that the system prompt's docs section names.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from pi.version import __version__
from tests.e2e.conftest import PI, Installed
from tests.support.http_server import ScriptedResponse, named_sse
from tests.support.openai_chunks import text_reply


def anthropic_reply(text: str) -> ScriptedResponse:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return ScriptedResponse(
        chunks=named_sse(
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
            ),
            ("message_stop", {"type": "message_stop"}),
        )
    )


def system_prompt_of(body: dict[str, Any]) -> str:
    if "system" in body:  # anthropic-messages: a string or a list of text blocks
        system = body["system"]
        return system if isinstance(system, str) else "".join(block["text"] for block in system)
    first = body["messages"][0]
    assert first["role"] in ("system", "developer")
    content = first["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def assert_docs_paths_exist(prompt: str) -> None:
    match = re.search(r"<docs>\n(.*?)\n</docs>", prompt, re.S)
    assert match is not None, "the system prompt has no docs section"
    docs = match.group(1)
    readme = Path(re.search(r"- Main documentation: (\S+)", docs).group(1))  # type: ignore[union-attr]
    assert readme.is_file() and readme.parent.name == "manual" and readme.parent.parent.name == "pi"
    assert Path(re.search(r"- Additional docs: (\S+)", docs).group(1)).is_dir()  # type: ignore[union-attr]
    assert Path(re.search(r"- Examples: (\S+)", docs).group(1)).is_dir()  # type: ignore[union-attr]
    for relative in re.findall(r"\((docs/[a-z-]+\.md)\)", docs):
        assert (readme.parent / relative).is_file(), relative


def test_version_and_help() -> None:
    version = subprocess.run([str(PI), "--version"], capture_output=True, text=True, timeout=60)
    assert (version.returncode, version.stdout, version.stderr) == (0, f"{__version__}\n", "")
    shown = subprocess.run([str(PI), "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    assert shown.stdout.startswith("pi - AI coding assistant with read, bash, edit, write tools\n")


def test_print_turn_over_openai_completions(installed: Installed) -> None:
    installed.server.queue(text_reply("Hello from the loopback model"))
    done = installed.run("-p", "--provider", "fake-openai", "--model", "fake-model", "say hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello from the loopback model\n"
    (request,) = installed.server.requests
    prompt = system_prompt_of(request.json())
    assert prompt.startswith("You are a coding assistant running inside pi")
    assert_docs_paths_exist(prompt)


def test_print_turn_over_anthropic_messages(installed: Installed) -> None:
    installed.server.queue(anthropic_reply("Hello over the messages API"))
    done = installed.run("-p", "--provider", "fake-anthropic", "--model", "fake-model", "say hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello over the messages API\n"
    (request,) = installed.server.requests
    assert request.path.endswith("/messages")
    assert_docs_paths_exist(system_prompt_of(request.json()))


def test_unknown_option_fails_before_any_request(installed: Installed) -> None:
    done = installed.run("-p", "--provider", "fake-openai", "--model", "fake-model", "--foo", "hi")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "Error: Unknown option: --foo"
    assert installed.server.requests == []
