"""The stdio connection against a real SDK server (tests/app/mcp/fixture_server.py)."""

from __future__ import annotations

import os
from pathlib import Path

from pi.app.mcp.client import McpConnection
from tests.app.mcp.conftest import fixture_config


def state_of(connection: McpConnection) -> str:
    return connection.state


async def test_connect_list_call_and_close(tmp_path: Path) -> None:
    connection = McpConnection(fixture_config(), cwd=tmp_path)
    assert await connection.connect() == "connected"
    try:
        assert [t.name for t in connection.tools][:3] == ["a-b", "a_b", "echo"]
        assert connection.has_resources and connection.instructions == "Fixture server.\nSecond line."
        result = await connection.call_tool("echo", {"text": "hi"})
        assert result.content[0].text == "echo: hi"
    finally:
        await connection.close()
    assert connection.state == "closed"


async def test_full_environment_and_resolved_env_reach_the_server(tmp_path: Path) -> None:
    os.environ["PI_MCP_TEST_OUTER"] = "outer"
    try:
        server = fixture_config(env={"INNER": "${PI_MCP_TEST_OUTER}-inner"})
        connection = McpConnection(server, cwd=tmp_path)
        assert await connection.connect() == "connected"
        try:
            outer = await connection.call_tool("env_value", {"name": "PI_MCP_TEST_OUTER"})
            inner = await connection.call_tool("env_value", {"name": "INNER"})
            assert (outer.content[0].text, inner.content[0].text) == ("outer", "outer-inner")
        finally:
            await connection.close()
    finally:
        del os.environ["PI_MCP_TEST_OUTER"]


async def test_server_that_dies_mid_call_disconnects_and_reconnects_on_next_call(tmp_path: Path) -> None:
    connection = McpConnection(fixture_config(), cwd=tmp_path)
    assert await connection.connect() == "connected"
    try:
        try:
            await connection.call_tool("die", {})
            raise AssertionError("the call should have failed")
        except Exception as error:
            assert str(error).startswith("Connection closed")
            assert "fixture server exiting on purpose" in str(error)
        assert state_of(connection) == "disconnected"
        assert connection.error is not None and connection.error.startswith("Connection closed")
        again = await connection.call_tool("echo", {"text": "back"})
        assert again.content[0].text == "echo: back" and state_of(connection) == "connected"
    finally:
        await connection.close()


async def test_timeout_without_progress(tmp_path: Path) -> None:
    connection = McpConnection(fixture_config(timeout=1), cwd=tmp_path)
    assert await connection.connect() == "connected"
    try:
        try:
            await connection.call_tool("hang", {})
            raise AssertionError("the call should have timed out")
        except TimeoutError as error:
            assert str(error) == 'MCP tool "srv/hang" timed out after 1 s without progress'
        assert (await connection.call_tool("echo", {"text": "still"})).content[0].text == "echo: still"
    finally:
        await connection.close()


async def test_failed_start_reports_error_with_stderr_tail(tmp_path: Path) -> None:
    connection = McpConnection(fixture_config(env={"FIXTURE_FAIL": "1"}), cwd=tmp_path)
    assert await connection.connect() == "failed"
    assert connection.error is not None
    assert connection.error.startswith('MCP server "srv" failed to connect: ')
    assert connection.error.endswith("cannot start: missing token")


async def test_missing_command_fails_cleanly(tmp_path: Path) -> None:
    connection = McpConnection(fixture_config(command="/nonexistent/server-binary"), cwd=tmp_path)
    assert await connection.connect() == "failed"
    assert connection.error is not None and "/nonexistent/server-binary" in connection.error
