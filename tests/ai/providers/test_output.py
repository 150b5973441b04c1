"""The shared reply builder: the event grammar and tool-argument parsing every provider relies on."""

from __future__ import annotations

import json
import time

from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.events import ToolCallDeltaEvent, ToolCallEndEvent
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


def test_arguments_grow_with_every_fragment_and_end_exact() -> None:
    value = {"path": "src/app.py", "edits": [{"old": "a = 1", "new": "a = 2"}], "dry_run": False}
    raw = json.dumps(value)
    builder = _builder()
    seen = _stream_tool_call(builder, raw, 3)
    sizes = [len(json.dumps(args)) for args in seen]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert seen[-1] == value
    assert builder.output.content[0].arguments == value  # type: ignore[union-attr]


def test_unreadable_text_keeps_the_last_readable_arguments() -> None:
    builder = _builder()
    call = builder.start_tool_call("call_1", "bash")
    builder.tool_call_delta('{"command": "ls"')
    assert call.arguments == {"command": "ls"}
    builder.tool_call_delta(", oops")
    assert call.arguments == {"command": "ls"}


def test_a_large_argument_streams_in_many_fragments_without_blocking_the_loop() -> None:
    # A file of some 140 KB handed to a write tool, in about 1,100 fragments, every one re-read.
    # A tolerant parser written in Python needs over ten seconds for this; the bound is generous.
    content = "".join(f'line {n}: value = {n * 7}  # "quoted" and\ttabbed\n' for n in range(2800))
    raw = json.dumps({"path": "big.py", "content": content})
    assert len(raw) > 140_000
    builder = _builder()
    started = time.perf_counter()
    seen = _stream_tool_call(builder, raw, 128)
    elapsed = time.perf_counter() - started

    assert elapsed < 2.0, f"{len(seen)} fragments took {elapsed:.2f} s"
    assert builder.output.content[0].arguments == {"path": "big.py", "content": content}  # type: ignore[union-attr]
    half = len(seen) // 2
    middle = seen[half]["content"]
    assert isinstance(middle, str) and content.startswith(middle)
    received = (half + 1) * 128 - len('{"path": "big.py", "content": ')
    assert received - 8 <= len(json.dumps(middle)) <= received + 1  # not lagging behind the text
    events = list(builder.stream._queue)
    assert sum(isinstance(e, ToolCallDeltaEvent) for e in events) == len(seen)
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.tool_call.arguments["content"] == content
