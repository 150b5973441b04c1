"""Shared machinery for running our `pi` and the TypeScript pi 1.6.0 as whole processes, side by side.

Which programs run is always explicit:

- ours: `--ours PATH` (default: the `pi` next to the running Python), any `pi` executable, e.g. the
  one in another checkout's venv;
- the TypeScript pi: `--ts-pi PATH` or `PI_TS_BIN`, and the Node.js to run it with, `--ts-node PATH`
  or `PI_TS_NODE` (optional; without it the file is executed directly, so its `#!/usr/bin/env node`
  line picks whatever `node` is on PATH). See bench/README.md, "How to get pi 1.6.0 for comparison".

Every measured run happens in a fresh, small Python process (`python -I -S`, the "intermediate") that
starts the program, times it with `perf_counter` and reads `getrusage(RUSAGE_CHILDREN).ru_maxrss`: the
exact peak RSS of the largest process in the waited-for tree, not a sampled value. Linux carries the
intermediate's own peak into its child across fork and exec, so every figure includes a floor of
about 11 MiB. `perf_counter` is the system-wide monotonic clock, so the intermediate's start time and
the loopback server's request times (taken in this process) can be subtracted from each other.

Import it with the repository root on `sys.path` (`from bench.side_by_side import ...`).
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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import MODEL_ID, PROVIDER, ScriptedServer, write_agent_dir  # noqa: E402

DEFAULT_OURS = Path(sys.executable).parent / "pi"
TS_HOWTO = "bench/README.md, section 'How to get pi 1.6.0 for comparison'"

# Runs spec["argv"] in spec["cwd"]/spec["env"] and prints one JSON line: exit code, start (perf_counter),
# wall seconds, peak RSS of the waited-for tree in KiB and the tails of the output. With spec["rpc"], it
# writes that line to stdin, reads stdout until the response to it, notes the time, then closes stdin.
_MEASURE = """
import json, resource, subprocess, sys, time
spec = json.loads(sys.argv[1])
answered = None
start = time.perf_counter()
if spec.get("rpc") is None:
    proc = subprocess.run(spec["argv"], cwd=spec["cwd"], env=spec["env"], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=spec["timeout"])
    out, err, rc = proc.stdout, proc.stderr, proc.returncode
else:
    proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=spec["env"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write((json.dumps(spec["rpc"]) + "\\n").encode())
    proc.stdin.flush()
    lines = []
    for line in proc.stdout:
        lines.append(line)
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "response" and event.get("id") == spec["rpc"]["id"]:
            answered = time.perf_counter() - start
            break
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() must not flush it
    rest, err = proc.communicate(timeout=spec["timeout"])
    out, rc = b"".join(lines) + rest, proc.returncode
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": rc, "start": start, "wall": wall, "answered": answered, "maxrss_kib": peak,
                  "stdout": out.decode(errors="replace")[-spec["keep"]:],
                  "stderr": err.decode(errors="replace")[-2000:]}))
"""


@dataclass(frozen=True)
class Program:
    """A `pi` to run: the argv prefix that starts it and how to name it in a table."""

    label: str
    argv: tuple[str, ...]
    is_ts: bool
    node_dir: str | None = None


@dataclass
class Run:
    rc: int
    start: float
    wall: float
    maxrss_kib: int
    stdout: str
    stderr: str
    answered: float | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    request_times: list[float] = field(default_factory=list)

    @property
    def first_request(self) -> float | None:
        """Seconds from the program's start to the server receiving its first model request."""
        return self.request_times[0] - self.start if self.request_times else None


class TimedRequests(list):  # type: ignore[type-arg]
    """The server's request list, noting when each request arrived (the server appends as it reads one)."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def append(self, item: Any) -> None:
        self.times.append(time.perf_counter())
        super().append(item)


def add_program_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ours",
        type=Path,
        action="append",
        help=f"our pi executable; repeat to compare several, e.g. before and after (default {DEFAULT_OURS})",
    )
    parser.add_argument("--ts-pi", type=Path, default=os.environ.get("PI_TS_BIN"), help="pi 1.6.0 (env PI_TS_BIN)")
    parser.add_argument("--ts-node", type=Path, default=os.environ.get("PI_TS_NODE"), help="its node (env PI_TS_NODE)")
    parser.add_argument("--skip-ours", action="store_true", help="measure only the TypeScript pi")
    parser.add_argument("--skip-ts", action="store_true", help="measure only ours")


def output_line(argv: list[str]) -> str:
    """The last line `argv` prints (a version, say), or "?" when it fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"? ({error})"
    text = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return text[-1] if done.returncode == 0 and text else "?"


def ours_program(path: Path) -> Program | None:
    if not path.exists():
        print(f"ours: {path} does not exist (pass --ours PATH to a `pi` executable)", file=sys.stderr)
        return None
    python = path.parent / "python"
    version = output_line([str(path), "--version"])
    py = output_line([str(python), "-c", "import sys; print(sys.version.split()[0])"]) if python.exists() else "?"
    return Program(f"ours {version} (Python {py}, {path})", (str(path),), is_ts=False)


def ts_program(path: Path | None, node: Path | None) -> Program | None:
    """The TypeScript pi, or None after saying how to get one (the benchmarks are not part of CI)."""
    if path is None:
        print(
            f"pi 1.6.0: not configured; set PI_TS_BIN and PI_TS_NODE or pass --ts-pi, see {TS_HOWTO}", file=sys.stderr
        )
        return None
    if not path.exists():
        print(f"pi 1.6.0: {path} does not exist; see {TS_HOWTO}", file=sys.stderr)
        return None
    if node is not None and not node.exists():
        print(f"pi 1.6.0: node {node} does not exist; see {TS_HOWTO}", file=sys.stderr)
        return None
    argv = (str(node), str(path)) if node is not None else (str(path),)
    version = output_line([*argv, "--version"])
    node_version = f"node {output_line([str(node), '--version'])}" if node is not None else "node from PATH"
    return Program(
        f"TypeScript pi {version} ({node_version})", argv, is_ts=True, node_dir=str(node.parent) if node else None
    )


def programs_from_args(args: argparse.Namespace) -> list[Program]:
    """The programs to measure, ours (in the order given) first; an absent one is reported on stderr and left out."""
    found: list[Program | None] = []
    if not args.skip_ours:
        found += [ours_program(path) for path in args.ours or [DEFAULT_OURS]]
    if not args.skip_ts:
        found.append(ts_program(args.ts_pi, args.ts_node))
    return [program for program in found if program is not None]


def pinned_env(agent_dir: Path, home: Path, node_dir: str | None = None) -> dict[str, str]:
    """The caller's environment with pi's config dir, home and network switches pinned to throwaway places.

    `node_dir` goes first on PATH, for a TypeScript pi whose `#!/usr/bin/env node` must find that node.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
    if node_dir is not None:
        env["PATH"] = os.pathsep.join([node_dir, env.get("PATH", "")])
    env.update(
        {
            "PI_CODING_AGENT_DIR": str(agent_dir),
            "HOME": str(home),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "NO_COLOR": "1",
        }
    )
    return env


def isolated_env(program: Program, agent_dir: Path, home: Path, bytecode_dir: Path) -> dict[str, str]:
    """`pinned_env` for a measured run: temporary files under `home`, compiled modules kept in `bytecode_dir`.

    Python keeps compiled modules in `bytecode_dir` across runs, as an installed package does (this
    machine sets PYTHONDONTWRITEBYTECODE, which would make every run compile pi afresh).
    """
    env = pinned_env(agent_dir, home, program.node_dir)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(bytecode_dir)
    env["TMPDIR"] = str(home)  # full-output files of bash go here and are deleted with the workspace
    return env


@dataclass
class Workspace:
    """A fresh agent dir (models.json pointing at `server`), home and project dir for one run."""

    root: Path
    agent_dir: Path
    home: Path
    project: Path

    @classmethod
    def create(cls, scratch: Path, server_url: str) -> Workspace:
        root = Path(tempfile.mkdtemp(dir=scratch))
        agent_dir = write_agent_dir(root / "agent", server_url)
        (root / "home").mkdir()
        (root / "project").mkdir()
        return cls(root, agent_dir, root / "home", root / "project")


def measure(
    program: Program,
    args: list[str],
    workspace: Workspace,
    scratch: Path,
    *,
    timeout: float = 300.0,
    rpc: dict[str, Any] | None = None,
    keep_stdout: int = 4000,
) -> Run:
    """One run of `program args` through the intermediate, in `workspace`."""
    env = isolated_env(program, workspace.agent_dir, workspace.home, scratch / "pycache")
    argv = [*program.argv, *args]
    spec = json.dumps(
        {"argv": argv, "cwd": str(workspace.project), "env": env, "timeout": timeout, "rpc": rpc, "keep": keep_stdout}
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _MEASURE, spec], capture_output=True, text=True)
    if done.returncode != 0:
        return Run(rc=-1, start=0.0, wall=0.0, maxrss_kib=0, stdout="", stderr=done.stderr[-2000:])
    data = json.loads(done.stdout)
    return Run(
        data["rc"], data["start"], data["wall"], data["maxrss_kib"], data["stdout"], data["stderr"], data["answered"]
    )


def run_scripted(
    program: Program,
    args: list[str] | Callable[[Workspace], list[str]],
    replies: list[Any],
    scratch: Path,
    *,
    prepare: Callable[[Workspace], None] | None = None,
    timeout: float = 300.0,
    rpc: dict[str, Any] | None = None,
) -> Run:
    """One run against a fresh loopback server that plays `replies`.

    `prepare(workspace)` may add files first; `args` may be a function of the workspace, for arguments
    that name files in it.
    """
    server = ScriptedServer()
    timed = TimedRequests()
    server.requests = timed
    server.start()
    try:
        server.queue(*replies)
        workspace = Workspace.create(scratch, server.url)
        if prepare is not None:
            prepare(workspace)
        argv = args(workspace) if callable(args) else args
        run = measure(program, argv, workspace, scratch, timeout=timeout, rpc=rpc)
        run.requests = [request.json() for request in timed]
        run.request_times = list(timed.times)
        shutil.rmtree(workspace.root, ignore_errors=True)  # with its session and full-output files
        return run
    finally:
        server.stop()


def print_args(prompt: str) -> list[str]:
    return ["-p", "--offline", "--provider", PROVIDER, "--model", MODEL_ID, prompt]


def failure_of(run: Run, *, final_text: str | None = None, requests: int | None = None) -> str | None:
    """Why a run does not count, or None."""
    if run.rc != 0:
        tail = " | ".join(line for line in run.stderr.strip().splitlines()[-3:] if line.strip())
        return f"exit {run.rc} ({tail or 'no stderr'})"
    if final_text is not None and final_text not in run.stdout:
        return f"final text missing from output ({run.stdout.strip()[-200:]!r})"
    if requests is not None and len(run.requests) != requests:
        return f"{len(run.requests)} model requests, expected {requests}"
    return None


def median(values: list[float]) -> float:
    return statistics.median(values)


def ratio(ours: float | None, ts: float | None) -> str:
    if ours is None or ts is None or ts == 0:
        return ""
    return f"{ours / ts:.2f}"


__all__ = [
    "MODEL_ID",
    "PROVIDER",
    "Program",
    "Run",
    "Workspace",
    "add_program_args",
    "failure_of",
    "isolated_env",
    "measure",
    "median",
    "ours_program",
    "output_line",
    "pinned_env",
    "print_args",
    "programs_from_args",
    "ratio",
    "run_scripted",
    "ts_program",
]
