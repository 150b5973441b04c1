"""Which tools a session gets: tools.md §8.15 cases 189 and 198, through the CLI's flags."""

from __future__ import annotations

import json
from pathlib import Path

from pi.app.args import parse_args
from pi.app.main import _select_tools
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _names(argv: list[str], cwd: Path) -> list[str]:
    return [tool.name for tool in _select_tools(parse_args(argv), cwd)]


def test_case_198_exclude_and_allow_lists(tmp_path: Path) -> None:
    assert _names([], tmp_path) == ["read", "bash", "edit", "write"]
    assert _names(["--exclude-tools", "bash"], tmp_path) == ["read", "edit", "write"]
    assert _names(["--tools", "read,grep", "--exclude-tools", "grep"], tmp_path) == ["read"]
    assert _names(["--no-tools"], tmp_path) == []
    assert _names(["--no-tools", "--tools", "ls"], tmp_path) == ["ls"]


def test_case_189_grep_is_callable_only_once_enabled(env: Env) -> None:
    (env.cwd / "a.txt").write_text("needle here\n")
    call = [("grep", {"pattern": "needle"})]
    env.server.queue(tool_reply(call), text_reply("done"))
    assert env.run("-p", *MODEL, "search").returncode == 0
    results = [m for m in env.server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert results[0]["content"] == "Tool grep not found"

    env.server.queue(tool_reply(call), text_reply("done"))
    assert env.run("-p", *MODEL, "--tools", "read,grep", "search").returncode == 0
    results = [m for m in env.server.requests[3].json()["messages"] if m["role"] == "tool"]
    assert results[0]["content"] == "a.txt:1: needle here"
    tools = [t["function"]["name"] for t in env.server.requests[3].json()["tools"]]
    assert tools == ["read", "grep"]
    assert "Use bash for file operations" not in json.dumps(env.server.requests[3].json()["messages"][0])


def test_settings_shell_prefix_and_shell_path_reach_the_bash_tool(env: Env) -> None:
    (env.agent_dir / "settings.json").write_text(
        json.dumps({"shellCommandPrefix": "export GREETING=from-prefix", "shellPath": "/bin/bash"})
    )
    env.server.queue(tool_reply([("bash", {"command": "echo $GREETING"})]), text_reply("done"))
    assert env.run("-p", *MODEL, "greet").returncode == 0
    results = [m for m in env.server.requests[1].json()["messages"] if m["role"] == "tool"]
    assert results[0]["content"].strip() == "from-prefix"


def test_missing_custom_shell_is_an_error(env: Env) -> None:
    (env.agent_dir / "settings.json").write_text(json.dumps({"shellPath": "/nowhere/bash"}))
    done = env.run("-p", *MODEL, "x")
    assert done.returncode == 1
    assert "Custom shell path not found: /nowhere/bash" in done.stderr
