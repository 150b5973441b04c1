"""examples/stream_tool_call.py streams a tool call from local OpenAI- and Anthropic-compatible servers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.http_server import ScriptedResponse, ScriptedServer, named_sse
from tests.support.openai_chunks import tool_reply

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "stream_tool_call.py"


def _run(api: str, server: ScriptedServer) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--api", api, "--base-url", server.url + ("/v1" if "openai" in api else "")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _check(lines: list[dict[str, object]]) -> None:
    types = [line.get("type") for line in lines[:-1]]
    assert types[0] == "start" and types[-1] == "done"
    assert "toolcall_delta" in types
    end = next(line for line in lines if line.get("type") == "toolcall_end")
    assert end["toolCall"]["name"] == "get_weather"  # type: ignore[index]
    assert end["toolCall"]["arguments"] == {"city": "Paris"}  # type: ignore[index]
    final = lines[-1]["final"]
    assert final["stopReason"] == "toolUse"  # type: ignore[index]


def test_openai_compatible(server: ScriptedServer) -> None:
    server.queue(tool_reply([("get_weather", {"city": "Paris"})]))
    _check(_run("openai-completions", server))
    assert server.requests[0].path == "/v1/chat/completions"


def test_anthropic_compatible(server: ScriptedServer) -> None:
    server.queue(
        ScriptedResponse(
            chunks=named_sse(
                (
                    "message_start",
                    {
                        "type": "message_start",
                        "message": {
                            "id": "msg_1",
                            "type": "message",
                            "role": "assistant",
                            "content": [],
                            "model": "m",
                            "stop_reason": None,
                            "usage": {"input_tokens": 12, "output_tokens": 1},
                        },
                    },
                ),
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
                    },
                ),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": '{"city": "Pa'},
                    },
                ),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": 'ris"}'},
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
                ),
                ("message_stop", {"type": "message_stop"}),
            )
        )
    )
    _check(_run("anthropic-messages", server))
    assert server.requests[0].path == "/v1/messages"


EXTENSION_EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples" / "extensions").glob("*.py"))


async def test_every_extension_example_loads(tmp_path: Path) -> None:
    from pi.app.extensions.discovery import ExtensionSource
    from pi.app.extensions.loader import load_extensions

    sources = [ExtensionSource(str(p), "file", "temporary", "top-level", -1, p) for p in EXTENSION_EXAMPLES]
    _, result = await load_extensions(sources, tmp_path)
    assert result.diagnostics == [] and len(result.extensions) == len(EXTENSION_EXAMPLES) >= 14
    tests = (Path(__file__).resolve().parent / "e2e" / "test_extensions_examples.py").read_text()
    covered = [p.name for p in EXTENSION_EXAMPLES if f'example("{p.name}")' in tests]
    assert len(covered) >= 14
