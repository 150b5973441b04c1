"""`pi mcp list|login|logout` against an MCP server behind a loopback OAuth authorization server."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.mcp.test_oauth import start_oauth_server
from tests.e2e.conftest import Installed

BROWSER_SCRIPT = """#!{python}
import sys, httpx
response = httpx.get(sys.argv[1], follow_redirects=True, timeout=30)
sys.exit(0 if response.status_code == 200 else 1)
"""


@pytest.fixture
def oauth_base() -> Iterator[str]:
    proc, base = start_oauth_server()
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_list_login_list_logout(
    installed: Installed, oauth_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"{oauth_base}/mcp"
    (installed.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"secure": {"url": url}}}))
    browser = tmp_path / "test-browser"
    browser.write_text(BROWSER_SCRIPT.format(python=sys.executable))
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    before = installed.run("mcp", "list")
    assert before.returncode == 1, before.stderr
    assert "secure: needs sign-in (codemode, global)" in before.stdout
    assert "  sign in with: pi mcp login secure" in before.stdout

    login = installed.run("mcp", "login", "secure", "--timeout", "60")
    assert login.returncode == 0, login.stderr
    assert login.stdout == 'Signed in to MCP server "secure" (1 tools).\n'
    assert "Open this URL in your browser to sign in:\n" in login.stderr
    auth = installed.agent_dir / "mcp-auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert list(json.loads(auth.read_text())) == [f"mcp__secure|{url}"]

    after = installed.run("mcp", "list")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "secure: connected, 1 tool (codemode, global)" in after.stdout

    logout = installed.run("mcp", "logout", "secure")
    assert logout.stdout == 'Signed out of MCP server "secure".\n'
    again = installed.run("mcp", "logout", "secure")
    assert again.stdout == 'No stored credentials for MCP server "secure".\n'


def test_login_to_an_unknown_server_suggests_the_close_name(installed: Installed) -> None:
    (installed.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"url": "http://127.0.0.1:1/m"}}}))
    done = installed.run("mcp", "login", "dosc")
    assert done.returncode == 1
    assert done.stderr == 'No MCP server named "dosc". Did you mean "docs"? Configured: docs.\n'
