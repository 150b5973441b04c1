"""Whole-program cases where our `pi` and pi 1.6.0 are compared side by side, same loopback server.

Cases (each a fresh server, agent dir, home and project dir per run; runs of the two programs
interleaved; medians):

- `bash-500m`: `pi -p` where the model runs `yes | head -c 500M` through bash, then answers: wall
  time and peak RSS of the process tree.
- `rpc-get-state`: `pi --mode rpc --session <file>` on a generated 20,000-entry session (user prompt,
  assistant reply with a `read` call, tool result, in turn, in the version-3 format both programs
  read), sending `get_state` at once: seconds from process start to its response (start-up and
  session load included), and the whole run until the process exits on stdin EOF.
- `first-request`: characters of the first model request of `pi -p`: the system prompt (the text of
  its `system`/`developer` message) and the `tools` array serialised as compact JSON; both are paid on
  every turn.
- `one-turn` and `read-50`: `pi -p` wall time for one text reply, and for 50 replies that each
  `read` a small file, then a final text.

    .venv/bin/python bench/vs_ts.py                          # all cases, PI_TS_BIN/PI_TS_NODE for pi 1.6.0
    .venv/bin/python bench/vs_ts.py -n 5 --case one-turn --case read-50 --ours /other/.venv/bin/pi
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import MODEL_ID, PROVIDER, text_reply, tool_call_reply  # noqa: E402
from bench.side_by_side import (  # noqa: E402
    Program,
    Run,
    Workspace,
    add_program_args,
    failure_of,
    print_args,
    programs_from_args,
    ratio,
    run_scripted,
)

FINAL = "Finished the task."
SESSION_ENTRIES = 20_000


@dataclass
class Case:
    """A scripted run and how to read its figures; `figures(run)` returns None when the run does not count."""

    name: str
    title: str
    columns: list[str]
    args: Callable[[Workspace], list[str]]
    replies: Callable[[], list[Any]]
    figures: Callable[[Run], dict[str, float] | str]
    prepare: Callable[[Workspace], None] | None = None
    rpc: dict[str, Any] | None = None
    default_runs: int = 5


@dataclass
class Result:
    figures: dict[str, list[float]] = field(default_factory=dict)
    failure: str | None = None


def wall_and_rss(requests: int) -> Callable[[Run], dict[str, float] | str]:
    def figures(run: Run) -> dict[str, float] | str:
        problem = failure_of(run, final_text=FINAL, requests=requests)
        return problem or {"wall s": run.wall, "peak RSS MiB": run.maxrss_kib / 1024}

    return figures


# bash printing 500 MiB


def bash_replies() -> list[Any]:
    return [tool_call_reply("call_0001", "bash", {"command": "yes | head -c 500M"}), text_reply(FINAL)]


# RPC get_state on a long session


def session_path(workspace: Workspace) -> Path:
    return workspace.root / "long-session.jsonl"


def write_long_session(workspace: Workspace, entries: int = SESSION_ENTRIES) -> None:
    """A version-3 session of `entries` message entries in one branch, as pi 1.6.0 writes them."""
    start = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    usage = {
        "input": 1200,
        "output": 80,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 1280,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    header = {
        "type": "session",
        "version": 3,
        "id": "0b6d1f4e-2c1a-4c55-9d7e-5a1f0c9e8b21",
        "timestamp": start.isoformat().replace("+00:00", "Z"),
        "cwd": str(workspace.project),
    }
    lines = [json.dumps(header)]
    parent: str | None = None
    for i in range(entries):
        when = start + timedelta(seconds=i)
        millis = int(when.timestamp() * 1000)
        kind = i % 3
        message: dict[str, Any]
        if kind == 0:
            message = {
                "role": "user",
                "content": f"Please look at module {i} and explain it. " * 4,
                "timestamp": millis,
            }
        elif kind == 1:
            message = {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Reading module {i} now; it probably holds the parser. " * 3},
                    {"type": "toolCall", "id": f"call_{i}", "name": "read", "arguments": {"path": f"src/m{i}.py"}},
                ],
                "api": "openai-completions",
                "provider": PROVIDER,
                "model": MODEL_ID,
                "usage": usage,
                "stopReason": "toolUse",
                "timestamp": millis,
            }
        else:
            message = {
                "role": "toolResult",
                "toolCallId": f"call_{i - 1}",
                "toolName": "read",
                "content": [{"type": "text", "text": f"def function_{i}(x):\n    return x * {i}\n" * 10}],
                "isError": False,
                "timestamp": millis,
            }
        entry_id = f"{i + 1:08x}"
        entry = {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": when.isoformat().replace("+00:00", "Z"),
            "message": message,
        }
        lines.append(json.dumps(entry))
        parent = entry_id
    session_path(workspace).write_text("\n".join(lines) + "\n", encoding="utf-8")


def rpc_args(workspace: Workspace) -> list[str]:
    return [
        "--mode",
        "rpc",
        "--offline",
        "--provider",
        PROVIDER,
        "--model",
        MODEL_ID,
        "--session",
        str(session_path(workspace)),
    ]


def rpc_figures(run: Run) -> dict[str, float] | str:
    problem = failure_of(run)
    if problem is not None:
        return problem
    if run.answered is None:
        return f"no get_state response ({run.stdout.strip()[-200:]!r})"
    for line in run.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("command") == "get_state":
            if not event.get("success"):
                return f"get_state failed: {line[:200]}"
            count = (event.get("data") or {}).get("messageCount")
            return {"to response s": run.answered, "whole run s": run.wall, "messageCount": float(count or 0)}
    return "get_state response not found in output"


# first request size


def system_prompt_chars(request: dict[str, Any]) -> int:
    total = 0
    for message in request.get("messages", []):
        if message.get("role") in ("system", "developer"):
            content = message.get("content")
            if isinstance(content, str):
                total += len(content)
            elif isinstance(content, list):
                total += sum(len(part.get("text", "")) for part in content if isinstance(part, dict))
    return total


def first_request_figures(run: Run) -> dict[str, float] | str:
    problem = failure_of(run, final_text=FINAL, requests=1)
    if problem is not None:
        return problem
    request = run.requests[0]
    tools = request.get("tools", [])
    return {
        "system prompt chars": float(system_prompt_chars(request)),
        "tool schema chars": float(len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))),
        "tools": float(len(tools)),
    }


# 50 read turns


def write_notes(workspace: Workspace) -> None:
    (workspace.project / "notes.txt").write_text("".join(f"line {n} of the notes\n" for n in range(1, 41)))


def read_replies(turns: int = 50) -> list[Any]:
    calls = [tool_call_reply(f"call_{n:04d}", "read", {"path": "notes.txt"}) for n in range(1, turns + 1)]
    return [*calls, text_reply(FINAL)]


CASES = [
    Case(
        "bash-500m",
        "bash printing 500 MiB (`yes | head -c 500M`) through `pi -p`",
        ["wall s", "peak RSS MiB"],
        lambda _ws: print_args("Print 500 MiB of y lines with bash, then say you are finished."),
        bash_replies,
        wall_and_rss(2),
        default_runs=3,
    ),
    Case(
        "rpc-get-state",
        f"RPC `get_state` on a {SESSION_ENTRIES:,}-entry session, start-up included",
        ["to response s", "whole run s", "messageCount"],
        rpc_args,
        list,
        rpc_figures,
        prepare=write_long_session,
        rpc={"id": "bench-1", "type": "get_state"},
    ),
    Case(
        "first-request",
        "first request of `pi -p` (characters)",
        ["system prompt chars", "tool schema chars", "tools"],
        lambda _ws: print_args("Say you are finished."),
        lambda: [text_reply(FINAL)],
        first_request_figures,
        default_runs=1,
    ),
    Case(
        "one-turn",
        "`pi -p`, one text reply",
        ["wall s", "peak RSS MiB"],
        lambda _ws: print_args("Say you are finished."),
        lambda: [text_reply(FINAL)],
        wall_and_rss(1),
    ),
    Case(
        "read-50",
        "`pi -p`, 50 `read` turns and a final reply",
        ["wall s", "peak RSS MiB"],
        lambda _ws: print_args("Read notes.txt fifty times, one read call at a time, then say you are finished."),
        read_replies,
        wall_and_rss(51),
        prepare=write_notes,
    ),
]


def run_case(case: Case, program: Program, scratch: Path) -> dict[str, float] | str:
    run = run_scripted(program, case.args, case.replies(), scratch, prepare=case.prepare, rpc=case.rpc)
    return case.figures(run)


def measure_case(case: Case, programs: list[Program], runs: int, scratch: Path) -> dict[str, Result]:
    results = {program.label: Result() for program in programs}
    for program in programs:  # untimed warm-up: page cache, bytecode, node's compile cache
        run_case(case, program, scratch)
    for _ in range(runs):
        for program in programs:
            result = results[program.label]
            if result.failure is not None:
                continue
            figures = run_case(case, program, scratch)
            if isinstance(figures, str):
                result.failure = figures
                continue
            for name, value in figures.items():
                result.figures.setdefault(name, []).append(value)
    return results


def fmt(value: float, column: str) -> str:
    if column.endswith("chars") or column in ("tools", "messageCount"):
        return f"{value:,.0f}"
    if column.endswith("MiB"):
        return f"{value:.1f}"
    return f"{value:.2f}"


def print_case(case: Case, programs: list[Program], results: dict[str, Result], runs: int) -> None:
    print(f"\n{case.title}: medians of {runs} interleaved runs")
    print("| program | " + " | ".join(case.columns) + " |")
    print("| --- |" + " ---: |" * len(case.columns))
    medians: dict[str, dict[str, float]] = {}
    for program in programs:
        result = results[program.label]
        if result.failure is not None:
            print(f"| {program.label} | failed ({result.failure}) |" + " |" * (len(case.columns) - 1))
            continue
        medians[program.label] = {name: statistics.median(values) for name, values in result.figures.items()}
        cells = [fmt(medians[program.label][column], column) for column in case.columns]
        print(f"| {program.label} | " + " | ".join(cells) + " |")
    ts = next((p for p in programs if p.is_ts), None)
    several = sum(not p.is_ts for p in programs) > 1
    for ours in (p for p in programs if not p.is_ts):
        if ts is not None and ours.label in medians and ts.label in medians:
            cells = [ratio(medians[ours.label][column], medians[ts.label][column]) for column in case.columns]
            name = f"{ours.argv[0]} / pi 1.6.0" if several else "ours / pi 1.6.0"
            print(f"| {name} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    names = [case.name for case in CASES]
    parser.add_argument("--case", action="append", choices=names, help="run only these cases (repeatable)")
    parser.add_argument("-n", "--runs", type=int, help="runs per program per case (default: per case, 1 to 5)")
    add_program_args(parser)
    args = parser.parse_args(argv)
    programs = programs_from_args(args)
    if not programs:
        return 1
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="pi-vs-ts-") as tmp:
        for case in CASES:
            if args.case and case.name not in args.case:
                continue
            runs = args.runs or case.default_runs
            results = measure_case(case, programs, runs, Path(tmp))
            print_case(case, programs, results, runs)
            sys.stdout.flush()
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
