"""MCP servers in real `pi` sessions: the model calls their tools through the loopback provider."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Installed
from tests.e2e.mcp_support import (
    MODEL,
    fixture_entry,
    http_fixture_url,
    system_prompt,
    tool_names,
    tool_results,
    write_mcp,
)
from tests.support.openai_chunks import text_reply, tool_reply

WEATHER = str(Path(__file__).parents[1] / "app" / "mcp" / "weather_server.py")

__all__ = ["http_fixture_url"]


def test_pi_mcp_add_then_the_model_calls_the_published_time_server(installed: Installed) -> None:
    added = installed.run("mcp", "add", "time", "--exposure", "direct", "--", sys.executable, "-m", "mcp_server_time")
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith('Added global MCP server "time" in ')
    installed.server.queue(
        tool_reply([("mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("It is late."),
    )
    done = installed.run("-p", *MODEL, "what time is it in UTC?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "It is late."
    first, second = installed.server.requests
    assert "mcp__time__get_current_time" in tool_names(first)
    (result,) = tool_results(second)
    assert "UTC" in result and "datetime" in result


def test_pi_mcp_add_with_deferred_exposure_then_the_model_finds_and_calls_the_tool(installed: Installed) -> None:
    added = installed.run("mcp", "add", "time", "--exposure", "deferred", "--", sys.executable, "-m", "mcp_server_time")
    assert added.returncode == 0, added.stderr
    installed.server.queue(
        tool_reply([("tool_search", {"query": "current time"})]),
        tool_reply([("mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("It is late."),
    )
    done = installed.run("-p", *MODEL, "what time is it in UTC?")
    assert done.returncode == 0, done.stderr
    first, second, third = installed.server.requests
    assert "mcp__time__get_current_time" not in tool_names(first)
    assert "- mcp__time (tool_search)" in system_prompt(first)
    assert "mcp__time__get_current_time" in tool_names(second)
    (result,) = tool_results(third)[-1:]
    assert "UTC" in result and "datetime" in result


def test_direct_stdio_and_http_servers_are_declared_in_the_first_request(
    installed: Installed, http_fixture_url: str
) -> None:
    write_mcp(
        installed.agent_dir,
        {"srv": fixture_entry(exposure="direct"), "web": {"url": http_fixture_url, "exposure": "direct"}},
    )
    installed.server.queue(
        tool_reply([("mcp__web__add", {"a": 2, "b": 40}), ("mcp__srv__echo", {"text": "hi"})]),
        text_reply("ok"),
    )
    done = installed.run("-p", *MODEL, "add and echo")
    assert done.returncode == 0, done.stderr
    first, second = installed.server.requests
    assert {"mcp__srv__echo", "mcp__web__add"} <= set(tool_names(first))
    results = tool_results(second)
    assert "42" in results[0] and "echo: hi" in results[1]


def test_a_hung_and_a_crashing_server_never_block_start_up_or_lose_the_session(installed: Installed) -> None:
    hung = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"], "exposure": "direct"}
    crashing = fixture_entry(exposure="direct", env={"FIXTURE_FAIL": "1"})
    write_mcp(installed.agent_dir, {"hung": hung, "crashing": crashing, "srv": fixture_entry(exposure="direct")})
    installed.server.queue(text_reply("still here"))
    started = time.monotonic()
    done = installed.run("-p", *MODEL, "hello")
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "still here"
    assert elapsed < 40, "the first prompt waits at most 10 s for direct servers"
    assert "MCP servers are still connecting; their tools become available once connected." in done.stderr
    assert 'crashing: failed: MCP server "crashing" failed to connect: ' in done.stderr
    (first,) = installed.server.requests
    names = tool_names(first)
    assert "mcp__srv__echo" in names and not any(n.startswith(("mcp__hung__", "mcp__crashing__")) for n in names)


def test_a_server_dying_mid_call_is_an_error_result_and_the_next_call_reconnects(installed: Installed) -> None:
    write_mcp(installed.agent_dir, {"srv": fixture_entry(exposure="direct")})
    installed.server.queue(
        tool_reply([("mcp__srv__die", {})]),
        tool_reply([("mcp__srv__echo", {"text": "back"})]),
        text_reply("done"),
    )
    done = installed.run("-p", *MODEL, "die then echo")
    assert done.returncode == 0, done.stderr
    (died,) = tool_results(installed.server.requests[1])
    assert "Connection closed" in died and "fixture server exiting on purpose" in died
    echoed = tool_results(installed.server.requests[2])[-1]
    assert "echo: back" in echoed


def test_codemode_servers_are_listed_in_the_system_prompt(installed: Installed) -> None:
    write_mcp(installed.agent_dir, {"srv": fixture_entry(description="Fixture tools")})
    installed.server.queue(text_reply("ok"))
    done = installed.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    prompt = system_prompt(installed.server.requests[0])
    assert (
        "MCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts."
        in prompt
    )
    assert "- mcp__srv (codemode): Fixture tools" in prompt
    assert not any(n.startswith("mcp__srv__") for n in tool_names(installed.server.requests[0]))


def test_tool_search_loads_a_deferred_tool_for_the_next_request_keeping_the_prefix(installed: Installed) -> None:
    weather = {"command": sys.executable, "args": [WEATHER], "exposure": "deferred"}
    write_mcp(installed.agent_dir, {"w": weather})
    installed.server.queue(
        tool_reply([("tool_search", {"query": "weather"})]),
        tool_reply([("mcp__w__get_weather", {"city": "Oslo"})]),
        text_reply("done"),
    )
    done = installed.run("-p", *MODEL, "what is the weather in Oslo?")
    assert done.returncode == 0, done.stderr
    first, second, third = installed.server.requests
    assert "tool_search" in tool_names(first) and "mcp__w__get_weather" not in tool_names(first)
    (loaded,) = tool_results(second)
    assert "Loaded 1 tool. They are available from your next call:\\n- mcp__w__get_weather: Current weather" in loaded
    assert "mcp__w__get_weather" in tool_names(second) and "mcp__w__convert_length" not in tool_names(second)
    first_tools = first.json()["tools"]
    assert second.json()["tools"][: len(first_tools)] == first_tools, "earlier declarations stay in place"
    assert "Sunny in Oslo" in tool_results(third)[-1]


def test_invalid_entries_are_reported_and_the_valid_servers_still_connect(installed: Installed) -> None:
    write_mcp(
        installed.agent_dir,
        {
            "bad name!": {"command": "x"},
            "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
            "srv": fixture_entry(),
        },
    )
    project = installed.cwd / ".pi"
    project.mkdir()
    project_file = project / "mcp.json"
    project_file.write_text(json.dumps({"mcpServers": {"lonely": {"enabled": False}}}))
    (installed.agent_dir / "trust.json").write_text(json.dumps({str(installed.cwd.resolve()): True}))
    listed = installed.run("mcp", "list")
    path = installed.agent_dir / "mcp.json"
    assert f'{project_file}: server "lonely" needs "command" or "url", or a global server to override' in listed.stdout
    assert f'{path}: invalid server name "bad name!" (use letters, digits, "_" and "-")' in listed.stdout
    assert f'{path}: server "old": legacy SSE transport is not supported; use the streamable HTTP URL' in listed.stdout
    assert "srv: connected, " in listed.stdout
    assert listed.returncode == 1


def test_an_error_result_is_an_error_for_the_model(installed: Installed) -> None:
    write_mcp(installed.agent_dir, {"w": {"command": sys.executable, "args": [WEATHER], "exposure": "direct"}})
    installed.server.queue(tool_reply([("mcp__w__always_fails", {})]), text_reply("sorry"))
    done = installed.run("--mode", "json", "-p", *MODEL, "try it")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    (end,) = [e for e in events if e.get("type") == "tool_execution_end"]
    assert end["isError"] is True
    assert "the service is down" in json.dumps(end["result"])
    assert "the service is down" in tool_results(installed.server.requests[1])[0]


def test_env_values_expand_variables_and_the_whole_environment_reaches_the_server(
    installed: Installed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_TEST_SECRET", "s3cret")
    monkeypatch.setenv("MCP_TEST_INHERITED", "from-pi")
    entry = fixture_entry(exposure="direct", env={"TOKEN": "pre-${MCP_TEST_SECRET}"})
    write_mcp(installed.agent_dir, {"srv": entry})
    installed.server.queue(
        tool_reply(
            [("mcp__srv__env_value", {"name": "TOKEN"}), ("mcp__srv__env_value", {"name": "MCP_TEST_INHERITED"})]
        ),
        text_reply("ok"),
    )
    done = installed.run("-p", *MODEL, "env")
    assert done.returncode == 0, done.stderr
    token, inherited = tool_results(installed.server.requests[1])
    assert "pre-s3cret" in token and "from-pi" in inherited


def test_no_mcp_and_excluding_mcp_tools_remove_them(installed: Installed) -> None:
    write_mcp(installed.agent_dir, {"srv": fixture_entry(exposure="direct")})
    installed.server.queue(text_reply("a"), text_reply("b"), text_reply("c"))
    for flags in (["--no-mcp"], ["--exclude-tools", "mcp__*"], ["--tools", "read,mcp__srv__echo"]):
        done = installed.run(*flags, "-p", *MODEL, "hi")
        assert done.returncode == 0, done.stderr
    without, excluded, selected = (tool_names(r) for r in installed.server.requests)
    assert not any(n.startswith("mcp__") for n in without + excluded)
    assert "read" in excluded
    assert selected == ["read", "mcp__srv__echo"]


def test_the_project_file_is_used_only_in_a_trusted_project(installed: Installed) -> None:
    project = installed.cwd / ".pi"
    project.mkdir()
    (project / "mcp.json").write_text(json.dumps({"mcpServers": {"local": fixture_entry(exposure="direct")}}))
    installed.server.queue(text_reply("a"), text_reply("b"))
    for flags in (["--no-approve"], ["--approve"]):
        done = installed.run(*flags, "-p", *MODEL, "hi")
        assert done.returncode == 0, done.stderr
    untrusted, trusted = (tool_names(r) for r in installed.server.requests)
    assert not any(n.startswith("mcp__local__") for n in untrusted)
    assert "mcp__local__echo" in trusted
