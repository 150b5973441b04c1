"""The interactive UI under tmux, our `pi` against pi 1.6.0: first frame, CPU while streaming, resume memory.

Each program runs in a window of a private tmux server (`tmux -L <name>`, 120x40, `remain-on-exit`
so a program that quits at once still shows why), with a fresh agent dir whose models.json points at
a loopback Chat Completions server, a fresh home and project dir, and `PI_OFFLINE=1`. The command is
`exec env -i ... <pi>`, so the pane's process is the program itself and /proc/<pid> is its own.

- first frame: seconds from creating the window to the first `tmux capture-pane` that shows a full
  frame: the footer (the model's id or name in the bottom lines) and the start-up header (a version
  `v<major>.<minor>` in the top lines), polled every 10 ms. pi 1.6.0 draws the editor and the footer
  first and the header a moment later, so the footer alone marks a partial frame;
- streaming CPU: the prompt is typed and sent; the server streams a markdown reply (headings, lists,
  code, a table) spread evenly over 10 seconds; user+system CPU seconds of the process (from
  /proc/<pid>/stat, all threads) from the request's arrival until the reply's last line is on screen;
- key echo: 3 s into the stream one character (`Z`, which nothing else the program writes contains)
  is typed; milliseconds from calling `tmux send-keys` until the program has written it to the
  terminal. The program's output is read as it is written, through `tmux pipe-pane` into a file that
  is polled every 0.5 ms, so neither screen captures nor tmux's redraw are part of the figure; what
  remains of tmux (starting a `send-keys` client, delivering the key, passing the output on) is
  measured alone as the echo of `cat` in the same tmux and printed as the floor. The goal is an echo
  within one frame (16 ms) of that floor;
- resume memory: `pi --session <file>` on a generated 2,000-message session; once the footer and the
  last message's text are on screen, the process's peak RSS (VmHWM of /proc/<pid>/status).

A program without an interactive UI (it exits, or never draws the footer) is reported as
"interactive UI not available" with what it printed, not as a failure.

    .venv/bin/python bench/tui.py                        # PI_TS_BIN/PI_TS_NODE for pi 1.6.0, 3 runs each
    .venv/bin/python bench/tui.py -n 5 --ours /other/.venv/bin/pi
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
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

from bench.fake_openai_server import MODEL_ID, PROVIDER, ScriptedServer, text_reply  # noqa: E402
from bench.side_by_side import Program, Workspace, add_program_args, isolated_env, programs_from_args, ratio  # noqa: E402
from bench.vs_ts import session_path, write_long_session  # noqa: E402

WIDTH, HEIGHT = 120, 40
POLL_S = 0.01
STREAM_S = 10.0
RESUME_MESSAGES = 2_000
MODEL_NAME = "Fake Model"  # as in bench/fake_openai_server.models_json
LAST_LINE = "End of the streamed report."
UNAVAILABLE = "interactive UI not available"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
VERSION = re.compile(r"\bv\d+\.\d+")
ECHO_AFTER_S = 3.0
ECHO_KEY = "Z"  # not in the reply, the footer or the header
ECHO_POLL_S = 0.0005


class Unavailable(Exception):
    """The program did not open an interactive UI."""


@dataclass
class Figures:
    first_frame: list[float] = field(default_factory=list)
    stream_cpu: list[float] = field(default_factory=list)
    stream_wall: list[float] = field(default_factory=list)
    resume_hwm: list[float] = field(default_factory=list)
    resume_frame: list[float] = field(default_factory=list)
    key_echo: list[float] = field(default_factory=list)
    unavailable: str | None = None
    failure: str | None = None


def markdown_reply() -> str:
    """About 4 KB of markdown ending in `LAST_LINE`, the kind of reply a renderer has to re-lay-out."""
    blocks = []
    for n in range(1, 9):
        blocks.append(
            f"## Part {n}: what the module does\n\n"
            f"The **parser** reads tokens and builds a tree; see `parse_{n}()` and *the notes* below.\n\n"
            f"- first point about step {n}, with `inline code`\n- second point, longer, so that it wraps "
            f"on a narrow terminal and the renderer has to break it over lines\n- third point\n\n"
            f"```python\ndef parse_{n}(tokens):\n    tree = []\n    for token in tokens:\n"
            f"        tree.append(token)\n    return tree\n```\n\n"
            f"| name | value |\n| --- | --- |\n| step | {n} |\n| state | ok |\n\n"
        )
    return "".join(blocks) + LAST_LINE + "\n"


def streamed_reply() -> Any:
    reply = text_reply(markdown_reply())
    reply.chunk_delay = STREAM_S / len(reply.chunks)
    return reply


class Tmux:
    """A private tmux server, so nothing of the user's own sessions is touched."""

    def __init__(self) -> None:
        self.socket = f"pi-bench-{os.getpid()}"
        self.run(
            "-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", str(WIDTH), "-y", str(HEIGHT), "sleep 3600"
        )
        self.run("set-option", "-g", "remain-on-exit", "on")

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def open(self, command: str) -> tuple[str, int]:
        """A new window running `command`: its target and the pid of its process."""
        out = self.run("new-window", "-t", "bench", "-P", "-F", "#{window_id} #{pane_pid}", command)
        window, pid = out.split()
        return window, int(pid)

    def screen(self, window: str) -> list[str]:
        return self.run("capture-pane", "-p", "-t", window).splitlines()

    def everything(self, window: str) -> list[str]:
        """The screen and the lines scrolled off it."""
        return self.run("capture-pane", "-p", "-S", "-", "-t", window).splitlines()

    def dead(self, window: str) -> bool:
        return self.run("display-message", "-p", "-t", window, "#{pane_dead}").strip() == "1"

    def close(self, window: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-window", "-t", window], capture_output=True)

    def stop(self) -> None:
        socket_path = self.run("display-message", "-p", "#{socket_path}").strip()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        if socket_path:  # the server leaves its socket file behind
            Path(socket_path).unlink(missing_ok=True)


def command_line(program: Program, workspace: Workspace, scratch: Path, extra: list[str]) -> str:
    env = isolated_env(program, workspace.agent_dir, workspace.home, scratch / "pycache")
    env.update({"TERM": "tmux-256color", "LANG": env.get("LANG", "C.UTF-8"), "COLORTERM": "truecolor"})
    env.pop("NO_COLOR", None)
    env.pop("TMUX", None)
    assignments = [f"{key}={value}" for key, value in env.items()]
    argv = [*program.argv, "--provider", PROVIDER, "--model", MODEL_ID, *extra]
    return f"cd {shlex.quote(str(workspace.project))} && exec env -i " + shlex.join([*assignments, *argv])


def wait_for(tmux: Tmux, window: str, ready: Callable[[list[str]], bool], timeout: float) -> float:
    """Poll the screen until `ready(lines)`; the time it took. Raises Unavailable if the program ends first."""
    start = time.perf_counter()
    while True:
        lines = tmux.screen(window)
        if ready(lines):
            return time.perf_counter() - start
        if tmux.dead(window):
            lines = tmux.everything(window)
            said = " ".join(line.strip() for line in lines if line.strip() and "Pane is dead" not in line)
            raise Unavailable(said[:160] or "it exited without output")
        if time.perf_counter() - start > timeout:
            last = next((line.strip() for line in reversed(lines) if line.strip()), "blank screen")
            raise Unavailable(f"no footer with {MODEL_ID} after {timeout:.0f} s; last line: {last}")
        time.sleep(POLL_S)


def footer_shown(lines: list[str]) -> bool:
    return any(MODEL_ID in line or MODEL_NAME in line for line in lines[-4:])


def full_frame(lines: list[str]) -> bool:
    """Footer and start-up header both drawn."""
    return footer_shown(lines) and any(VERSION.search(line) for line in lines[:8])


class PaneOutput:
    """What the pane's program writes from now on, copied by `tmux pipe-pane` into a file read as it grows."""

    def __init__(self, tmux: Tmux, window: str, path: Path) -> None:
        self.tmux, self.window = tmux, window
        path.write_bytes(b"")
        tmux.run("pipe-pane", "-t", window, f"exec cat >> {shlex.quote(str(path))}")
        self.file = path.open("rb")

    def read_until(self, wanted: bytes, timeout: float) -> float | None:
        """Seconds until `wanted` is among the bytes written after this call, or None at the timeout."""
        start = time.perf_counter()
        seen = b""
        while time.perf_counter() - start < timeout:
            chunk = self.file.read()
            if chunk:
                seen = seen[-len(wanted) :] + chunk
                if wanted in seen:
                    return time.perf_counter() - start
            else:
                time.sleep(ECHO_POLL_S)
        return None

    def drain(self) -> None:
        self.file.read()

    def close(self) -> None:
        self.tmux.run("pipe-pane", "-t", self.window)  # no command: stop piping
        self.file.close()


def key_echo_seconds(tmux: Tmux, window: str, output: PaneOutput) -> float:
    """Type `ECHO_KEY`: seconds from calling `send-keys` until the program has written it."""
    output.drain()
    start = time.perf_counter()
    tmux.run("send-keys", "-t", window, "-l", ECHO_KEY)
    if output.read_until(ECHO_KEY.encode(), 5.0) is None:
        raise Unavailable(f"the typed {ECHO_KEY!r} was not written within 5 s")
    return time.perf_counter() - start


def start_piping(tmux: Tmux, window: str, path: Path, warm_up_key: str | None) -> PaneOutput:
    """Pipe the pane's output into `path`, returning once the pipe carries bytes.

    `pipe-pane` starts its command in the background, so a key typed at once could be echoed before
    the pipe exists. A program that is writing anyway (a streaming reply) proves the pipe by writing;
    a quiet one (`cat`) is sent `warm_up_key` first.
    """
    output = PaneOutput(tmux, window, path)
    wanted = warm_up_key.encode() if warm_up_key is not None else b""
    for _ in range(20):
        if warm_up_key is not None:
            tmux.run("send-keys", "-t", window, "-l", warm_up_key)
        if output.read_until(wanted, 0.25) is not None:
            return output
    output.close()
    raise Unavailable("tmux pipe-pane carried no output")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: fields 14 and 15 of stat


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def first_frame_and_stream(program: Program, tmux: Tmux, scratch: Path, figures: Figures) -> None:
    server = ScriptedServer().start()
    window = None
    try:
        server.queue(streamed_reply())
        workspace = Workspace.create(scratch, server.url)
        started = time.perf_counter()
        window, pid = tmux.open(command_line(program, workspace, scratch, []))
        wait_for(tmux, window, full_frame, 60)
        figures.first_frame.append(time.perf_counter() - started)
        tmux.run("send-keys", "-t", window, "-l", "Write a long markdown report.")
        tmux.run("send-keys", "-t", window, "Enter")
        deadline = time.perf_counter() + 30
        while not server.requests:
            if time.perf_counter() > deadline:
                raise Unavailable("the typed prompt sent no request")
            time.sleep(POLL_S)
        cpu_at_request = cpu_seconds(pid)
        requested = time.perf_counter()
        time.sleep(ECHO_AFTER_S)
        output = start_piping(tmux, window, scratch / f"pane-{pid}.out", None)
        try:
            figures.key_echo.append(key_echo_seconds(tmux, window, output))
        finally:
            output.close()
        wait_for(tmux, window, lambda lines: any(LAST_LINE in line for line in lines), STREAM_S * 4)
        shown = time.perf_counter() - requested
        figures.stream_cpu.append(cpu_seconds(pid) - cpu_at_request)
        figures.stream_wall.append(shown)
    finally:
        if window is not None:
            tmux.close(window)
        server.stop()


def resume(program: Program, tmux: Tmux, scratch: Path, figures: Figures) -> None:
    server = ScriptedServer().start()
    window = None
    try:
        workspace = Workspace.create(scratch, server.url)
        write_long_session(workspace, RESUME_MESSAGES)
        last_text = f"Reading module {RESUME_MESSAGES - 1} now"  # entry 1,999 is an assistant reply
        started = time.perf_counter()
        window, pid = tmux.open(command_line(program, workspace, scratch, ["--session", str(session_path(workspace))]))
        wait_for(tmux, window, lambda lines: footer_shown(lines) and any(last_text in line for line in lines), 120)
        figures.resume_frame.append(time.perf_counter() - started)
        figures.resume_hwm.append(peak_rss_mib(pid))
    finally:
        if window is not None:
            tmux.close(window)
        server.stop()


def echo_floor(tmux: Tmux, scratch: Path, samples: int = 15) -> list[float]:
    """Key echo of `cat`, which the terminal echoes at once: what tmux and the measuring add to every echo."""
    window, pid = tmux.open("cat")
    output = None
    try:
        wait_for(tmux, window, lambda lines: True, 5)
        output = start_piping(tmux, window, scratch / f"pane-{pid}.out", "W")
        return [key_echo_seconds(tmux, window, output) for _ in range(samples)]
    finally:
        if output is not None:
            output.close()
        tmux.close(window)


def measure(programs: list[Program], runs: int) -> dict[str, Figures]:
    results = {program.label: Figures() for program in programs}
    tmux = Tmux()
    try:
        with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as tmp:
            scratch = Path(tmp)
            floor = echo_floor(tmux, scratch)
            print(f"key echo floor (`cat` in the same tmux): median {statistics.median(floor) * 1000:.1f} ms")
            for index in range(runs + 1):  # the first round is an untimed warm-up
                for program in programs:
                    figures = results[program.label]
                    if figures.unavailable or figures.failure:
                        continue
                    target = figures if index else Figures()
                    try:
                        first_frame_and_stream(program, tmux, scratch, target)
                        resume(program, tmux, scratch, target)
                    except Unavailable as why:
                        figures.unavailable = str(why)
                    except (OSError, subprocess.CalledProcessError) as error:
                        figures.failure = str(error)
    finally:
        tmux.stop()
    return results


def report(programs: list[Program], results: dict[str, Figures], runs: int) -> None:
    print(f"\nInteractive UI under tmux ({WIDTH}x{HEIGHT}), medians of {runs} runs after one warm-up")
    print(
        "| program | first frame s | reply streamed, request to last line shown s | CPU s meanwhile | "
        f"resume {RESUME_MESSAGES:,} messages: to frame s | peak RSS MiB | key echo while streaming ms |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    medians: dict[str, list[float]] = {}
    for program in programs:
        figures = results[program.label]
        if figures.unavailable is not None:
            print(f"| {program.label} | {UNAVAILABLE} ({figures.unavailable}) | | | | | |")
            continue
        if figures.failure is not None:
            print(f"| {program.label} | failed ({figures.failure}) | | | | | |")
            continue
        columns = [
            figures.first_frame,
            figures.stream_wall,
            figures.stream_cpu,
            figures.resume_frame,
            figures.resume_hwm,
            figures.key_echo,
        ]
        medians[program.label] = [statistics.median(values) for values in columns]
        first, wall, cpu, frame, hwm, echo = medians[program.label]
        print(
            f"| {program.label} | {first:.2f} | {wall:.2f} | {cpu:.2f} | {frame:.2f} | {hwm:.1f} | {echo * 1000:.0f} |"
        )
    ts = next((p for p in programs if p.is_ts), None)
    for ours in (p for p in programs if not p.is_ts):
        if ts is not None and ours.label in medians and ts.label in medians:
            cells = [ratio(a, b) for a, b in zip(medians[ours.label], medians[ts.label], strict=True)]
            print(f"| {ours.argv[0]} / pi 1.6.0 | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=3, help="runs per program (default 3)")
    add_program_args(parser)
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed (apt-get install tmux)", file=sys.stderr)
        return 1
    programs = programs_from_args(args)
    if not programs:
        return 1
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = measure(programs, args.runs)
    report(programs, results, args.runs)
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for program in programs:
        if results[program.label].unavailable is not None:
            print(f"{program.label}: {UNAVAILABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
