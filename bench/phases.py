"""Where the wall time of one `pi -p` run of ours goes: start-up, imports, work, exit and teardown.

Our `pi` is started through a small launcher that runs the same `pi.app.cli.entry` with the same
interpreter, noting `perf_counter` (the system-wide monotonic clock) when the launcher begins, when
`entry()` returns and when the last `atexit` handler runs (registered first, so it runs last). The
loopback server notes when each model request arrives and the intermediate notes when the process
starts and ends, all on that clock, so the run splits into:

- interpreter start: process start to the launcher's first line (the interpreter and `site`);
- imports to the first request: everything up to the model request (imports, settings, models, the
  session, the system prompt, the request itself);
- requests: first to last model request (0 for one turn);
- to the end of main: the last request to `entry()` returning (the reply streamed and printed, the
  session written);
- exit handlers: `entry()` returning to the last `atexit` handler;
- teardown: from there to the process's end (the interpreter's finalisation and the kernel's exit).

    .venv/bin/python bench/phases.py -n 11 --ours /other/venv/bin/pi --case one-turn
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.side_by_side import DEFAULT_OURS, Program, run_scripted  # noqa: E402
from bench.vs_ts import CASES  # noqa: E402

MARKS_ENV = "BENCH_PHASE_MARKS"

_LAUNCHER = """#!{python}
import time
began = time.perf_counter()
import atexit, os, sys


def _last_handler():
    with open(os.environ["{env}"], "w") as out:
        out.write(f"{{began}} {{returned}} {{time.perf_counter()}}")


atexit.register(_last_handler)
from pi.app.cli import entry
try:
    code = entry()
finally:
    returned = time.perf_counter()
sys.exit(code)
"""

PHASES = (
    "interpreter start",
    "imports to the first request",
    "requests",
    "to the end of main",
    "exit handlers",
    "teardown",
    "wall",
)


def launcher_for(pi: Path, directory: Path) -> Path:
    """A script that runs `pi`'s entry point with `pi`'s own interpreter and notes the phase marks."""
    python = pi.resolve().parent / "python"
    if not python.exists():
        python = Path(pi.read_text().splitlines()[0].removeprefix("#!").strip())
    script = directory / "pi-with-marks"
    script.write_text(_LAUNCHER.format(python=python, env=MARKS_ENV))
    script.chmod(0o755)
    return script


def phases_of(start: float, wall: float, request_times: list[float], marks: list[float]) -> list[float]:
    """Seconds spent in each of PHASES for one run."""
    began, returned, last_handler = marks
    first, last = request_times[0], request_times[-1]
    end = start + wall
    marks_in_order = [start, began, first, last, returned, last_handler, end]
    return [later - earlier for earlier, later in itertools.pairwise(marks_in_order)] + [wall]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ours", type=Path, default=DEFAULT_OURS, help=f"our pi executable (default {DEFAULT_OURS})")
    parser.add_argument("--case", default="one-turn", choices=[case.name for case in CASES if not case.rpc])
    parser.add_argument("-n", "--runs", type=int, default=11, help="measured runs, after one warm-up run")
    args = parser.parse_args(argv)
    case = next(case for case in CASES if case.name == args.case)
    rows: list[list[float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        program = Program(f"ours ({args.ours})", (str(launcher_for(args.ours, scratch)),), is_ts=False)
        marks_file = scratch / "marks"
        os.environ[MARKS_ENV] = str(marks_file)
        for index in range(args.runs + 1):
            marks_file.unlink(missing_ok=True)
            run = run_scripted(program, case.args, case.replies(), scratch, prepare=case.prepare)
            if run.rc != 0 or not run.request_times or not marks_file.exists():
                print(f"run {index} failed (exit {run.rc}): {run.stderr.strip()[-500:]}", file=sys.stderr)
                return 1
            if index:  # the first run compiles the modules into the run's bytecode cache
                marks = [float(value) for value in marks_file.read_text().split()]
                rows.append(phases_of(run.start, run.wall, run.request_times, marks))
    print(f"{case.title}, {program.label}: ms over {args.runs} runs after a warm-up")
    print("| phase | fastest | first quartile | median |")
    print("| --- | ---: | ---: | ---: |")
    for column, name in enumerate(PHASES):
        values = sorted(row[column] * 1000 for row in rows)
        quartile = statistics.quantiles(values, n=4, method="inclusive")[0] if len(values) > 1 else values[0]
        print(f"| {name} | {values[0]:.1f} | {quartile:.1f} | {statistics.median(values):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
