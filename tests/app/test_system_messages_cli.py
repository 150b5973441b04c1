"""The prompt and tool declarations as ``role:"system"`` session messages, through the real `pi` process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def _session_lines(env: Env) -> list[dict[str, Any]]:
    files = sorted(env.agent_dir.rglob("*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in Path(files[0]).read_text().splitlines()]


def _systems(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["message"] for e in lines if e["type"] == "message" and e["message"]["role"] == "system"]


def test_a_new_session_stores_the_prompt_and_tools_before_the_first_user_message(env: Env) -> None:
    env.server.queue(text_reply("hello"))
    done = env.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    lines = _session_lines(env)
    kinds = [(e["type"], e.get("message", {}).get("role")) for e in lines]
    assert kinds == [
        ("session", None),
        ("model_change", None),
        ("thinking_level_change", None),
        ("message", "system"),
        ("message", "user"),
        ("message", "assistant"),
    ]
    system = lines[3]["message"]
    assert system["content"] == ""
    names = list(system["sections"])
    assert names[0] == "preamble" and names[-1] == "cwd"
    assert system["sections"]["cwd"] == f"<cwd>\n{env.cwd}\n</cwd>"
    assert [t["name"] for t in system["toolsAdded"]] == ["read", "bash", "edit", "write"]
    assert all(list(t) == ["name", "description", "parameters", "constrainedSampling"] for t in system["toolsAdded"])
    assert all(t["constrainedSampling"] == {"type": "json_schema", "strict": "prefer"} for t in system["toolsAdded"])
    assert "toolsRemoved" not in system
    # The request still carries the whole prompt, the same text the sections give, and the same tools.
    request = env.server.requests[0].json()
    assert request["messages"][0]["content"] == "\n\n".join(system["sections"].values())
    assert [m["role"] for m in request["messages"][1:]] == ["user"]
    sent = [t["function"] for t in request["tools"]]
    assert [(t["name"], t["parameters"]) for t in sent] == [(t["name"], t["parameters"]) for t in system["toolsAdded"]]


def test_resuming_stores_nothing_when_unchanged_and_a_patch_when_the_tools_change(env: Env) -> None:
    env.server.queue(text_reply("one"), text_reply("two"), text_reply("three"))
    assert env.run("-p", *MODEL, "first").returncode == 0
    assert env.run("-p", "-c", *MODEL, "second").returncode == 0
    assert len(_systems(_session_lines(env))) == 1
    done = env.run("-p", "-c", *MODEL, "--tools", "read,grep", "third")
    assert done.returncode == 0, done.stderr
    lines = _session_lines(env)
    patch = _systems(lines)[-1]
    assert len(_systems(lines)) == 2
    assert [t["name"] for t in patch["toolsAdded"]] == ["grep"]
    assert patch["toolsRemoved"] == [{"name": "bash"}, {"name": "edit"}, {"name": "write"}]
    assert "cwd" not in patch["sections"] and "preamble" not in patch["sections"]
    assert "grep" in patch["sections"]["tools"]
    roles = [e["message"]["role"] for e in lines if e["type"] == "message"]
    assert roles[-3:] == ["system", "user", "assistant"]


def test_json_mode_shows_the_system_message_before_the_user_message(env: Env) -> None:
    env.server.queue(text_reply("ok"))
    done = env.run("--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()][1:]
    messages = [(e["type"], e["message"]["role"]) for e in events if e["type"] in ("message_start", "message_end")]
    assert messages[:4] == [
        ("message_start", "system"),
        ("message_end", "system"),
        ("message_start", "user"),
        ("message_end", "user"),
    ]
    types = [e["type"] for e in events]
    assert types.index("turn_start") < types.index("message_start")
    end = next(e for e in events if e["type"] == "agent_end")
    assert [m["role"] for m in end["messages"]] == ["system", "user", "assistant"]
