"""Check that the TypeScript pi continues a session file our `pi` wrote, with the whole conversation intact.

The other direction of tests/app/test_interop_ts.py (which needs no Node and runs in the suite). Our
`pi -p` writes a session against the loopback Chat Completions server: a prompt answered with a bash
tool call, its result and a final text, then (`-c`) a prompt to the reasoning model answered with a
thinking block. The TypeScript pi then opens that file with `--session <file> -p` against the same
server, and the script checks:

1. it exits 0 and sends its request to the model our file last used (restored from the file);
2. that request carries our conversation, message for message: user texts, the assistant's tool call
   (id, name, arguments), the tool result under the same id, the texts, and the thinking replayed as
   `reasoning_content`;
3. it only appended to our file (our bytes are a prefix): a user and an assistant entry hanging off
   our last entry, after a `role: "system"` entry when its system prompt is not the one our file
   last recorded (pi 1.6.0 records each new system prompt);
4. our `pi -c` then reads the file the TypeScript pi extended and sends its exchange too.

Needs pi 1.6.0 (`--ts-pi`, else `PI_TS_BIN`, else installed with npm into /tmp/tspi), so neither
the test suite nor CI runs it. Exit code 0 when every check passed, 1 otherwise.

    .venv/bin/python scripts/check_ts_reads_ours.py [--ts-pi PATH] [--work-dir /tmp/pi-ts-reads-ours]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.fake_openai_server import (  # noqa: E402
    MODEL_ID,
    PROVIDER,
    REASONING_MODEL_ID,
    start_server,
    text_reply,
    tool_call_reply,
    write_agent_dir,
)
from scripts.ts_pi import DEFAULT_TS_PREFIX, ensure_ts_pi, isolated_env, node_version, program_version  # noqa: E402
from tests.support.http_server import ScriptedServer  # noqa: E402

DEFAULT_WORK_DIR = Path("/tmp/pi-ts-reads-ours")
TIMEOUT_S = 60.0

FIRST_PROMPT = "Run echo hello-from-python and tell me what it printed."
COMMAND = "echo hello-from-python"
CALL_ID = "call_py_bash_1"
FIRST_ANSWER = "The command printed hello-from-python."
SECOND_PROMPT = "Think it over: was that the expected output?"
THINKING = "The command echoes its argument, so the output is expected."
SECOND_ANSWER = "Yes, that is what echo prints."
TS_PROMPT = "Summarize what we did so far."
TS_ANSWER = "We ran echo and confirmed its output."
LAST_PROMPT = "And what did the other program answer?"


@dataclass
class Report:
    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    def check(self, what: str, ok: bool, detail: str = "") -> bool:
        self.checks.append((what, ok, detail))
        print(f"  [{'ok' if ok else 'FAIL'}] {what}{'' if ok or not detail else f': {detail}'}")
        return ok

    @property
    def passed(self) -> bool:
        return all(ok for _, ok, _ in self.checks)


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    print(f"$ {' '.join(argv)}")
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def conversation(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's messages after the system prompt, reduced to what a conversation consists of."""
    out: list[dict[str, Any]] = []
    for message in body["messages"]:
        role = message["role"]
        if role in ("system", "developer"):
            continue
        content = message.get("content")
        text = "".join(p.get("text", "") for p in content) if isinstance(content, list) else content
        item: dict[str, Any] = {"role": role, "text": text or None}
        if message.get("tool_calls"):
            item["tool_calls"] = [
                (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]
            ]
        if message.get("tool_call_id"):
            item["tool_call_id"] = message["tool_call_id"]
        if message.get("reasoning_content"):
            item["reasoning_content"] = message["reasoning_content"]
        out.append(item)
    return out


def expected_conversation(last_prompt: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "text": FIRST_PROMPT},
        {"role": "assistant", "text": None, "tool_calls": [(CALL_ID, "bash", {"command": COMMAND})]},
        {"role": "tool", "text": "hello-from-python\n", "tool_call_id": CALL_ID},
        {"role": "assistant", "text": FIRST_ANSWER},
        {"role": "user", "text": SECOND_PROMPT},
        {"role": "assistant", "text": SECOND_ANSWER, "reasoning_content": THINKING},
        {"role": "user", "text": last_prompt},
    ]


def diff(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> str:
    lines = []
    for i in range(max(len(actual), len(expected))):
        a = actual[i] if i < len(actual) else None
        e = expected[i] if i < len(expected) else None
        if a != e:
            lines.append(f"message {i}: sent {a!r}, expected {e!r}")
    return "; ".join(lines)


def write_our_session(server: ScriptedServer, project: Path, env: dict[str, str], report: Report) -> Path | None:
    ours = [sys.executable, "-m", "pi", "-p", "--provider", PROVIDER]
    server.queue(tool_call_reply(CALL_ID, "bash", {"command": COMMAND}), text_reply(FIRST_ANSWER))
    first = run([*ours, "--model", MODEL_ID, FIRST_PROMPT], project, env)
    if not report.check("our pi -p (bash tool call) exits 0", first.returncode == 0, first.stderr.strip()):
        return None
    server.queue(text_reply(SECOND_ANSWER, reasoning=THINKING, model=REASONING_MODEL_ID))
    second = run([*ours, "-c", "--model", REASONING_MODEL_ID, "--thinking", "high", SECOND_PROMPT], project, env)
    if not report.check("our pi -p -c (reasoning model) exits 0", second.returncode == 0, second.stderr.strip()):
        return None
    files = sorted(Path(env["PI_CODING_AGENT_DIR"], "sessions").rglob("*.jsonl"))
    if not report.check("our pi wrote one session file", len(files) == 1, str(files)):
        return None
    return files[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ts-pi", type=Path, help="the TypeScript pi binary (default: under --ts-prefix)")
    parser.add_argument("--ts-prefix", type=Path, default=DEFAULT_TS_PREFIX, help="npm prefix to find/install it in")
    parser.add_argument("--work-dir", type=Path, default=DEFAULT_WORK_DIR, help="where to run (wiped first)")
    args = parser.parse_args(argv)

    ts_pi = ensure_ts_pi(args.ts_pi, args.ts_prefix)
    node = node_version()
    print(f"TypeScript pi {program_version(ts_pi)} ({ts_pi}), node {node}, python {sys.version.split()[0]}")
    shutil.rmtree(args.work_dir, ignore_errors=True)
    project, home, agent = args.work_dir / "project", args.work_dir / "home", args.work_dir / "agent"
    project.mkdir(parents=True)
    home.mkdir()
    server = start_server()
    report = Report()
    try:
        write_agent_dir(agent, server.url)
        env = isolated_env(agent, home)
        session = write_our_session(server, project, env, report)
        if session is None:
            return 1
        ours_bytes = session.read_bytes()
        our_leaf = json.loads(ours_bytes.splitlines()[-1])["id"]

        first_ts_request = len(server.requests)
        server.queue(text_reply(TS_ANSWER, model=REASONING_MODEL_ID))
        ts = run([str(ts_pi), "-p", "--offline", "--session", str(session), TS_PROMPT], project, env)
        report.check("TypeScript pi --session <our file> -p exits 0", ts.returncode == 0, ts.stderr.strip())
        report.check("TypeScript pi prints its answer", ts.stdout.strip() == TS_ANSWER, repr(ts.stdout))
        ts_requests = server.requests[first_ts_request:]
        if not report.check("TypeScript pi sent one request", len(ts_requests) == 1, str(len(ts_requests))):
            return 1
        body = ts_requests[0].json()
        report.check(
            "its request goes to the model our file last used",
            body.get("model") == REASONING_MODEL_ID,
            str(body.get("model")),
        )
        sent, expected = conversation(body), expected_conversation(TS_PROMPT)
        report.check(
            "its request carries our conversation, message for message", sent == expected, diff(sent, expected)
        )

        grown = session.read_bytes()
        report.check("it only appended to our file (our bytes are a prefix)", grown.startswith(ours_bytes))
        added = [json.loads(line) for line in grown[len(ours_bytes) :].decode().splitlines()]
        shapes = [(e.get("type"), e.get("message", {}).get("role")) for e in added]
        # pi 1.6.0 records its own system prompt first when it differs from the one our file last recorded.
        exchange = shapes[1:] if shapes[:1] == [("message", "system")] else shapes
        chained = all(
            entry.get("parentId") == (added[index - 1].get("id") if index else our_leaf)
            for index, entry in enumerate(added)
        )
        report.check(
            "it appended a user and an assistant entry (after its system prompt, if new) to our last entry",
            exchange == [("message", "user"), ("message", "assistant")] and chained,
            str(shapes),
        )

        server.queue(text_reply("It answered that we ran echo.", model=REASONING_MODEL_ID))
        back = run([sys.executable, "-m", "pi", "-p", "-c", LAST_PROMPT], project, env)
        report.check("our pi -c reads the file the TypeScript pi extended", back.returncode == 0, back.stderr.strip())
        if back.returncode == 0:
            round_trip = conversation(server.requests[-1].json())
            expected_back = [
                *expected_conversation(TS_PROMPT),
                {"role": "assistant", "text": TS_ANSWER},
                {"role": "user", "text": LAST_PROMPT},
            ]
            report.check(
                "and sends the TypeScript pi's exchange too",
                round_trip == expected_back,
                diff(round_trip, expected_back),
            )
    finally:
        server.stop()
    print("PASS" if report.passed else "FAIL", f"({sum(ok for _, ok, _ in report.checks)}/{len(report.checks)} checks)")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
