"""Streamable HTTP: a real FastMCP server, a 401 answer (needs sign-in) and connect retries."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import validate_server
from tests.support.loopback_http import LoopbackHTTP, QuietHandler

HTTP_FIXTURE = str(Path(__file__).with_name("http_fixture_server.py"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def fastmcp_url() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, HTTP_FIXTURE, str(port)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # wait for uvicorn's start-up line
        if "Uvicorn running on" in line:
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class StatusServer:
    """Answers every request with one status and counts the requests."""

    def __init__(self, status: int, headers: dict[str, str]) -> None:
        self.count = 0
        self.authorization: list[str | None] = []
        outer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                outer.count += 1
                outer.authorization.append(self.headers.get("authorization"))
                self.rfile.read(int(self.headers.get("content-length", "0")))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", "0")
                self.end_headers()

            do_GET = do_POST

        self.server = LoopbackHTTP(Handler).start()
        self.url = f"{self.server.url}/mcp"

    def stop(self) -> None:
        self.server.stop()


def http_server_config(url: str) -> Any:
    return validate_server("web", {"url": url}, scope="global", source="test")


async def test_streamable_http_connect_and_call(fastmcp_url: str, tmp_path: Path) -> None:
    connection = McpConnection(http_server_config(fastmcp_url), cwd=tmp_path)
    assert await connection.connect() == "connected", connection.error
    try:
        assert [t.name for t in connection.tools] == ["add"]
        result = await connection.call_tool("add", {"a": 2, "b": 3})
        assert result.content[0].text == "5"
    finally:
        await connection.close()


async def test_401_without_stored_token_is_needs_auth(tmp_path: Path) -> None:
    server = StatusServer(401, {"www-authenticate": 'Bearer resource_metadata="http://127.0.0.1:1/.well-known/x"'})
    try:
        connection = McpConnection(http_server_config(server.url), cwd=tmp_path)
        assert await connection.connect() == "needs-auth"
        assert connection.error == 'MCP server "web" requires sign-in. Run /mcp to sign in.'
        assert server.count == 1
    finally:
        server.stop()


async def test_transient_errors_are_retried_twice(tmp_path: Path) -> None:
    server = StatusServer(503, {})
    try:
        connection = McpConnection(http_server_config(server.url), cwd=tmp_path)
        assert await connection.connect() == "failed"
        assert server.count == 3
        assert connection.error is not None and connection.error.startswith('MCP server "web" failed to connect: ')
    finally:
        server.stop()


async def test_non_transient_errors_are_not_retried(tmp_path: Path) -> None:
    server = StatusServer(501, {})
    try:
        connection = McpConnection(http_server_config(server.url), cwd=tmp_path)
        assert await connection.connect() == "failed"
        assert server.count == 1
    finally:
        server.stop()


async def test_stored_access_token_is_sent(tmp_path: Path) -> None:
    import json

    server = StatusServer(401, {})
    try:
        config = http_server_config(server.url)
        (tmp_path / "mcp-auth.json").write_text(
            json.dumps({f"mcp__web|{server.url}": {"tokens": {"access_token": "tok"}}})
        )
        connection = McpConnection(config, cwd=tmp_path, agent_dir=tmp_path)
        assert await connection.connect() == "needs-auth"
        assert server.authorization == ["Bearer tok"]
    finally:
        server.stop()


async def test_auth_provider_servers_send_the_login_token_and_say_how_to_sign_in(tmp_path: Path) -> None:
    import json

    server = StatusServer(401, {})
    try:
        entry = {"url": server.url, "auth": {"provider": "acme"}}
        config = validate_server("web", entry, scope="global", source="test")
        connection = McpConnection(config, cwd=tmp_path, agent_dir=tmp_path)
        assert await connection.connect() == "needs-auth"
        assert connection.error == 'MCP server "web" requires sign-in. Run /login acme to sign in.'
        assert server.authorization == [None]
        (tmp_path / "auth.json").write_text(json.dumps({"acme": {"type": "api_key", "key": "acme-key"}}))
        assert await connection.connect() == "needs-auth"
        assert server.authorization[-1] == "Bearer acme-key"
    finally:
        server.stop()


def _start_fastmcp(port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, HTTP_FIXTURE, str(port)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "Uvicorn running on" in line:
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    return proc


async def test_an_expired_session_is_replaced_and_the_call_sent_again(tmp_path: Path) -> None:
    port = free_port()
    first = _start_fastmcp(port)
    connection = McpConnection(http_server_config(f"http://127.0.0.1:{port}/mcp"), cwd=tmp_path)
    second: subprocess.Popen[str] | None = None
    try:
        assert await connection.connect() == "connected", connection.error
        first.terminate()
        first.wait(timeout=10)
        second = _start_fastmcp(port)  # a new server process knows nothing of the old session: 404
        result = await connection.call_tool("add", {"a": 1, "b": 2})
        assert result.content[0].text == "3"
    finally:
        await connection.close()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=10)
