"""Wall time and peak memory of a 50-turn tool loop: our `pi -p` against the TypeScript pi, same server.

Both programs are pointed, each through its own agent dir (`PI_CODING_AGENT_DIR` holding a
models.json), at one loopback Chat Completions server that replies with a `bash` call running
`echo <n>` for n = 1..turns, one call per reply, and then a final text. So each run is one process
start, `turns + 1` streamed model replies, `turns` shell commands and the session file written as it
grows: the work a user waits for when the model is fast.

Memory is the peak resident set of the measured process tree, read exactly rather than sampled: each
run happens inside a fresh, small Python process (`python -I -S`) that starts the program, waits for
it and reports `getrusage(RUSAGE_CHILDREN).ru_maxrss`, the largest peak of any process it and its
descendants waited for (the agent itself; its shell children are tiny). Linux carries a parent's
peak into a child across fork and exec, so every number includes the intermediate's own few MiB;
the `true` row shows that floor. Wall time is taken inside the intermediate, around the child only.

Goals: ours at most 1/3 of the TypeScript pi's wall time and at most 1/2 of its memory.

    .venv/bin/python bench/loop_vs_ts.py                  # 3 runs per side, 50 turns
    .venv/bin/python bench/loop_vs_ts.py -n 5 --turns 20
    .venv/bin/python bench/loop_vs_ts.py --ts-pi /path/to/pi --skip-ours
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import MODEL_ID, PROVIDER, bash_loop, start_server, write_agent_dir  # noqa: E402

TS_PACKAGE = "@mariozechner/pi-coding-agent"
DEFAULT_TS_PREFIX = Path("/tmp/tspi")
OUR_PI = Path(sys.executable).parent / "pi"
WALL_GOAL = 1 / 3
RSS_GOAL = 1 / 2
FINAL_TEXT = "All echoes done."
PROMPT = "Run echo with the numbers 1 to {turns}, one bash call at a time, then say you are done."

# Runs argv (JSON in argv[1]) in cwd/env, then prints one JSON line: exit code, wall seconds, peak RSS
# of the waited-for process tree in KiB, and the tails of the child's output.
_MEASURE = """
import json, resource, subprocess, sys, time
spec = json.loads(sys.argv[1])
start = time.perf_counter()
proc = subprocess.run(spec["argv"], cwd=spec["cwd"], env=spec["env"], stdin=subprocess.DEVNULL,
                      capture_output=True, timeout=spec["timeout"])
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": proc.returncode, "wall": wall, "maxrss_kib": peak,
                  "stdout": proc.stdout.decode(errors="replace")[-2000:],
                  "stderr": proc.stderr.decode(errors="replace")[-2000:]}))
"""


@dataclass
class Run:
    rc: int
    wall: float
    maxrss_kib: int
    stdout: str
    stderr: str
    requests: int = 0


@dataclass
class Side:
    label: str
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


def ensure_ts_pi(explicit: Path | None = None, prefix: Path = DEFAULT_TS_PREFIX) -> Path:
    """The TypeScript `pi` binary: the given path, or the one under `prefix`, installed there with npm if missing."""
    if explicit is not None:
        if not explicit.exists():
            raise SystemExit(f"--ts-pi {explicit} does not exist")
        return explicit
    binary = prefix / "node_modules" / ".bin" / "pi"
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"{binary} is missing and npm is not on PATH to install {TS_PACKAGE}")
        print(f"installing {TS_PACKAGE} into {prefix} ...", file=sys.stderr)
        subprocess.run([npm, "install", "--prefix", str(prefix), TS_PACKAGE], check=True, stdout=subprocess.DEVNULL)
    return binary


def program_version(binary: Path) -> str:
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        return f"? ({error})"
    return (done.stdout.strip() or done.stderr.strip()).splitlines()[-1] if done.returncode == 0 else "?"


def isolated_env(agent_dir: Path, home: Path, bytecode_dir: Path | None = None) -> dict[str, str]:
    """The caller's environment with pi's config, home and network switches pinned to throwaway places.

    With `bytecode_dir`, Python keeps compiled modules there across runs, as an installed package
    does (this machine sets PYTHONDONTWRITEBYTECODE, which would make every run compile pi afresh).
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    if bytecode_dir is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode_dir)
    env.update(
        {
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "HOME": str(home),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "NO_COLOR": "1",
        }
    )
    return env


def measure(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Run:
    spec = json.dumps({"argv": argv, "cwd": str(cwd), "env": env, "timeout": timeout})
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _MEASURE, spec], capture_output=True, text=True)
    if done.returncode != 0:
        return Run(rc=-1, wall=0.0, maxrss_kib=0, stdout="", stderr=done.stderr[-2000:])
    data = json.loads(done.stdout)
    return Run(data["rc"], data["wall"], data["maxrss_kib"], data["stdout"], data["stderr"])


def run_loop(binary: Path, turns: int, scratch: Path, timeout: float) -> Run:
    """One `pi -p` run of the scripted loop against a fresh server, agent dir and project dir."""
    server = start_server()
    try:
        server.queue(*bash_loop(turns, FINAL_TEXT))
        work = Path(tempfile.mkdtemp(dir=scratch))
        agent_dir = write_agent_dir(work / "agent", server.url)
        (work / "home").mkdir()
        (work / "project").mkdir()
        argv = [str(binary), "-p", "--offline", "--provider", PROVIDER, "--model", MODEL_ID, PROMPT.format(turns=turns)]
        env = isolated_env(agent_dir, work / "home", scratch / "pycache")
        run = measure(argv, work / "project", env, timeout)
        run.requests = len(server.requests)
        return run
    finally:
        server.stop()


def failure_of(run: Run, turns: int) -> str | None:
    if run.rc != 0:
        tail = " | ".join(line for line in run.stderr.strip().splitlines()[-3:] if line.strip())
        return f"exit {run.rc} ({tail or 'no stderr'})"
    if FINAL_TEXT not in run.stdout:
        return f"final text missing from output ({run.stdout.strip()[-200:]!r})"
    if run.requests != turns + 1:
        return f"{run.requests} model requests, expected {turns + 1}"
    return None


def measure_side(label: str, binary: Path, runs: int, turns: int, scratch: Path, timeout: float) -> Side:
    side = Side(label)
    run_loop(binary, 1, scratch, timeout)  # untimed warm-up: file cache and compiled bytecode, for both sides
    for _ in range(runs):
        run = run_loop(binary, turns, scratch, timeout)
        problem = failure_of(run, turns)
        if problem is not None:
            side.failure = problem
            return side
        side.runs.append(run)
    return side


def floor_row(scratch: Path) -> Side:
    true = shutil.which("true") or "/bin/true"
    side = Side("`true` through the same intermediate (floor)", talks_to_model=False)
    side.runs.append(measure([true], scratch, dict(os.environ), 30))
    return side


def print_report(sides: list[Side], ours: Side | None, ts: Side | None, turns: int) -> None:
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
    if ours is None or ts is None:
        return
    if ours.failure is not None or ts.failure is not None:
        failed = "ours" if ours.failure is not None else "TypeScript pi"
        print(f"\nratios: not available ({failed}: failed)")
        if ours.failure is not None:
            print(f"ours: failed ({ours.failure})")
        return
    wall_ratio = ours.wall / ts.wall
    rss_ratio = ours.rss_mib / ts.rss_mib
    print("\n| ours / TypeScript pi | ratio | goal | met |")
    print("| --- | ---: | ---: | --- |")
    print(f"| wall time | {wall_ratio:.2f} | <= {WALL_GOAL:.2f} | {'yes' if wall_ratio <= WALL_GOAL else 'no'} |")
    print(f"| peak RSS | {rss_ratio:.2f} | <= {RSS_GOAL:.2f} | {'yes' if rss_ratio <= RSS_GOAL else 'no'} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=3, help="runs per program (default 3)")
    parser.add_argument("--turns", type=int, default=50, help="tool turns per run (default 50)")
    parser.add_argument("--ts-pi", type=Path, help="the TypeScript pi binary (default: under --ts-prefix)")
    parser.add_argument("--ts-prefix", type=Path, default=DEFAULT_TS_PREFIX, help="npm prefix to find/install it in")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per run")
    parser.add_argument("--skip-ours", action="store_true", help="measure only the TypeScript pi")
    parser.add_argument("--skip-ts", action="store_true", help="measure only ours")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="pi-loop-bench-") as tmp:
        scratch = Path(tmp)
        sides = [floor_row(scratch)]
        ts: Side | None = None
        ours: Side | None = None
        if not args.skip_ts:
            ts_pi = ensure_ts_pi(args.ts_pi, args.ts_prefix)
            node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
            label = f"TypeScript pi {program_version(ts_pi)} (node {node or '?'})"
            ts = measure_side(label, ts_pi, args.runs, args.turns, scratch, args.timeout)
            sides.append(ts)
        if not args.skip_ours:
            if OUR_PI.exists():
                label = f"ours {program_version(OUR_PI)} (Python {sys.version.split()[0]})"
                ours = measure_side(label, OUR_PI, args.runs, args.turns, scratch, args.timeout)
            else:
                ours = Side("ours", failure=f"{OUR_PI} not found")
            sides.append(ours)
        print_report(sides, ours, ts, args.turns)
        if ours is not None and ours.failure is not None and ts is None:
            print(f"\nours: failed ({ours.failure})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
