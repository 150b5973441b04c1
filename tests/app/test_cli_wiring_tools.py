"""The `pi` process end to end: project trust gating `.pi/settings.json`, and the starting tools."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply

ALL_FOUR = ["read", "bash", "edit", "write"]


def _sent_tools(env: Env, *args: str) -> list[str]:
    env.server.queue(text_reply("ok"))
    before = len(env.server.requests)
    done = env.run("-p", *MODEL, *args, "hi")
    assert done.returncode == 0, done.stderr
    assert len(env.server.requests) == before + 1
    body = env.server.requests[-1].json()
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _project_default_tools(env: Env, tools: list[str]) -> None:
    (env.cwd / ".pi").mkdir(exist_ok=True)
    (env.cwd / ".pi" / "settings.json").write_text(json.dumps({"defaultTools": tools}))


def _user_settings(env: Env, **values: object) -> None:
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    settings.update(values)
    (env.agent_dir / "settings.json").write_text(json.dumps(settings))


def test_untrusted_project_settings_are_ignored_until_approved(env: Env) -> None:
    _project_default_tools(env, ["read"])
    assert _sent_tools(env) == ALL_FOUR
    assert _sent_tools(env, "-a") == ["read"]
    assert _sent_tools(env, "--approve") == ["read"]
    assert not (env.agent_dir / "trust.json").exists(), "a one-run approval is not saved"


def test_saved_trust_loads_project_settings_and_no_approve_overrides_it(env: Env) -> None:
    _project_default_tools(env, ["read"])
    (env.agent_dir / "trust.json").write_text(json.dumps({os.path.realpath(env.cwd): True}))
    assert _sent_tools(env) == ["read"]
    assert _sent_tools(env, "--no-approve") == ALL_FOUR
    assert _sent_tools(env, "-na") == ALL_FOUR


def test_default_project_trust_always_and_never(env: Env) -> None:
    _project_default_tools(env, ["read"])
    _user_settings(env, defaultProjectTrust="always")
    assert _sent_tools(env) == ["read"]
    _user_settings(env, defaultProjectTrust="never")
    assert _sent_tools(env) == ALL_FOUR


def test_default_project_trust_is_read_from_the_user_settings_only(env: Env) -> None:
    (env.cwd / ".pi").mkdir()
    (env.cwd / ".pi" / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always", "defaultTools": []}))
    assert _sent_tools(env) == ALL_FOUR


def test_a_broken_trust_store_is_reported_and_leaves_the_project_untrusted(env: Env) -> None:
    _project_default_tools(env, ["read"])
    (env.agent_dir / "trust.json").write_text("[1, 2]")
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert "Invalid trust store" in done.stderr and "expected an object" in done.stderr
    assert [t["function"]["name"] for t in env.server.requests[-1].json()["tools"]] == ALL_FOUR


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["-t", "+grep,-write"], ["read", "bash", "edit", "grep"]),
        (["--tools", "read,nope"], ["read"]),
        # `*` also matches the tools the built-in extensions register inactive, as in pi 1.6.0.
        (["--tools", "*"], ["read", "bash", "edit", "write", "grep", "find", "ls", "codemode", "tool_search"]),
        (["--tools", "re*,ls"], ["read", "ls"]),
        (["-xt", "bash,e*"], ["read", "write"]),
        (["-nt", "-t", "grep"], ["grep"]),
        (["-nbt", "-t", "ls"], ["ls"]),
    ],
)
def test_tools_flags_select_the_tools_sent(env: Env, flags: list[str], expected: list[str]) -> None:
    assert _sent_tools(env, *flags) == expected


@pytest.mark.parametrize("flag", ["-nt", "-nbt", "--no-tools"])
def test_no_tools_sends_no_tool_definitions(env: Env, flag: str) -> None:
    assert _sent_tools(env, flag) == []


def test_user_default_tools_and_project_modifiers_on_top(env: Env) -> None:
    _user_settings(env, defaultTools=["read", "grep"])
    assert _sent_tools(env) == ["read", "grep"]
    _project_default_tools(env, ["+ls", "-grep"])
    assert _sent_tools(env, "-a") == ["read", "ls"]
    _project_default_tools(env, ["bash"])
    assert _sent_tools(env, "-a") == ["bash"]
    assert _sent_tools(env, "-a", "-t", "+find") == ["bash", "find"]
    assert _sent_tools(env, "-a", "-t", "edit") == ["edit"]


def test_empty_default_tools_turns_the_built_ins_off(env: Env) -> None:
    _user_settings(env, defaultTools=[])
    assert _sent_tools(env) == []
    assert _sent_tools(env, "-t", "read") == ["read"]


def test_an_invalid_default_tools_setting_is_reported_and_ignored(env: Env) -> None:
    _user_settings(env, defaultTools=["read", "+grep"])
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert "defaultTools: tool names cannot be mixed with +name or -name entries" in done.stderr
    assert [t["function"]["name"] for t in env.server.requests[-1].json()["tools"]] == ALL_FOUR


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("read,+grep", "Error: --tools: tool names cannot be mixed with +name or -name entries"),
        ("+gr*", "Error: --tools: +name and -name entries take exact tool names, not patterns: +gr*"),
    ],
)
def test_bad_tools_lists_are_errors_before_any_request(env: Env, value: str, message: str) -> None:
    done = env.run("-p", *MODEL, "--tools", value, "hi")
    assert done.returncode == 1
    assert message in done.stderr
    assert env.server.requests == []
