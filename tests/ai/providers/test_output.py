"""The shared reply builder: the event grammar and tool-argument parsing every provider relies on."""

from __future__ import annotations

import json
import time

import pytest

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import ToolCallDeltaEvent, ToolCallEndEvent
from pi.ai.providers import output
from pi.ai.providers.output import OutputBuilder
from pi.ai.types import Model


def _builder() -> OutputBuilder:
    model = Model(id="m", name="m", api="test-api", provider="test", base_url="http://test.invalid")
    return OutputBuilder(model, AssistantMessageEventStream())


def _stream_tool_call(builder: OutputBuilder, raw: str, step: int) -> list[dict[str, object]]:
    """Feed `raw` in fragments of `step` characters; the arguments seen after each fragment."""
    seen: list[dict[str, object]] = []
    call = builder.start_tool_call("call_1", "write")
    for i in range(0, len(raw), step):
        builder.tool_call_delta(raw[i : i + step])
        seen.append(dict(call.arguments))
    builder.end_block()
    return seen


def test_short_arguments_are_reparsed_after_every_fragment() -> None:
    builder = _builder()
    seen = _stream_tool_call(builder, '{"path": "a.txt", "content": "hi"}', 4)
    assert seen[2] == {"path": "a."}
    assert seen[-1] == {"path": "a.txt", "content": "hi"}


def test_long_arguments_stream_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 2,000-line file written through a tool call arrives as some 20,000 small fragments;
    # re-parsing the whole text after each one took tens of seconds with the event loop blocked.
    calls: list[int] = []
    real = output.parse_streaming_json

    def counting(text: str | None) -> dict[str, object]:
        calls.append(len(text or ""))
        return real(text)

    monkeypatch.setattr(output, "parse_streaming_json", counting)
    content = "".join(f'line {n}: value = {n * 7}  # "quoted" and\ttabbed\n' for n in range(2000))
    raw = json.dumps({"path": "big.py", "content": content})
    builder = _builder()
    started = time.monotonic()
    seen = _stream_tool_call(builder, raw, 5)
    elapsed = time.monotonic() - started

    assert builder.output.content[0].arguments == {"path": "big.py", "content": content}  # type: ignore[union-attr]
    assert sum(calls) < 100 * len(raw), f"{len(calls)} parses over {sum(calls)} characters"
    assert elapsed < 5
    # The partial arguments still grow while streaming, never lagging far behind the text.
    assert seen[len(seen) // 2]["path"] == "big.py"
    halfway = seen[len(seen) // 2]["content"]
    assert isinstance(halfway, str) and len(content) * 0.4 < len(halfway) < len(content) * 0.6
    events = list(builder.stream._queue)
    assert sum(isinstance(e, ToolCallDeltaEvent) for e in events) == len(seen)
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.tool_call.arguments["content"] == content
