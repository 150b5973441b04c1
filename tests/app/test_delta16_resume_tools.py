"""The `pi` process end to end: a resumed session starts with the tools it last declared (delta-1.6 §1.3.4)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def _sent_tools(env: Env, *args: str) -> list[str]:
    env.server.queue(text_reply("ok"))
    before = len(env.server.requests)
    done = env.run("-p", *MODEL, *args)
    assert done.returncode == 0, done.stderr
    assert len(env.server.requests) == before + 1
    body = env.server.requests[-1].json()
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _session_files(env: Env) -> list[Path]:
    return sorted((env.agent_dir / "sessions").rglob("*.jsonl"))


def test_continue_keeps_the_tools_the_session_was_using(env: Env) -> None:
    assert _sent_tools(env, "-t", "read,grep", "first") == ["read", "grep"]
    assert _sent_tools(env, "-c", "second") == ["read", "grep"]
    assert len(_session_files(env)) == 1


def test_modifiers_apply_on_top_of_the_restored_tools(env: Env) -> None:
    assert _sent_tools(env, "-t", "read,grep", "first") == ["read", "grep"]
    assert _sent_tools(env, "-c", "-t", "+ls,-read", "second") == ["grep", "ls"]
    assert _sent_tools(env, "-c", "third") == ["grep", "ls"]
    assert _sent_tools(env, "-c", "--exclude-tools", "ls", "fourth") == ["grep"]


def test_an_explicit_selection_replaces_the_restored_tools(env: Env) -> None:
    assert _sent_tools(env, "-t", "read,grep", "first") == ["read", "grep"]
    assert _sent_tools(env, "-c", "-t", "bash", "second") == ["bash"]
    assert _sent_tools(env, "-c", "-nt", "third") == []
    assert _sent_tools(env, "-c", "-nbt", "fourth") == []


def test_session_option_restores_too_and_default_tools_do_not_override(env: Env) -> None:
    assert _sent_tools(env, "-t", "ls", "first") == ["ls"]
    (session,) = _session_files(env)
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "defaultTools": ["read", "write"]}))
    assert _sent_tools(env, "--session", str(session), "second") == ["ls"]
    assert _sent_tools(env, "fresh") == ["read", "write"]


def test_a_session_without_recorded_tools_starts_with_the_defaults(env: Env) -> None:
    assert _sent_tools(env, "-t", "ls", "first") == ["ls"]
    (session,) = _session_files(env)
    kept = [
        line for line in session.read_text().splitlines() if json.loads(line).get("message", {}).get("role") != "system"
    ]
    session.write_text("\n".join(kept) + "\n")
    assert _sent_tools(env, "-c", "second") == ["read", "bash", "edit", "write"]
