"""Step-up sign-in through real `pi` processes: a call answered `insufficient_scope`, then a wider sign-in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

from tests.app.mcp.test_oauth import start_oauth_server
from tests.e2e.conftest import Installed
from tests.e2e.mcp_support import MODEL, tool_results
from tests.e2e.test_mcp_oauth import BROWSER_SCRIPT
from tests.support.openai_chunks import text_reply, tool_reply


@pytest.mark.timeout(240)
def test_a_call_needing_more_scope_asks_for_sign_in_and_the_next_sign_in_widens_it(
    installed: Installed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, base = start_oauth_server(3600, "step-up")
    try:
        entry = {"url": f"{base}/mcp", "exposure": "direct", "oauth": {"scope": "mcp"}}
        (installed.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"secure": entry}}))
        browser = tmp_path / "test-browser"
        browser.write_text(BROWSER_SCRIPT.format(python=sys.executable))
        browser.chmod(0o755)
        monkeypatch.setenv("BROWSER", str(browser))
        login = installed.run("mcp", "login", "secure", "--timeout", "60")
        assert login.returncode == 0, login.stderr

        installed.server.queue(tool_reply([("mcp__secure__admin", {})]), text_reply("need more access"))
        refused = installed.run("-p", *MODEL, "administer it")
        assert refused.returncode == 0, refused.stderr
        (result,) = tool_results(installed.server.requests[1])
        assert 'MCP server \\"secure\\" requires sign-in. Run /mcp to sign in.' in result

        pending = installed.run("mcp", "list")
        assert pending.returncode == 1, pending.stdout + pending.stderr
        lines = pending.stdout.splitlines()
        assert lines[0] == "secure: needs sign-in (direct, global)"
        assert lines[2] == "  sign in with: pi mcp login secure"
        listed = installed.run("mcp", "list", "--json")
        assert listed.returncode == 1
        (server,) = json.loads(listed.stdout)["servers"]
        assert server["state"] == "needs-auth"

        again = installed.run("mcp", "login", "secure", "--timeout", "60")
        assert again.returncode == 0, again.stderr
        scopes = [a["scope"] for a in httpx.get(f"{base}/stats", timeout=10).json()["authorize"]]
        assert scopes == ["mcp", "mcp admin"], "granted plus challenged scopes"
        signed_in = installed.run("mcp", "list")
        assert signed_in.returncode == 0, signed_in.stdout + signed_in.stderr
        assert signed_in.stdout.startswith("secure: connected, 2 tools (direct, global)\n")

        installed.server.queue(tool_reply([("mcp__secure__admin", {})]), text_reply("done"))
        allowed = installed.run("-p", *MODEL, "administer it")
        assert allowed.returncode == 0, allowed.stderr
        assert "administered" in tool_results(installed.server.requests[3])[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
