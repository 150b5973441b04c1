"""Resuming a long session: load a 20,000-entry file and build its context.

Writes a session of N entries (user prompt, assistant reply with a tool call, tool result, in turn),
then, in the same process and run, times:

- baseline: reading the file and `json.loads` of every line (the least any loader must do), as is
  and with the cyclic garbage collector paused by this script (to show what collection costs);
- `SessionManager.open` alone (read, type the entries, index the tree);
- open + `build_deferred_context` (what resuming does: the count, model and thinking level; the
  message objects are left to be built when first read);
- open + `build_session_context` (which parses every message on the branch).

Goal: open + context under 0.5 s for 20,000 entries.

    .venv/bin/python bench/sessions.py [entries] [repeats]
"""

from __future__ import annotations

import contextlib
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pi.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi.session import SessionManager

GOAL_S = 0.5


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off for the block (the benchmark's choice, not the library's)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def write_session(directory: Path, entries: int) -> Path:
    manager = SessionManager.create("/bench/project", session_dir=directory)
    for i in range(entries):
        kind = i % 3
        if kind == 0:
            manager.append_message(UserMessage(content=f"Please look at module {i} and explain it. " * 4))
        elif kind == 1:
            manager.append_message(
                AssistantMessage(
                    content=[
                        TextContent(text=f"Reading module {i} now; it probably holds the parser. " * 3),
                        ToolCall(id=f"call_{i}", name="read", arguments={"path": f"src/module_{i}.py"}),
                    ],
                    api="anthropic-messages",
                    provider="anthropic",
                    model="claude-sonnet-4-5",
                    usage=Usage(input=1200, output=80, total_tokens=1280),
                    stop_reason="toolUse",
                )
            )
        else:
            manager.append_message(
                ToolResultMessage(
                    tool_call_id=f"call_{i - 1}",
                    tool_name="read",
                    content=[TextContent(text=f"def function_{i}(x):\n    return x * {i}\n" * 10)],
                )
            )
    file = manager.get_session_file()
    assert file is not None
    return file


def best_of(repeats: int, fn: Callable[[], object]) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        file = write_session(Path(tmp), entries)
        size_mb = file.stat().st_size / 1e6

        def baseline() -> object:
            return [json.loads(line) for line in file.read_text().splitlines()]

        def baseline_paused() -> object:
            with gc_paused():
                return baseline()

        def open_only() -> object:
            return SessionManager.open(file)

        def open_and_deferred() -> object:
            context = SessionManager.open(file).build_deferred_context()
            assert len(context.messages) == entries
            return context

        def open_and_context() -> object:
            context = SessionManager.open(file).build_session_context()
            assert len(context.messages) == entries
            return context

        rows = [
            ("json.loads of every line (baseline)", best_of(repeats, baseline)),
            ("json.loads, collector paused", best_of(repeats, baseline_paused)),
            ("SessionManager.open", best_of(repeats, open_only)),
            ("open + build_deferred_context (resume)", best_of(repeats, open_and_deferred)),
            ("open + build_session_context", best_of(repeats, open_and_context)),
        ]
    base = rows[0][1][0]
    print(f"{entries} entries, {size_mb:.1f} MB, best and median of {repeats} runs")
    print(f"{'step':40} {'best s':>8} {'median s':>9} {'x baseline':>11}")
    for name, (best, median) in rows:
        print(f"{name:40} {best:8.3f} {median:9.3f} {best / base:11.2f}")
    total = rows[-1][1][0]
    print(f"goal: open + context under {GOAL_S} s: {'met' if total < GOAL_S else 'NOT met'} ({total:.3f} s)")


if __name__ == "__main__":
    main()
