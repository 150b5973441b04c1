"""A stdio server's process group ends with pi, even when pi exits without closing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.app.mcp.conftest import FIXTURE

_LEAVE_SERVER_RUNNING = """
import asyncio, sys
from pathlib import Path
from pi.app.mcp.client import McpConnection
from pi.app.mcp.config import validate_server

async def main():
    server = validate_server("srv", {"command": sys.executable, "args": [sys.argv[1]]}, scope="global", source="t")
    connection = McpConnection(server, cwd=Path.cwd())
    assert await connection.connect() == "connected", connection.error
    result = await connection.call_tool("spawn_child", {})
    print(result.content[0].text, flush=True)

loop = asyncio.new_event_loop()
loop.run_until_complete(main())
sys.exit(0)  # the connection is never closed and its task never finishes

"""


def test_server_group_is_killed_when_the_host_exits(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LEAVE_SERVER_RUNNING, FIXTURE], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    child = int(done.stdout.strip().splitlines()[-1])
    stat = Path(f"/proc/{child}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z"
