"""The MCP SDK is loaded only when a server connects."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SETUP_WITHOUT_CONFIG = """
import asyncio, sys
from types import SimpleNamespace
from pi.app.mcp.extension import create_mcp_extension
from pi.app.mcp.tool_search_extension import create_tool_search_extension

class Pi:
    handlers = {}
    def on(self, event, handler): self.handlers.setdefault(event, []).append(handler)
    def register_command(self, *a, **k): pass
    def register_tool(self, d): pass
    def get_mcp_servers(self): return []
    def get_all_tools(self): return []
    def get_active_tools(self): return []
    def set_active_tools(self, names): pass

pi = Pi()
create_mcp_extension(agent_dir=__import__("pathlib").Path(sys.argv[1]), trusted=True)(pi)
create_tool_search_extension()(pi)
ctx = SimpleNamespace(cwd=sys.argv[1], ui=None)
async def emit(event, payload):
    for handler in pi.handlers.get(event, []):
        result = handler(payload, ctx)
        if asyncio.iscoroutine(result):
            await result
async def main():
    await emit("session_start", None)
    await emit("before_agent_start", SimpleNamespace(system_prompt=""))
    await emit("session_shutdown", None)
asyncio.run(main())
print(sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp.")))
"""


def test_a_session_without_mcp_json_does_not_import_the_sdk(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SETUP_WITHOUT_CONFIG, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_pi_version_does_not_import_the_sdk() -> None:
    code = "import sys; from pi.app.cli import main; main(['--version']); print('mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
