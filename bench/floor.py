"""The floor under one `pi -p` run of ours: what importing its dependencies alone costs, with and without pydantic.

A launcher runs our `pi` once against the loopback server and notes every module the run imported.
Two scripts then import exactly the modules that are not ours, in the order the run imported them:
one leaves out pydantic and what only pydantic brings (pydantic_core, annotated_types,
typing_inspection, and importlib.metadata, which pydantic's plugin loader pulls in when it builds
its first validator), the other imports them too and validates one model, so the plugin scan runs as
in a real run. Interleaved with these, the whole one-turn run of ours and, when it is there, of pi
1.6.0. The gap between the floor with pydantic and our run is what our own code costs; the gap
between the two floors is pydantic's share.

    .venv/bin/python bench/floor.py -n 15 --ours /other/venv/bin/pi
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.side_by_side import (  # noqa: E402
    DEFAULT_OURS,
    Program,
    add_program_args,
    isolated_env,
    programs_from_args,
    run_scripted,
)
from bench.vs_ts import CASES  # noqa: E402

MODULES_ENV = "BENCH_FLOOR_MODULES"

_LAUNCHER = """#!{python}
import atexit, os, sys


def _note_modules():
    with open(os.environ["{env}"], "w") as out:
        out.write("\\n".join(sys.modules))


atexit.register(_note_modules)
from pi.app.cli import entry
sys.exit(entry())
"""

PYDANTIC_ONLY = ("pydantic", "pydantic_core", "annotated_types", "typing_inspection", "importlib.metadata")
"""Top-level names (and importlib.metadata) that a run imports only because pydantic does."""

_IMPORTER = """import importlib
for name in {modules!r}:
    try:
        importlib.import_module(name)
    except Exception:
        pass
{extra}"""

_ONE_MODEL = """from pydantic import BaseModel


class Probe(BaseModel):
    value: int


Probe(value=1)
"""


def _is_pydantics(name: str) -> bool:
    return any(name == root or name.startswith(root + ".") for root in PYDANTIC_ONLY)


def imported_modules(ours: Path, scratch: Path) -> list[str]:
    """The modules one one-turn run of `ours` imports, in import order, ours and the interpreter's own left out."""
    python = ours.resolve().parent / "python"
    launcher = scratch / "pi-noting-modules"
    launcher.write_text(_LAUNCHER.format(python=python, env=MODULES_ENV))
    launcher.chmod(0o755)
    noted = scratch / "modules"
    os.environ[MODULES_ENV] = str(noted)
    case = next(case for case in CASES if case.name == "one-turn")
    run = run_scripted(Program("noting", (str(launcher),), False), case.args, case.replies(), scratch)
    if run.rc != 0 or not noted.exists():
        raise SystemExit(f"the noting run failed (exit {run.rc}): {run.stderr[-500:]}")
    skip = set(sys.builtin_module_names) | {"__main__", "sitecustomize", "site"}
    return [
        name
        for name in noted.read_text().split()
        if name not in skip and name != "pi" and not name.startswith(("pi.", "encodings", "_frozen"))
    ]


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=11, help="measured runs per row, after a warm-up")
    add_program_args(parser)
    args = parser.parse_args(argv)
    programs = programs_from_args(args)
    ours_path = Path(args.ours[0]) if args.ours else DEFAULT_OURS
    python = str(ours_path.resolve().parent / "python")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        modules = imported_modules(ours_path, scratch)
        without = [name for name in modules if not _is_pydantics(name)]
        scripts = {
            "dependencies without pydantic": _IMPORTER.format(modules=without, extra=""),
            "dependencies with pydantic, one model validated": _IMPORTER.format(modules=modules, extra=_ONE_MODEL),
        }
        env = isolated_env(Program("floor", (python,), False), scratch / "agent", scratch, scratch / "pycache")
        case = next(case for case in CASES if case.name == "one-turn")
        times: dict[str, list[float]] = {"python -c pass": []}
        times.update({label: [] for label in scripts})
        times.update({program.label: [] for program in programs})
        for index in range(args.runs + 1):
            samples = {"python -c pass": timed([python, "-c", "pass"], env)}
            for label, script in scripts.items():
                samples[label] = timed([python, "-c", script], env)
            for program in programs:
                run = run_scripted(program, case.args, case.replies(), scratch, prepare=case.prepare)
                if run.rc != 0:
                    raise SystemExit(f"{program.label} failed (exit {run.rc}): {run.stderr[-500:]}")
                samples[program.label] = run.wall
            if index:  # the first round fills the bytecode and page caches
                for label, value in samples.items():
                    times[label].append(value)
    print(
        f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"{len(without)} of the run's {len(modules)} modules that are not ours come without pydantic"
    )
    print(f"| process | median s | fastest s |  (medians of {args.runs} interleaved runs)")
    print("| --- | ---: | ---: |")
    for label, values in times.items():
        print(f"| {label} | {statistics.median(values):.3f} | {min(values):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
