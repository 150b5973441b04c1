"""Which mcp.json entry a Radius login writes, and how the rest of the file survives the write."""

from __future__ import annotations

import io
import json
from pathlib import Path

from pi.app.oauth.radius_mcp import configure_after_login, plan_radius_mcp, radius_mcp_url, save_plan

GATEWAY = "https://gw.example.com"
URL = "https://gw.example.com/mcp"
AUTH = {"provider": "radius"}


def _write(agent: Path, servers: dict[str, object], **extra: object) -> Path:
    path = agent / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers, **extra}, indent=2) + "\n")
    return path


def _configure(agent: Path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    configure_after_login(agent, GATEWAY, out, err)
    return out.getvalue(), err.getvalue()


def test_the_url_is_the_gateways_mcp_endpoint() -> None:
    assert radius_mcp_url("https://radius.pi.dev") == "https://radius.pi.dev/mcp"
    assert radius_mcp_url("gw.example.com/") == URL


def test_without_a_file_the_server_is_added(tmp_path: Path) -> None:
    out, err = _configure(tmp_path)
    path = tmp_path / "mcp.json"
    assert out == f'Added MCP server "radius" in {path} to use the Radius login.\n' and err == ""
    assert json.loads(path.read_text()) == {"mcpServers": {"radius": {"url": URL, "auth": AUTH}}}


def test_a_server_with_the_gateway_url_keeps_its_name_and_fields_and_loses_its_own_sign_in(tmp_path: Path) -> None:
    mine = {"url": URL + "/", "description": "Gateway tools", "oauth": {"clientId": "x"}, "exposure": "direct"}
    path = _write(tmp_path, {"other": {"command": "srv"}, "gateway": mine})
    out, _ = _configure(tmp_path)
    assert out == f'Updated MCP server "gateway" in {path} to use the Radius login.\n'
    servers = json.loads(path.read_text())["mcpServers"]
    assert list(servers) == ["other", "gateway"]
    assert servers["gateway"] == {"url": URL + "/", "description": "Gateway tools", "exposure": "direct", "auth": AUTH}
    assert servers["other"] == {"command": "srv"}


def test_nothing_changes_when_the_gateway_server_already_uses_the_login(tmp_path: Path) -> None:
    path = _write(tmp_path, {"work": {"url": URL, "auth": AUTH}})
    before = path.read_bytes()
    assert plan_radius_mcp(tmp_path, GATEWAY) is None
    assert _configure(tmp_path) == ("", "")
    assert path.read_bytes() == before


def test_a_taken_namespace_gets_the_next_free_name(tmp_path: Path) -> None:
    _write(tmp_path, {"radius": {"url": "https://elsewhere.example.com/mcp"}, "radius_mcp": {"command": "x"}})
    plan = plan_radius_mcp(tmp_path, GATEWAY)
    assert plan is not None and plan.name == "radius-mcp-2"
    assert plan.entry == {"url": URL, "auth": AUTH}


def test_a_server_with_another_provider_login_is_switched_to_radius(tmp_path: Path) -> None:
    _write(tmp_path, {"radius": {"url": URL, "auth": {"provider": "openai"}}})
    plan = plan_radius_mcp(tmp_path, GATEWAY)
    assert plan is not None and (plan.name, plan.entry) == ("radius", {"url": URL, "auth": AUTH})


def test_project_servers_do_not_count(tmp_path: Path) -> None:
    project = tmp_path / ".pi"
    project.mkdir()
    (project / "mcp.json").write_text(json.dumps({"mcpServers": {"radius": {"url": URL, "auth": AUTH}}}))
    plan = plan_radius_mcp(tmp_path / "agent", GATEWAY)
    assert plan is not None and plan.path == tmp_path / "agent" / "mcp.json"


def test_tab_indentation_and_a_byte_order_mark_are_handled(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('\ufeff{\n\t"mcpServers": {\n\t\t"a": {"command": "x"}\n\t}\n}\n', encoding="utf-8")
    plan = plan_radius_mcp(tmp_path, GATEWAY)
    assert plan is not None
    assert save_plan(plan) is False
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n\t"mcpServers": {\n\t\t"a": {\n\t\t\t"command": "x"')
    assert json.loads(text)["mcpServers"]["radius"] == {"url": URL, "auth": AUTH}


def test_a_broken_file_is_reported_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": ')
    out, err = _configure(tmp_path)
    assert out == ""
    assert err.startswith(f"Could not update {path}: invalid JSON")
    assert path.read_text() == '{"mcpServers": {"a": '
    path.write_text('{"mcpServers": []}')
    _, err = _configure(tmp_path)
    assert err == f'Could not update {path}: expected an object with an "mcpServers" object\n'
    assert path.read_text() == '{"mcpServers": []}'
