"""Session files of pi 1.6.0 continued by our `pi` process, and ours continued by pi 1.6.0 (delta-1.6 interop).

Every file in tests/session/fixtures/ts16/ is copied into a temporary project with its header's
`cwd` set to that project (a resumed session runs in its stored directory, which must exist), then
opened with `pi -p -c` and with `pi -p --session <path>`. The next request must have the messages
pi 1.6.0 itself sent when continuing the same file (`PI16_CONTINUES`), the tools the file last
declared, and the file may only grow at its end.

The other direction needs Node, so it is recorded rather than run: `ours16_written.jsonl` is a
session our `pi` wrote and `ours16_continued_by_ts16.jsonl` the same file after pi 1.6.0 continued it
(`make_fixtures.py --ours`); both are checked here, and our `pi` continues pi 1.6.0's result in turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli_sessions import PiEnv, conversation, make_pi_env
from tests.session.test_ts16_fixtures import PI16_CONTINUES
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply

TS16 = Path(__file__).resolve().parent.parent / "session" / "fixtures" / "ts16"
MODELS: list[dict[str, Any]] = [
    {"id": "fake-model", "contextWindow": 128000, "maxTokens": 16384},
    {"id": "fake-reasoner", "reasoning": True, "contextWindow": 128000, "maxTokens": 16384},
]
# The tools each file's system messages leave declared (pi 1.6.0 restores the same on resume).
TOOLS = {
    "handmade_compaction.jsonl": ["read", "write"],
    "handmade_edits_usage.jsonl": ["read"],
    "ts16_bash_tool.jsonl": ["read", "bash", "edit", "write"],
    "ts16_branch_summary.jsonl": ["read", "bash", "edit", "write"],
    "ts16_retry.jsonl": ["read", "bash", "edit", "write"],
    "ts16_rpc_compaction.jsonl": ["read", "bash", "edit", "write"],
    "ts16_simple.jsonl": ["read", "bash", "edit", "write"],
    "ours16_continued_by_ts16.jsonl": ["read", "grep"],
}
ROLES = {
    **PI16_CONTINUES,
    "ours16_continued_by_ts16.jsonl": [
        *("system", "user", "assistant", "tool", "assistant"),
        *("user", "assistant", "user", "assistant", "user"),
    ],
}


@pytest.fixture
def pi_env(server: ScriptedServer, tmp_path: Path) -> Iterator[PiEnv]:
    yield make_pi_env(server, tmp_path, models=MODELS)


def _copy(name: str, cwd: Path, directory: Path) -> Path:
    """The fixture with its header's cwd set to `cwd`; every other byte as written."""
    first, rest = (TS16 / name).read_bytes().split(b"\n", 1)
    header = json.loads(first)
    header["cwd"] = str(cwd)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{header['timestamp'].replace(':', '-').replace('.', '-')}_{header['id']}.jsonl"
    target.write_bytes(json.dumps(header, separators=(",", ":")).encode() + b"\n" + rest)
    return target


def _continue(pi_env: PiEnv, name: str, path: Path, *open_args: str) -> None:
    before = path.read_bytes()
    pi_env.server.requests.clear()
    pi_env.server.queue(text_reply("Carrying on."))
    done = pi_env.run("-p", *open_args, "What next?")
    assert done.returncode == 0 and done.stdout == "Carrying on.\n", done.stderr
    (body,) = [r.json() for r in pi_env.server.requests]
    roles = [m["role"] if m["role"] != "developer" else "system" for m in body["messages"]]
    assert roles == ROLES[name]
    assert conversation(body)[-1] == ("user", "What next?")
    assert [t["function"]["name"] for t in body.get("tools", [])] == TOOLS[name]
    after = path.read_bytes()
    assert after.startswith(before), "lines already written stay byte for byte"
    added = [json.loads(line) for line in after[len(before) :].decode().splitlines()]
    assert [e["message"]["role"] for e in added if e["type"] == "message"][-2:] == ["user", "assistant"]
    assert added[0]["parentId"] == json.loads(before.splitlines()[-1])["id"]


NAMES = sorted(ROLES)


def test_every_fixture_is_continued_here() -> None:
    assert sorted(p.name for p in TS16.glob("*.jsonl")) == sorted([*NAMES, "ours16_written.jsonl"])


@pytest.mark.parametrize("name", NAMES)
def test_continue_resumes_the_file(pi_env: PiEnv, name: str) -> None:
    path = _copy(name, pi_env.cwd, pi_env.project_sessions())
    _continue(pi_env, name, path, "-c")


@pytest.mark.parametrize("name", NAMES)
def test_session_path_resumes_the_file(pi_env: PiEnv, name: str) -> None:
    path = _copy(name, pi_env.cwd, pi_env.agent_dir.parent / "kept-elsewhere")
    _continue(pi_env, name, path, "--session", str(path))


def test_pi_1_6_continued_our_file_by_appending_only() -> None:
    ours = (TS16 / "ours16_written.jsonl").read_text(encoding="utf-8").splitlines()
    theirs = (TS16 / "ours16_continued_by_ts16.jsonl").read_text(encoding="utf-8").splitlines()
    assert theirs[: len(ours)] == ours, "pi 1.6.0 kept every line we wrote"
    added = [json.loads(line) for line in theirs[len(ours) :]]
    assert [(e["type"], e["message"]["role"]) for e in added] == [
        ("message", "system"),
        ("message", "user"),
        ("message", "assistant"),
    ]
    assert added[0]["parentId"] == json.loads(ours[-1])["id"]
    assert added[1]["message"]["content"][0]["text"] == "next please"
    assert added[2]["message"]["content"][0]["text"] == "continued by pi 1.6.0"
    # It replayed our system messages: its patch re-declares the tools our `-t read,grep` left active.
    assert sorted(t["name"] for t in added[0]["message"]["toolsAdded"]) == ["grep", "read"]
