"""Session files written by the TypeScript pi, continued by our `pi`: the conversation reaches the model intact.

Each fixture in tests/session/fixtures/ts/ is copied into a temporary project. Its header's `cwd` is
the directory the TypeScript pi ran in, so the copy gets this test's project dir instead: that one
field is the only change, and `pi -c` would not look at a session of another directory. The copy is
then opened with `pi -c` (found in the project's session dir) and with `pi --session <path>`; the
next request must carry the fixture's conversation, in order, and the file may only grow at its end.
The other direction (the TypeScript pi reading our files) needs Node: scripts/check_ts_reads_ours.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli_sessions import PiEnv, conversation, lines_of, make_pi_env
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply

FIXTURES = Path(__file__).resolve().parent.parent / "session" / "fixtures" / "ts"
COMPACTED = "The conversation history before this point was compacted into the following summary:"
BRANCHED = "The following is a summary of a branch that this conversation came back from:"
MODELS: list[dict[str, Any]] = [
    {"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096},
    {
        "id": "fake-reasoner",
        "reasoning": True,
        "contextWindow": 100000,
        "maxTokens": 4096,
        "compat": {"supportsReasoningEffort": True},
    },
]


class Has:
    """Matches any string containing `part` (for texts whose exact wording is not the point)."""

    def __init__(self, *parts: str) -> None:
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and all(p in other for p in self.parts)

    def __hash__(self) -> int:
        return hash(self.parts)

    def __repr__(self) -> str:
        return f"Has{self.parts!r}"


@dataclass(frozen=True)
class Expected:
    model: str
    messages: list[tuple[str, Any]]
    reasoning: list[str | None] | None = None
    """`reasoning_content` of each replayed assistant message, where the fixture has thinking."""
    effort: str | None = None


def _summary(name: str, entry_type: str) -> str:
    return str(next(e["summary"] for e in lines_of(FIXTURES / name) if e["type"] == entry_type))


RAN_ECHO = "Ran `echo from-user`\n```\nfrom-user\n\n```"
EXPECTED: dict[str, Expected] = {
    "ts_simple.jsonl": Expected("fake-model", [("user", "Say hello."), ("assistant", "Hello! What shall we work on?")]),
    "ts_bash_tool.jsonl": Expected(
        "fake-model",
        [
            ("user", "Run echo hello and tell me what it printed."),
            ("assistant", 'bash({"command": "echo hello"})'),
            ("tool", "hello\n"),
            ("assistant", "The command printed hello."),
        ],
    ),
    "ts_continued.jsonl": Expected(
        "fake-model",
        [
            ("user", "Remember the number 7."),
            ("assistant", "Noted: 7."),
            ("user", "Which number did I give you?"),
            ("assistant", "You asked me to remember 7."),
        ],
    ),
    "ts_thinking.jsonl": Expected(
        "fake-reasoner",
        [
            ("user", "What is 6 times 7?"),
            ("assistant", "6 times 7 is 42."),
            ("user", "Check it again."),
            ("assistant", "Still 42."),
        ],
        reasoning=["Multiply six by seven: that is 42.", "Same product as before."],
        effort="high",  # the file's last thinking_level_change
    ),
    "ts_rpc_entries.jsonl": Expected(
        "fake-model",  # the last model_change; the reply after it came from that model
        [
            ("user", Has(COMPACTED, _summary("ts_rpc_entries.jsonl", "compaction"))),
            ("user", "hello"),
            ("assistant", Has("Hi there.")),  # a fake-reasoner reply: its thinking may be replayed as text
            ("user", RAN_ECHO),
            ("user", "again"),
            ("assistant", "Continuing after the summary."),
        ],
    ),
    "ts_forked.jsonl": Expected(
        "fake-reasoner",  # the last reply's model, which the fork's prompt went to
        [
            ("user", Has(COMPACTED, _summary("ts_forked.jsonl", "compaction"))),
            ("user", "hello"),
            ("assistant", "Hi there."),
            ("user", RAN_ECHO),
            ("user", "a different second prompt"),
            ("assistant", "A reply in the forked session."),
        ],
        reasoning=["The user greets me.", None],
    ),
    "ts_extension_entries.jsonl": Expected(
        "fake-model",
        [
            ("user", "first question"),
            ("assistant", "First answer."),
            ("user", Has(BRANCHED, _summary("ts_extension_entries.jsonl", "branch_summary"))),
            ("user", "third question"),
            ("assistant", "Third answer, on a new branch."),
        ],
    ),
}


def test_every_fixture_has_an_expectation() -> None:
    assert sorted(p.name for p in FIXTURES.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.fixture
def pi_env(server: ScriptedServer, tmp_path: Path) -> Iterator[PiEnv]:
    yield make_pi_env(server, tmp_path, models=MODELS)


def copy_fixture(name: str, cwd: Path, directory: Path) -> Path:
    """The fixture with its header's cwd set to `cwd`; every other byte as the TypeScript pi wrote it."""
    first, rest = (FIXTURES / name).read_bytes().split(b"\n", 1)
    header = json.loads(first)
    assert header["cwd"].startswith("/tmp/pi-ts-fixtures/")
    header["cwd"] = str(cwd)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = header["timestamp"].replace(":", "-").replace(".", "-")
    target = directory / f"{stamp}_{header['id']}.jsonl"
    target.write_bytes(json.dumps(header, separators=(",", ":")).encode() + b"\n" + rest)
    return target


def check_continued(pi_env: PiEnv, name: str, path: Path, *open_args: str) -> None:
    before = path.read_bytes()
    leaf = json.loads(before.splitlines()[-1])["id"]
    pi_env.server.requests.clear()
    pi_env.server.queue(text_reply("Carrying on."))
    done = pi_env.run("-p", *open_args, "What next?")
    assert done.returncode == 0 and done.stdout == "Carrying on.\n", done.stderr
    expected = EXPECTED[name]
    body = pi_env.server.requests[0].json()
    assert body["model"] == expected.model
    assert conversation(body) == [*expected.messages, ("user", "What next?")]
    if expected.reasoning is not None:
        replayed = [m.get("reasoning_content") for m in body["messages"] if m["role"] == "assistant"]
        assert replayed == expected.reasoning
    if expected.effort is not None:
        assert body.get("reasoning_effort") == expected.effort
    calls = [m for m in body["messages"] if m.get("tool_calls")]
    results = [m for m in body["messages"] if m["role"] == "tool"]
    assert [c["tool_calls"][0]["id"] for c in calls] == [r["tool_call_id"] for r in results]

    after = path.read_bytes()
    assert after.startswith(before), "the TypeScript pi's lines must stay byte for byte"
    added = [json.loads(line) for line in after[len(before) :].decode().splitlines()]
    # A file without system messages gets the full prompt declaration before the next user message.
    assert [(e["type"], e["message"]["role"]) for e in added] == [
        ("message", "system"),
        ("message", "user"),
        ("message", "assistant"),
    ]
    assert added[0]["parentId"] == leaf and added[1]["parentId"] == added[0]["id"]
    assert added[2]["parentId"] == added[1]["id"]
    assert list(pi_env.agent_dir.parent.rglob("*.jsonl")) == [path]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_continue_opens_the_typescript_session(pi_env: PiEnv, name: str) -> None:
    path = copy_fixture(name, pi_env.cwd, pi_env.project_sessions())
    check_continued(pi_env, name, path, "-c")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_session_path_opens_the_typescript_session(pi_env: PiEnv, name: str) -> None:
    path = copy_fixture(name, pi_env.cwd, pi_env.agent_dir.parent / "kept-elsewhere")
    check_continued(pi_env, name, path, "--session", str(path))
