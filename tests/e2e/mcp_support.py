"""Shared pieces of the MCP end-to-end tests: config files, fixture servers, request inspection."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.app.mcp.conftest import FIXTURE
from tests.support.http_server import RecordedRequest

HTTP_FIXTURE = str(Path(__file__).parents[1] / "app" / "mcp" / "http_fixture_server.py")
MODEL = ["--provider", "fake-openai", "--model", "fake-model"]


def write_mcp(agent_dir: Path, servers: dict[str, Any], **extra: Any) -> Path:
    path = agent_dir / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers, **extra}, indent=2))
    return path


def fixture_entry(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [FIXTURE], **extra}


def tool_names(request: RecordedRequest) -> list[str]:
    return [t["function"]["name"] for t in request.json().get("tools", [])]


def system_prompt(request: RecordedRequest) -> str:
    messages = request.json()["messages"]
    return "\n".join(str(m["content"]) for m in messages if m["role"] in ("system", "developer"))


def tool_results(request: RecordedRequest) -> list[str]:
    return [json.dumps(m["content"]) for m in request.json()["messages"] if m["role"] == "tool"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_fixture_url() -> Iterator[str]:
    """The FastMCP streamable-HTTP fixture on a free loopback port, once uvicorn says it listens."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, HTTP_FIXTURE, str(port)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if "Uvicorn running on" in line:
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def is_gone(pid: int) -> bool:
    """True when the process no longer exists (or is a zombie waiting for its parent)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True
