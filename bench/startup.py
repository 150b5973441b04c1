"""Start-up cost of `pi`: how long `pi --version` takes, how much memory it touches, what each
import on the way to a first request costs, and the same start-up figures of pi 1.6.0.

Every number is taken in fresh processes, next to a baseline measured in the same run (an empty
``python -c pass`` of the Python that runs the measured `pi`), so a slow or busy machine shows up as a
ratio rather than as a regression. The last table runs both programs side by side (interleaved):
`--version`, and `pi -p` with one text reply from the loopback server, timed to the server receiving
the first request and to the end of the process.

    .venv/bin/python bench/startup.py                                  # 20 runs of each
    .venv/bin/python bench/startup.py -n 50 --ours /other/.venv/bin/pi
    PI_TS_BIN=... PI_TS_NODE=... .venv/bin/python bench/startup.py     # with pi 1.6.0 (bench/README.md)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import text_reply  # noqa: E402
from bench.side_by_side import (  # noqa: E402
    Program,
    Run,
    Workspace,
    add_program_args,
    failure_of,
    measure,
    print_args,
    programs_from_args,
    ratio,
    run_scripted,
)

ONE_TURN_TEXT = "Hello from the loopback model."

_TIMER = "import time\n{setup}\nstart = time.perf_counter()\n{statement}\nprint(time.perf_counter() - start)\n"


_RSS_HOOK = """\
import atexit, os


def _report_peak_rss():
    target = os.environ.get("PI_BENCH_RSS_FILE")
    if target:
        with open("/proc/self/status") as status:
            peak = next((line.split()[1] for line in status if line.startswith("VmHWM:")), "")
        with open(target, "w") as out:
            out.write(peak)


atexit.register(_report_peak_rss)

_exit = os._exit


def _report_then_exit(code):  # older pi executables ended with os._exit, which skips atexit
    _report_peak_rss()
    _exit(code)


os._exit = _report_then_exit
"""


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    median_ms: float
    min_ms: float
    rss_mib: float | None = None


def run_once(argv: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - start


def peak_rss_mib(argv: list[str], runs: int) -> float | None:
    """The child's own high-water mark (VmHWM), written by a sitecustomize hook as it exits (atexit or os._exit).

    ``getrusage(RUSAGE_CHILDREN)`` cannot be used: Linux carries the forking parent's peak into
    the child's ``ru_maxrss`` across exec, so every child would look as big as this script. The
    hook runs in separate runs, so it costs the timed runs nothing.
    """
    if not Path("/proc/self/status").exists():
        return None
    peaks: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "sitecustomize.py").write_text(_RSS_HOOK)
        report = Path(tmp) / "rss"
        env = dict(os.environ, PI_BENCH_RSS_FILE=str(report))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))
        for _ in range(runs):
            run_once(argv, env)
            peaks.append(int(report.read_text()))
    return max(peaks) / 1024  # VmHWM is in kB


def measure_command(label: str, argv: list[str], runs: int) -> Row:
    run_once(argv)  # warm the page cache and the .pyc files
    times = [run_once(argv) * 1000 for _ in range(runs)]
    return Row(label, statistics.median(times), min(times), peak_rss_mib(argv, min(runs, 5)))


def measure_snippet(python: str, label: str, setup: str, statement: str, runs: int) -> Row:
    """Time `statement` alone, in a fresh interpreter each run, after an untimed `setup`."""
    code = _TIMER.format(setup=setup, statement=statement)
    times: list[float] = []
    for _ in range(runs + 1):
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout) * 1000)
    times = times[1:]  # the first run also compiles .pyc files
    return Row(label, statistics.median(times), min(times))


def measure_import(python: str, module: str, runs: int, before: tuple[str, ...] = ()) -> Row:
    setup = "\n".join(f"import {name}" for name in before)
    label = f"import {module}" + (f" (after {', '.join(before)})" if before else "")
    return measure_snippet(python, label, setup, f"import {module}", runs)


_PROVIDER_MODULES = """
import importlib.util, json
from pi.ai.registry import BUILTIN_PROVIDER_MODULES
def exists(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
print(json.dumps({api: [name, exists(name)] for api, name in BUILTIN_PROVIDER_MODULES.items()}))
"""


def provider_modules(python: str) -> dict[str, tuple[str, bool]]:
    """`api -> (module, exists)` of the measured installation, asked of its own interpreter."""
    done = subprocess.run([python, "-c", _PROVIDER_MODULES], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"  (provider modules unknown: {done.stderr.strip().splitlines()[-1:]})")
        return {}
    return {api: (name, exists) for api, (name, exists) in json.loads(done.stdout).items()}


def print_table(title: str, rows: list[Row], baseline: Row | None) -> None:
    print(f"\n{title}")
    width = max(len(r.label) for r in rows)
    header = f"  {'':{width}}  {'median ms':>10}  {'min ms':>8}"
    if baseline is not None:
        header += f"  {'x baseline':>10}"
    if any(r.rss_mib is not None for r in rows):
        header += f"  {'peak RSS MiB':>12}"
    print(header)
    for row in rows:
        line = f"  {row.label:{width}}  {row.median_ms:10.1f}  {row.min_ms:8.1f}"
        if baseline is not None:
            line += f"  {row.median_ms / baseline.median_ms:10.2f}"
        if row.rss_mib is not None:
            line += f"  {row.rss_mib:12.1f}"
        print(line)


def one_turn(program: Program, scratch: Path) -> Run:
    return run_scripted(program, print_args("Say hello."), [text_reply(ONE_TURN_TEXT)], scratch, timeout=120)


def side_by_side(programs: list[Program], runs: int) -> None:
    """`--version` and a one-reply `pi -p` of each program, interleaved run by run, medians."""
    with tempfile.TemporaryDirectory(prefix="pi-startup-bench-") as tmp:
        scratch = Path(tmp)
        workspace = Workspace.create(scratch, "http://127.0.0.1:9")
        version: dict[str, list[float]] = {p.label: [] for p in programs}
        first: dict[str, list[float]] = {p.label: [] for p in programs}
        whole: dict[str, list[float]] = {p.label: [] for p in programs}
        rss: dict[str, list[float]] = {p.label: [] for p in programs}
        failed: dict[str, str] = {}
        for program in programs:  # untimed warm-up: page cache, bytecode, node's compile cache
            measure(program, ["--version"], workspace, scratch)
            one_turn(program, scratch)
        for _ in range(runs):
            for program in programs:
                version[program.label].append(measure(program, ["--version"], workspace, scratch).wall)
                if program.label in failed:
                    continue
                run = one_turn(program, scratch)
                problem = failure_of(run, final_text=ONE_TURN_TEXT, requests=1)
                if problem is not None or run.first_request is None:
                    failed[program.label] = problem or "no request"
                    continue
                first[program.label].append(run.first_request)
                whole[program.label].append(run.wall)
                rss[program.label].append(run.maxrss_kib / 1024)
    print(f"\nSide by side, {runs} interleaved runs each, medians (peak RSS includes the ~11 MiB intermediate)")
    print("| program | `--version` ms | `-p` to first request ms | `-p` one turn, whole run ms | peak RSS MiB |")
    print("| --- | ---: | ---: | ---: | ---: |")
    med = statistics.median
    for program in programs:
        if program.label in failed:
            print(
                f"| {program.label} | {med(version[program.label]) * 1000:.1f} | failed ({failed[program.label]}) | | |"
            )
            continue
        print(
            f"| {program.label} | {med(version[program.label]) * 1000:.1f} | {med(first[program.label]) * 1000:.0f} "
            f"| {med(whole[program.label]) * 1000:.0f} | {med(rss[program.label]):.1f} |"
        )
    ts = next((p for p in programs if p.is_ts), None)
    if ts is None or ts.label in failed:
        return
    for ours in (p for p in programs if not p.is_ts and p.label not in failed):

        def both(table: dict[str, list[float]], label: str = ours.label) -> str:
            return ratio(med(table[label]), med(table[ts.label]))

        cells = f"{both(version)} | {both(first)} | {both(whole)} | {both(rss)}"
        print(f"| {ours.argv[0]} / pi 1.6.0 | {cells} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=20, help="measured runs per row (default 20)")
    parser.add_argument("--side-by-side-runs", type=int, default=9, help="runs per program, last table (default 9)")
    parser.add_argument("--skip-imports", action="store_true", help="only the process rows and the side-by-side table")
    add_program_args(parser)
    args = parser.parse_args(argv)
    runs: int = args.runs
    programs = programs_from_args(args)

    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {runs} runs per row")
    for ours in (p for p in programs if not p.is_ts):
        pi = ours.argv[0]
        python = str(Path(pi).parent / "python")
        baseline = measure_command("python -c pass (baseline)", [python, "-c", "pass"], runs)
        commands = [
            baseline,
            measure_command("pi --version", [pi, "--version"], runs),
            measure_command("pi --help", [pi, "--help"], runs),
            measure_command("python -c 'import pi.ai' (reference)", [python, "-c", "import pi.ai"], runs),
        ]
        print_table(f"Processes ({ours.label})", commands, baseline)
        if not args.skip_imports:
            measure_imports(python, runs, baseline)
    if programs:
        side_by_side(programs, args.side_by_side_runs)
    return 0


def measure_imports(python: str, runs: int, baseline: Row) -> None:
    imports = [measure_import(python, name, runs) for name in ("pydantic", "httpcore", "httpx", "pi.ai")]
    skipped: list[str] = []
    for api, (module, exists) in provider_modules(python).items():
        if not exists:
            skipped.append(f"{module} ({api}): not written yet")
            continue
        imports.append(measure_import(python, module, runs))
        imports.append(measure_import(python, module, runs, before=("pi.ai",)))
    imports.append(measure_import(python, "pi.ai.models", runs, before=("pi.ai",)))
    imports.append(
        measure_snippet(
            python, "first catalog lookup (read + build)", "import pi.ai.models as m", "m.get_providers()", runs
        )
    )
    print_table("Imports (each in a fresh interpreter; ratio against the baseline process)", imports, baseline)
    for note in skipped:
        print(f"  skipped {note}")


if __name__ == "__main__":
    raise SystemExit(main())
