"""Wall time and peak memory of a 50-turn tool loop: our `pi -p` against pi 1.6.0, same server.

Both programs are pointed, each through its own agent dir (`PI_CODING_AGENT_DIR` holding a
models.json), at one loopback Chat Completions server that replies with a `bash` call running
`echo <n>` for n = 1..turns, one call per reply, and then a final text. So each run is one process
start, `turns + 1` streamed model replies, `turns` shell commands and the session file written as it
grows: the work a user waits for when the model is fast. A run counts only if it exits 0, prints the
final text and made exactly `turns + 1` requests.

Memory is the peak resident set of the measured process tree, read exactly (see
`bench/side_by_side.py`); the `true` row shows the intermediate's floor included in every figure.

Goals: ours at most 1/3 of the TypeScript pi's wall time and at most 1/2 of its memory.

    .venv/bin/python bench/loop_vs_ts.py --ts-pi $PI_TS_BIN --ts-node $PI_TS_NODE   # 3 runs each, 50 turns
    .venv/bin/python bench/loop_vs_ts.py -n 7 --turns 1 --ours /other/checkout/.venv/bin/pi
    .venv/bin/python bench/loop_vs_ts.py --skip-ours
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import bash_loop  # noqa: E402
from bench.side_by_side import (  # noqa: E402
    Program,
    Run,
    Workspace,
    add_program_args,
    failure_of,
    measure,
    print_args,
    programs_from_args,
    run_scripted,
)

WALL_GOAL = 1 / 3
RSS_GOAL = 1 / 2
FINAL_TEXT = "All echoes done."
PROMPT = "Run echo with the numbers 1 to {turns}, one bash call at a time, then say you are done."


@dataclass
class Side:
    label: str
    is_ts: bool = False
    binary: str = ""
    runs: list[Run] = field(default_factory=list)
    failure: str | None = None
    talks_to_model: bool = True

    @property
    def wall(self) -> float:
        return statistics.median(run.wall for run in self.runs)

    @property
    def wall_min(self) -> float:
        return min(run.wall for run in self.runs)

    @property
    def rss_mib(self) -> float:
        return statistics.median(run.maxrss_kib for run in self.runs) / 1024


def run_loop(program: Program, turns: int, scratch: Path, timeout: float) -> Run:
    """One `pi -p` run of the scripted loop against a fresh server, agent dir and project dir."""
    return run_scripted(
        program, print_args(PROMPT.format(turns=turns)), bash_loop(turns, FINAL_TEXT), scratch, timeout=timeout
    )


def measure_sides(programs: list[Program], runs: int, turns: int, scratch: Path, timeout: float) -> list[Side]:
    """Interleaved rounds (one run of each program per round), so a busy spell hits both alike."""
    sides = [Side(program.label, is_ts=program.is_ts, binary=program.argv[-1]) for program in programs]
    for program in programs:
        run_loop(program, 1, scratch, timeout)  # untimed warm-up: file cache and compiled bytecode
    for _ in range(runs):
        for program, side in zip(programs, sides, strict=True):
            if side.failure is not None:
                continue
            run = run_loop(program, turns, scratch, timeout)
            side.failure = failure_of(run, final_text=FINAL_TEXT, requests=turns + 1)
            if side.failure is None:
                side.runs.append(run)
    return sides


def floor_row(scratch: Path) -> Side:
    true = shutil.which("true") or "/bin/true"
    side = Side("`true` through the same intermediate (floor)", talks_to_model=False)
    workspace = Workspace.create(scratch, "http://127.0.0.1:9")
    side.runs.append(measure(Program("true", (true,), is_ts=False), [], workspace, scratch, timeout=30))
    return side


def print_report(sides: list[Side], turns: int) -> None:
    print(f"\n{turns} tool turns + 1 final reply per run; medians over the successful runs\n")
    print("| program | runs | median wall s | min wall s | ms per reply (incl. start-up) | peak RSS MiB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for side in sides:
        if side.failure is not None:
            print(f"| {side.label} | failed ({side.failure}) | | | | |")
            continue
        per_reply = f"{side.wall / (turns + 1) * 1000:.1f}" if side.talks_to_model else ""
        print(
            f"| {side.label} | {len(side.runs)} | {side.wall:.2f} | {side.wall_min:.2f} | {per_reply} "
            f"| {side.rss_mib:.1f} |"
        )
    ts = next((side for side in sides if side.is_ts), None)
    if ts is None:
        return
    for ours in (side for side in sides[1:] if not side.is_ts):
        print(f"\n| {ours.binary} / pi 1.6.0 | ratio | goal | met |")
        print("| --- | ---: | ---: | --- |")
        if ours.failure is not None or ts.failure is not None:
            print("| wall time, peak RSS | not available (a side failed) | | |")
            continue
        wall_ratio = ours.wall / ts.wall
        rss_ratio = ours.rss_mib / ts.rss_mib
        print(f"| wall time | {wall_ratio:.2f} | <= {WALL_GOAL:.2f} | {'yes' if wall_ratio <= WALL_GOAL else 'no'} |")
        print(f"| peak RSS | {rss_ratio:.2f} | <= {RSS_GOAL:.2f} | {'yes' if rss_ratio <= RSS_GOAL else 'no'} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=3, help="runs per program (default 3)")
    parser.add_argument("--turns", type=int, default=50, help="tool turns per run (default 50)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per run")
    add_program_args(parser)
    args = parser.parse_args(argv)
    programs = programs_from_args(args)
    if not programs:
        return 1
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="pi-loop-bench-") as tmp:
        scratch = Path(tmp)
        sides = [floor_row(scratch)]
        sides += measure_sides(programs, args.runs, args.turns, scratch, args.timeout)
        print_report(sides, args.turns)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
