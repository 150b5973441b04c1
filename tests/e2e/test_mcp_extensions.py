"""Extensions and MCP (§3.9): servers registered by extensions, conflicts, and replacing the built-in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.app.extensions.cli_support import write_extension
from tests.app.mcp.conftest import FIXTURE
from tests.e2e.conftest import Installed
from tests.e2e.mcp_support import MODEL, tool_names, tool_results
from tests.support.openai_chunks import text_reply, tool_reply

REGISTER = """
import sys
def setup(pi):
    pi.register_mcp_server("jira", {{"command": sys.executable, "args": [{fixture!r}], "exposure": "direct"}})
"""


def _register(directory: Path, name: str) -> Path:
    return write_extension(directory, name, REGISTER.format(fixture=FIXTURE))


def test_a_server_registered_by_an_extension_connects_and_its_tools_are_called(
    installed: Installed, tmp_path: Path
) -> None:
    ext = _register(tmp_path / "ext", "jira.py")
    installed.server.queue(tool_reply([("mcp__jira__echo", {"text": "from ext"})]), text_reply("ok"))
    done = installed.run("-e", str(ext), "-p", *MODEL, "echo")
    assert done.returncode == 0, done.stderr
    first, second = installed.server.requests
    assert "mcp__jira__echo" in tool_names(first)
    assert "echo: from ext" in tool_results(second)[0]


def test_acceptance_42_a_second_extension_cannot_take_the_name(installed: Installed, tmp_path: Path) -> None:
    first = _register(tmp_path / "ext", "first.py")
    second = _register(tmp_path / "ext", "second.py")
    done = installed.run("-e", str(first), "-e", str(second), "-p", *MODEL, "hi")
    assert done.returncode == 1
    assert f'MCP server "jira" is already registered by extension "{first}"' in done.stderr
    assert f'Failed to load extension "{second}"' in done.stderr


def test_acceptance_42_without_the_builtin_the_registration_is_an_extension_error(
    installed: Installed, tmp_path: Path
) -> None:
    ext = _register(tmp_path / "ext", "jira.py")
    installed.server.queue(text_reply("ok"))
    done = installed.run("--no-mcp", "-e", str(ext), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert (
        f'Extension error ({ext}): MCP server "jira" is registered, but no loaded extension connects MCP servers; '
        "another extension may have replaced the built-in MCP support"
    ) in done.stderr
    assert not any(n.startswith("mcp__") for n in tool_names(installed.server.requests[0]))


def test_an_invalid_registration_raises_with_the_validation_message(installed: Installed, tmp_path: Path) -> None:
    ext = write_extension(
        tmp_path / "ext",
        "bad.py",
        'def setup(pi):\n    pi.register_mcp_server("old", {"type": "sse", "url": "http://127.0.0.1:1/sse"})\n',
    )
    done = installed.run("-e", str(ext), "-p", *MODEL, "hi")
    assert done.returncode == 1
    assert (
        f'Invalid MCP server registered by extension "{ext}": server "old": legacy SSE transport is not supported; '
        "use the streamable HTTP URL"
    ) in done.stderr


def test_an_extension_registering_mcp_replaces_the_builtin(installed: Installed, tmp_path: Path) -> None:
    (installed.agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"srv": {"command": sys.executable, "args": [FIXTURE], "exposure": "direct"}}})
    )
    ext = write_extension(
        tmp_path / "ext", "mine.py", 'def setup(pi):\n    pi.register_command("mcp", lambda args, ctx: None)\n'
    )
    installed.server.queue(text_reply("ok"))
    done = installed.run("-e", str(ext), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert not any(n.startswith("mcp__") for n in tool_names(installed.server.requests[0]))
