from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from pi.app.mcp.cli_command import run_mcp_command
from tests.app.mcp.conftest import FIXTURE


def run(tmp_path: Path, *argv: str, trusted: bool = True) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    (tmp_path / "proj").mkdir(exist_ok=True)
    code = run_mcp_command(list(argv), tmp_path / "agent", tmp_path / "proj", trusted, out, err)
    return code, out.getvalue(), err.getvalue()


def test_acceptance_39_add_http_with_bearer_then_remove_local(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, "add", "docs", "--url", "http://127.0.0.1:1/mcp", "--bearer-token-env-var", "T")
    path = tmp_path / "agent" / "mcp.json"
    assert code == 0
    assert out == f'Added global MCP server "docs" in {path}.\nCheck it with: pi mcp list\n'
    assert json.loads(path.read_text())["mcpServers"]["docs"]["headers"] == {"Authorization": "Bearer ${T}"}
    code, _, err = run(tmp_path, "remove", "docs", "-l")
    project = tmp_path / "proj" / ".pi" / "mcp.json"
    assert code == 1
    assert err == f'No project MCP server named "docs" in {project}. It is defined in {path}; omit --local.\n'
    code, out, _ = run(tmp_path, "remove", "docs")
    assert (code, out) == (0, f'Removed global MCP server "docs" from {path}.\n')


def test_add_keeps_other_content_and_indentation(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{\n    "autoEnableCodemode": false,\n    "mcpServers": {\n        "a": {"command": "x"}\n    }\n}\n'
    )
    code, out, _ = run(tmp_path, "add", "t", "--env", "K=V", "--", "python", "-m", "mcp_server_time")
    assert code == 0 and out.startswith('Added global MCP server "t"')
    text = path.read_text()
    assert '\n    "autoEnableCodemode": false,' in text
    data = json.loads(text)
    assert data["mcpServers"]["t"] == {"command": "python", "args": ["-m", "mcp_server_time"], "env": {"K": "V"}}
    assert data["mcpServers"]["a"] == {"command": "x"}
    code, out, _ = run(tmp_path, "add", "t", "--", "other")
    assert out.startswith('Replaced global MCP server "t"')


def test_add_http_suggests_login_and_rejects_misplaced_options(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, "add", "h", "--url", "https://example.com/mcp")
    assert out.endswith("Check it with: pi mcp list. If it requires sign-in: pi mcp login h\n")
    code, _, err = run(tmp_path, "add", "h", "--header", "A=b", "--", "cmd")
    assert (code, err) == (1, "--header only applies to HTTP servers (--url).\n")
    code, _, err = run(tmp_path, "add", "h", "--env", "A=b", "--url", "https://example.com/mcp")
    assert (code, err) == (1, "--env only applies to stdio servers.\n")
    code, _, err = run(tmp_path, "add", "bad name", "--", "cmd")
    assert code == 1 and "invalid server name" in err
    assert not (tmp_path / "proj" / ".pi" / "mcp.json").exists()


def test_list_connects_to_every_enabled_server(tmp_path: Path) -> None:
    run(tmp_path, "add", "srv", "--exposure", "deferred", "--", sys.executable, FIXTURE)
    run(tmp_path, "add", "time", "--", sys.executable, "-m", "mcp_server_time")
    code, out, _ = run(tmp_path, "list")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "srv: connected, 11 tools (deferred, global)"
    assert lines[1] == f"  stdio: {sys.executable} {FIXTURE}"
    assert lines[2].startswith("  tools: a-b, a_b, echo")
    assert "  offers resources" in lines
    assert "time: connected, 2 tools (codemode, global)" in lines
    code, out, _ = run(tmp_path, "list", "--json")
    data = json.loads(out)
    assert [s["state"] for s in data["servers"]] == ["connected", "connected"]
    assert data["servers"][1]["tools"] == ["get_current_time", "convert_time"] and data["errors"] == []


def test_list_fails_for_broken_servers(tmp_path: Path) -> None:
    run(tmp_path, "add", "gone", "--", "/nonexistent/binary")
    code, out, _ = run(tmp_path, "list")
    assert code == 1
    assert out.startswith(
        'gone: failed (codemode, global)\n  stdio: /nonexistent/binary\n  MCP server "gone" failed to connect'
    )


def test_unknown_names_and_logout(tmp_path: Path) -> None:
    run(tmp_path, "add", "docs", "--url", "https://example.com/mcp")
    code, _, err = run(tmp_path, "logout", "dcs")
    assert (code, err) == (1, 'No MCP server named "dcs". Did you mean "docs"? Configured: docs.\n')
    code, out, _ = run(tmp_path, "logout", "docs")
    assert (code, out) == (0, 'No stored credentials for MCP server "docs".\n')
    store = tmp_path / "agent" / "mcp-auth.json"
    store.write_text(json.dumps({"mcp__docs|https://example.com/mcp": {"tokens": {}}, "other": {}}))
    code, out, _ = run(tmp_path, "logout", "docs")
    assert (code, out) == (0, 'Signed out of MCP server "docs".\n')
    assert json.loads(store.read_text()) == {"other": {}}
    assert store.stat().st_mode & 0o777 == 0o600
