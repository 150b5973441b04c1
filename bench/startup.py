"""Start-up cost of `pi`: how long `pi --version` takes, how much memory it touches, and what each
import on the way to a first request costs.

Every number is taken in fresh processes, next to a baseline measured in the same run (an empty
``python -c pass``), so a slow or busy machine shows up as a ratio rather than as a regression.

    .venv/bin/python bench/startup.py            # 20 runs of each
    .venv/bin/python bench/startup.py -n 50
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PYTHON = sys.executable
PI = str(Path(sys.executable).parent / "pi")

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


def _report_then_exit(code):  # the pi executable ends with os._exit, which skips atexit
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


def measure_snippet(label: str, setup: str, statement: str, runs: int) -> Row:
    """Time `statement` alone, in a fresh interpreter each run, after an untimed `setup`."""
    code = _TIMER.format(setup=setup, statement=statement)
    times: list[float] = []
    for _ in range(runs + 1):
        out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout) * 1000)
    times = times[1:]  # the first run also compiles .pyc files
    return Row(label, statistics.median(times), min(times))


def measure_import(module: str, runs: int, before: tuple[str, ...] = ()) -> Row:
    setup = "\n".join(f"import {name}" for name in before)
    label = f"import {module}" + (f" (after {', '.join(before)})" if before else "")
    return measure_snippet(label, setup, f"import {module}", runs)


def module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=20, help="measured runs per row (default 20)")
    args = parser.parse_args(argv)
    runs: int = args.runs

    if not Path(PI).exists():
        print(f"no `pi` executable next to {PYTHON}; install the package first", file=sys.stderr)
        return 1

    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs, {runs} runs per row")

    baseline = measure_command("python -c pass (baseline)", [PYTHON, "-c", "pass"], runs)
    commands = [
        baseline,
        measure_command("pi --version", [PI, "--version"], runs),
        measure_command("pi --help", [PI, "--help"], runs),
        measure_command("python -c 'import pi.ai' (reference)", [PYTHON, "-c", "import pi.ai"], runs),
    ]
    print_table("Processes", commands, baseline)

    from pi.ai.registry import BUILTIN_PROVIDER_MODULES

    imports = [measure_import(name, runs) for name in ("pydantic", "httpx", "pi.ai")]
    skipped: list[str] = []
    for api, module in BUILTIN_PROVIDER_MODULES.items():
        if not module_exists(module):
            skipped.append(f"{module} ({api}): not written yet")
            continue
        imports.append(measure_import(module, runs))
        imports.append(measure_import(module, runs, before=("pi.ai",)))
    imports.append(measure_import("pi.ai.models", runs, before=("pi.ai",)))
    imports.append(
        measure_snippet("first catalog lookup (read + build)", "import pi.ai.models as m", "m.get_providers()", runs)
    )
    print_table("Imports (each in a fresh interpreter; ratio against the baseline process)", imports, baseline)
    for note in skipped:
        print(f"  skipped {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
