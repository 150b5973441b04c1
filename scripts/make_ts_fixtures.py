"""Regenerate tests/session/fixtures/ts/: session files and request bodies written by the TypeScript pi.

Our session files must be readable by the TypeScript pi and theirs by us, so the session layer is
tested against files the other implementation really wrote. This script runs the TypeScript pi
(installed with npm into a throwaway prefix if missing) against the loopback Chat Completions server
of `bench/fake_openai_server.py`, each case with its own agent dir, home and project dir under a
fixed work dir (so the absolute paths inside the files are the same on every machine and nothing in
them needs rewriting), and copies what it wrote, byte for byte, next to a README that records the
versions and the exact commands.

Needs pi 1.6.0 (`--ts-pi`, else `PI_TS_BIN`, else installed with npm into /tmp/tspi), so neither the
test suite nor CI runs it:

    .venv/bin/python scripts/make_ts_fixtures.py [--ts-pi PATH] [--work-dir /tmp/pi-ts-fixtures]
"""

from __future__ import annotations

import argparse
import json
import queue
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import (  # noqa: E402
    MODEL_ID,
    PROVIDER,
    REASONING_MODEL_ID,
    ScriptedServer,
    start_server,
    text_reply,
    tool_call_reply,
    write_agent_dir,
)
from scripts.ts_pi import DEFAULT_TS_PREFIX, TS_PACKAGE, ensure_ts_pi, isolated_env, node_version, program_version  # noqa: E402
from tests.support.http_server import RecordedRequest  # noqa: E402

DEFAULT_WORK_DIR = Path("/tmp/pi-ts-fixtures")
DEFAULT_OUT = REPO / "tests" / "session" / "fixtures" / "ts"
REPLY_TIMEOUT_S = 60.0

# Commands that append the entry types print mode cannot reach: custom, label, custom_message, and a
# branch_summary from going back to an earlier reply (which makes the next prompt a sibling branch).
EXTENSION_JS = """\
export default function (pi) {
  pi.registerCommand("mark", {
    description: "Label the last reply and record extension entries",
    handler: async (_args, ctx) => {
      pi.setLabel(ctx.sessionManager.getLeafId(), "checkpoint");
      pi.appendEntry("fixture-state", { count: 1 });
      pi.sendMessage({
        customType: "fixture-note",
        content: "A note from an extension.",
        display: true,
        details: { source: "fixture" },
      });
    },
  });
  pi.registerCommand("back", {
    description: "Return to the first reply, summarizing the abandoned branch",
    handler: async (_args, ctx) => {
      const first = ctx.sessionManager
        .getEntries()
        .find((entry) => entry.type === "message" && entry.message.role === "assistant");
      await ctx.navigateTree(first.id, { summarize: true });
    },
  });
}
"""


@dataclass
class Workspace:
    """One case: its own server, agent dir, home and project dir, and the commands run in it."""

    name: str
    root: Path
    server: ScriptedServer
    commands: list[str] = field(default_factory=list)

    @property
    def agent(self) -> Path:
        return self.root / "agent"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def env(self) -> dict[str, str]:
        return isolated_env(self.agent, self.root / "home")

    def session_files(self) -> list[Path]:
        return sorted((self.agent / "sessions").rglob("*.jsonl"))

    def only_session_file(self) -> Path:
        files = self.session_files()
        if len(files) != 1:
            raise SystemExit(f"{self.name}: expected one session file, found {[str(f) for f in files]}")
        return files[0]


def open_workspace(work_dir: Path, name: str) -> Workspace:
    root = work_dir / name
    shutil.rmtree(root, ignore_errors=True)
    for sub in ("home", "project"):
        (root / sub).mkdir(parents=True)
    server = start_server()
    write_agent_dir(root / "agent", server.url)
    return Workspace(name, root, server)


def shown(argv: list[str], ts_pi: Path) -> str:
    return shlex.join(["pi", *argv[1:]]) if argv[0] == str(ts_pi) else shlex.join(argv)


def run_print(ts_pi: Path, ws: Workspace, *args: str) -> str:
    argv = [str(ts_pi), "-p", "--offline", *args]
    ws.commands.append(shown(argv, ts_pi))
    done = subprocess.run(
        argv, cwd=ws.project, env=ws.env, capture_output=True, text=True, timeout=REPLY_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{ws.name}: {shown(argv, ts_pi)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


class RpcClient:
    """Drives `pi --mode rpc`: one JSON command per stdin line, responses and events read on a thread."""

    def __init__(self, argv: list[str], ws: Workspace) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=ws.project,
            env=ws.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.ws = ws
        self._next_id = 0
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def _until(self, wanted: str, command_id: str | None = None) -> dict[str, Any]:
        while True:
            try:
                frame = self.lines.get(timeout=REPLY_TIMEOUT_S)
            except queue.Empty:
                raise SystemExit(f"{self.ws.name}: no {wanted!r} from pi within {REPLY_TIMEOUT_S} s") from None
            if frame is None:
                stderr = self.process.stderr.read() if self.process.stderr else ""
                raise SystemExit(f"{self.ws.name}: pi exited while waiting for {wanted!r}:\n{stderr}")
            if frame.get("type") == wanted and (command_id is None or frame.get("id") == command_id):
                return frame

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command and wait for its response; a failed command stops the script."""
        self._next_id += 1
        command_id = str(self._next_id)
        framed = {"id": command_id, **command}
        self.ws.commands.append(json.dumps(framed))
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(framed) + "\n")
        self.process.stdin.flush()
        response = self._until("response", command_id)
        if not response.get("success"):
            raise SystemExit(f"{self.ws.name}: {command['type']} failed: {response.get('error')}")
        return response

    def prompt(self, message: str) -> None:
        """Prompt and wait until the agent has finished answering it."""
        self.send({"type": "prompt", "message": message})
        self._until("agent_end")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.terminate()
        self.process.wait(timeout=10)


def copy_fixture(source: Path, out: Path, name: str) -> None:
    shutil.copyfile(source, out / name)
    print(f"  {name}  <-  {source}")


REDACTED = "[redacted: prose of the TypeScript pi]"


def redact(value: Any, key: str | None = None) -> Any:
    """The request's shape without the TypeScript pi's prose (system prompt, tool descriptions, prompts).

    Only structure and field names are facts we compare against; its wording is not ours to keep.
    """
    if isinstance(value, dict):
        if value.get("role") in ("system", "developer"):
            return {**value, "content": REDACTED}
        return {k: redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str) and (key == "description" or len(value) > 160):
        return REDACTED
    return value


def save_request(request: RecordedRequest, out: Path, name: str) -> None:
    """The body as sent, with prose redacted, re-indented for review (keys in the order pi sent them)."""
    text = json.dumps(redact(request.json()), indent=2, ensure_ascii=False) + "\n"
    (out / name).write_text(text, encoding="utf-8")
    print(f"  {name}  <-  {request.method} {request.path}")


def case_simple(ts_pi: Path, ws: Workspace, out: Path) -> None:
    ws.server.queue(text_reply("Hello! What shall we work on?"))
    run_print(ts_pi, ws, "--provider", PROVIDER, "--model", MODEL_ID, "Say hello.")
    copy_fixture(ws.only_session_file(), out, "ts_simple.jsonl")
    save_request(ws.server.requests[0], out, "request_simple.json")


def case_bash_tool(ts_pi: Path, ws: Workspace, out: Path) -> None:
    ws.server.queue(
        tool_call_reply("call_bash_1", "bash", {"command": "echo hello"}),
        text_reply("The command printed hello."),
    )
    run_print(ts_pi, ws, "--provider", PROVIDER, "--model", MODEL_ID, "Run echo hello and tell me what it printed.")
    copy_fixture(ws.only_session_file(), out, "ts_bash_tool.jsonl")
    save_request(ws.server.requests[0], out, "request_bash_turn1.json")
    save_request(ws.server.requests[1], out, "request_bash_turn2.json")
    headers = json.dumps(ws.server.requests[0].headers, indent=2) + "\n"
    (out / "request_bash_turn1.headers.json").write_text(headers, encoding="utf-8")


def case_continued(ts_pi: Path, ws: Workspace, out: Path) -> None:
    ws.server.queue(text_reply("Noted: 7."), text_reply("You asked me to remember 7."))
    run_print(ts_pi, ws, "--provider", PROVIDER, "--model", MODEL_ID, "Remember the number 7.")
    run_print(ts_pi, ws, "-c", "--provider", PROVIDER, "--model", MODEL_ID, "Which number did I give you?")
    copy_fixture(ws.only_session_file(), out, "ts_continued.jsonl")
    save_request(ws.server.requests[1], out, "request_continued_turn2.json")


def case_thinking(ts_pi: Path, ws: Workspace, out: Path) -> None:
    ws.server.queue(
        text_reply("6 times 7 is 42.", reasoning="Multiply six by seven: that is 42.", model=REASONING_MODEL_ID),
        text_reply("Still 42.", reasoning="Same product as before.", model=REASONING_MODEL_ID),
    )
    model = ["--provider", PROVIDER, "--model", REASONING_MODEL_ID]
    run_print(ts_pi, ws, *model, "--thinking", "high", "What is 6 times 7?")
    run_print(ts_pi, ws, "-c", *model, "--thinking", "low", "Check it again.")
    copy_fixture(ws.only_session_file(), out, "ts_thinking.jsonl")
    save_request(ws.server.requests[0], out, "request_thinking_turn1.json")
    save_request(ws.server.requests[1], out, "request_thinking_turn2.json")


def case_rpc(ts_pi: Path, ws: Workspace, out: Path) -> None:
    ws.server.queue(
        text_reply("Hi there.", reasoning="The user greets me.", model=REASONING_MODEL_ID),
        text_reply("The user said hello and ran echo from-user; the reply was a greeting."),
        text_reply("Continuing after the summary."),
        text_reply("A reply in the forked session."),
    )
    argv = [str(ts_pi), "--mode", "rpc", "--offline", "--provider", PROVIDER, "--model", REASONING_MODEL_ID]
    argv += ["--thinking", "high"]
    ws.commands.append(shown(argv, ts_pi) + "   # then, one per line on stdin:")
    rpc = RpcClient(argv, ws)
    try:
        rpc.prompt("hello")
        rpc.send({"type": "set_session_name", "name": "fixture session"})
        rpc.send({"type": "set_thinking_level", "level": "low"})
        rpc.send({"type": "bash", "command": "echo from-user"})
        rpc.send({"type": "set_model", "provider": PROVIDER, "modelId": MODEL_ID})
        rpc.send({"type": "compact"})
        rpc.prompt("again")
        first_file = ws.only_session_file()
        messages = rpc.send({"type": "get_fork_messages"})["data"]["messages"]
        again = next(m["entryId"] for m in messages if m["text"] == "again")
        rpc.send({"type": "fork", "entryId": again})
        rpc.prompt("a different second prompt")
    finally:
        rpc.close()
    copy_fixture(first_file, out, "ts_rpc_entries.jsonl")
    forked = [f for f in ws.session_files() if f != first_file]
    if len(forked) != 1:
        raise SystemExit(f"{ws.name}: expected one forked session file, found {forked}")
    copy_fixture(forked[0], out, "ts_forked.jsonl")
    save_request(ws.server.requests[1], out, "request_compaction.json")


def case_extension(ts_pi: Path, ws: Workspace, out: Path) -> None:
    extension = ws.root / "fixture-extension.js"
    extension.write_text(EXTENSION_JS, encoding="utf-8")
    ws.server.queue(
        text_reply("First answer."),
        text_reply("Second answer."),
        text_reply("The abandoned branch asked a second question and got a second answer."),
        text_reply("Third answer, on a new branch."),
    )
    argv = [str(ts_pi), "--mode", "rpc", "--offline", "-e", str(extension), "--provider", PROVIDER]
    argv += ["--model", MODEL_ID]
    ws.commands.append(shown(argv, ts_pi) + "   # then, one per line on stdin:")
    rpc = RpcClient(argv, ws)
    try:
        rpc.prompt("first question")
        rpc.prompt("second question")
        rpc.send({"type": "prompt", "message": "/mark"})
        rpc.send({"type": "prompt", "message": "/back"})
        rpc.prompt("third question")
    finally:
        rpc.close()
    copy_fixture(ws.only_session_file(), out, "ts_extension_entries.jsonl")
    save_request(ws.server.requests[2], out, "request_branch_summary.json")


CASES = {
    "simple": case_simple,
    "bash_tool": case_bash_tool,
    "continued": case_continued,
    "thinking": case_thinking,
    "rpc": case_rpc,
    "extension": case_extension,
}


def write_commands(out: Path, work_dir: Path, version: str, node: str, spaces: list[Workspace]) -> None:
    """COMMANDS.md: what this run executed, so the README's recipe can be checked against reality."""
    lines = [
        "# Commands of the last fixture run",
        "",
        f"Written by `scripts/make_ts_fixtures.py`: `{TS_PACKAGE}` {version}, node {node}, work dir `{work_dir}`.",
        "Each case ran in `<work dir>/<case>/project` with `PI_CODING_AGENT_DIR=<work dir>/<case>/agent`,",
        "`HOME=<work dir>/<case>/home`, `PI_OFFLINE=1`, `PI_SKIP_VERSION_CHECK=1`; the agent dir's models.json",
        "points at a loopback server on a free port.",
        "",
    ]
    for ws in spaces:
        lines += [f"## {ws.name}", "", "```", *ws.commands, "```", ""]
    (out / "COMMANDS.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ts-pi", type=Path, help="the TypeScript pi binary (default: under --ts-prefix)")
    parser.add_argument("--ts-prefix", type=Path, default=DEFAULT_TS_PREFIX, help="npm prefix to find/install it in")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_WORK_DIR, help="where the cases run (wiped)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture directory to write")
    parser.add_argument("cases", nargs="*", metavar="case", help=f"cases to run (default: all of {', '.join(CASES)})")
    args = parser.parse_args(argv)
    unknown = [name for name in args.cases if name not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")

    ts_pi = ensure_ts_pi(args.ts_pi, args.ts_prefix)
    version = program_version(ts_pi)
    node = node_version()
    print(f"TypeScript pi {version} ({ts_pi}), node {node}")
    args.out.mkdir(parents=True, exist_ok=True)
    spaces: list[Workspace] = []
    for name in args.cases or list(CASES):
        print(f"{name}:")
        ws = open_workspace(args.work_dir, name)
        spaces.append(ws)
        try:
            CASES[name](ts_pi, ws, args.out)
        finally:
            ws.server.stop()
        leftover = len(ws.server.responses)
        if leftover:
            raise SystemExit(f"{name}: {leftover} scripted replies were never requested")
    write_commands(args.out, args.work_dir, version, node, spaces)
    return 0


if __name__ == "__main__":
    sys.exit(main())
