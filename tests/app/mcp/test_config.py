from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.mcp.config import ConfigError, load_mcp_config, validate_server
from pi.app.mcp.secrets import SecretError, expand_home, expand_map, expand_value


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_acceptance_32_three_messages_and_valid_servers_still_load(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    g = write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "bad name!": {"command": "x"},
                "old": {"type": "sse", "url": "http://h/sse"},
                "ok": {"command": "x"},
            }
        },
    )
    p = write(
        cwd / ".pi" / "mcp.json", {"mcpServers": {"lonely": {"enabled": False}, "local": {"url": "https://h/mcp"}}}
    )
    config = load_mcp_config(agent, cwd, trusted=True)
    assert config.errors == [
        f'{g}: invalid server name "bad name!" (use letters, digits, "_" and "-")',
        f'{g}: server "old": legacy SSE transport is not supported; use the streamable HTTP URL',
        f'{p}: server "lonely" needs "command" or "url", or a global server to override',
    ]
    assert list(config.servers) == ["ok", "local"]


def test_project_file_is_ignored_unless_trusted(tmp_path: Path) -> None:
    write(tmp_path / ".pi" / "mcp.json", {"mcpServers": {"p": {"command": "x"}}})
    assert load_mcp_config(tmp_path / "a", tmp_path, trusted=False).servers == {}
    assert list(load_mcp_config(tmp_path / "a", tmp_path, trusted=True).servers) == ["p"]


def test_override_changes_only_allowed_keys_of_the_global_server(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "mcp.json", {"mcpServers": {"g": {"command": "x", "exposure": "direct"}, "h": {"command": "y"}}})
    p = write(
        tmp_path / ".pi" / "mcp.json",
        {
            "mcpServers": {
                "g": {"enabled": False, "exposure": "codemode-deferred"},
                "h": {"enabled": True, "timeout": 5},
            }
        },
    )
    config = load_mcp_config(agent, tmp_path, trusted=True)
    g = config.servers["g"]
    assert (g.enabled, g.exposure, g.command, g.override, g.scope) == (False, "codemode", "x", str(p), "global")
    assert config.errors == [f'{p}: server "h": an override can only set enabled, exposure, toolExposure']
    assert config.servers["h"].timeout == 60.0


def test_project_entry_replaces_global_and_project_auth_is_rejected(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "mcp.json", {"mcpServers": {"s": {"command": "global"}}})
    p = write(
        tmp_path / ".pi" / "mcp.json",
        {"mcpServers": {"s": {"command": "project"}, "a": {"url": "https://h/", "auth": {"provider": "x"}}}},
    )
    config = load_mcp_config(agent, tmp_path, trusted=True)
    assert config.servers["s"].command == "project" and config.servers["s"].scope == "project"
    assert config.errors == [f'{p}: server "a": auth is only allowed in the global mcp.json']


def test_names_equal_up_to_dash_and_underscore_conflict(tmp_path: Path) -> None:
    g = write(tmp_path / "mcp.json", {"mcpServers": {"my-x": {"command": "a"}, "my_x": {"command": "b"}}})
    config = load_mcp_config(tmp_path, tmp_path / "none", trusted=False)
    assert config.errors == [f'{g}: server "my_x" conflicts with "my-x"']


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ([], 'server "s" must be an object'),
        ({}, 'server "s" needs either "command" (stdio) or "url" (streamable HTTP)'),
        ({"command": "x", "enabled": "yes"}, 'server "s": enabled must be a boolean'),
        ({"command": "x", "description": 1}, 'server "s": description must be a string'),
        ({"command": "x", "timeout": 0}, 'server "s": timeout must be a positive number of seconds'),
        ({"url": "ftp://h"}, 'server "s": url must be an http or https URL'),
        ({"url": "https://h", "headers": {"a": 1}}, 'server "s": headers must map names to strings'),
        ({"command": "x", "args": "a"}, 'server "s": args must be an array of strings'),
        ({"command": "x", "env": {"A": 1}}, 'server "s": env must map names to strings'),
        ({"command": "x", "cwd": 3}, 'server "s": cwd must be a string'),
        (
            {"command": "x", "exposure": "all"},
            'server "s": exposure must be one of "codemode", "deferred", "direct", "hidden"',
        ),
        ({"command": "x", "toolExposure": {"t": "x"}}, 'server "s": toolExposure must map tool names to exposures'),
        ({"url": "https://h", "auth": {"provider": ""}}, 'server "s": auth.provider must be a provider name'),
        (
            {"url": "http://example.com/", "auth": {"provider": "p"}},
            'server "s": auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]',
        ),
        (
            {"url": "https://h", "oauth": {"callbackPort": 0}},
            'server "s": oauth.callbackPort must be an integer from 1 to 65535',
        ),
        ({"url": "https://h", "oauth": {"clientName": ""}}, 'server "s": oauth.clientName must be a non-empty string'),
    ],
)
def test_validation_messages(entry: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_server("s", entry, scope="global", source="f")
    assert str(caught.value) == message


def test_oauth_callback_rules() -> None:
    ok = {"callbackUrl": "http://127.0.0.1:8123/callback", "callbackPort": 8123, "clientRegistration": "cimd"}
    assert validate_server("s", {"url": "https://h", "oauth": ok}, scope="global", source="f").oauth == ok
    for bad in (
        {"callbackUrl": "http://example.com/cb"},
        {"callbackUrl": "http://localhost:1/cb?x=1"},
        {"callbackUrl": "http://localhost:1/cb", "callbackPort": 2},
        {"clientRegistration": "cimd", "clientId": "x", "callbackUrl": "http://localhost:1/callback"},
        {"clientRegistration": "cimd", "callbackUrl": "http://localhost:1/other"},
        {"authServerMetadataUrl": "http://example.com/meta"},
    ):
        with pytest.raises(ConfigError):
            validate_server("s", {"url": "https://h", "oauth": bad}, scope="global", source="f")


def test_tool_exposure_exact_then_first_pattern_then_server() -> None:
    server = validate_server(
        "s",
        {
            "command": "x",
            "exposure": "deferred",
            "toolExposure": {"get_*": "hidden", "get_x": "direct", "*_y": "codemode"},
        },
        scope="global",
        source="f",
    )
    assert server.exposure_for_tool("get_x") == "direct"
    assert server.exposure_for_tool("get_y") == "hidden"
    assert server.exposure_for_tool("set_y") == "codemode"
    assert server.exposure_for_tool("other") == "deferred"


def test_expansion_of_variables_commands_and_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKEN_X", "abc")
    monkeypatch.setenv("HOME", "/home/u")
    assert expand_map({"A": "Bearer ${TOKEN_X}", "B": "${UNSET_Y_Z}-", "C": "!echo secret"}) == {
        "A": "Bearer abc",
        "B": "-",
        "C": "secret",
    }
    assert expand_home("~/bin/x") == "/home/u/bin/x"
    assert expand_home("a/~/b") == "a/~/b"
    with pytest.raises(SecretError):
        expand_value("!exit 4")


def test_broken_file_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text("{nope")
    config = load_mcp_config(tmp_path, tmp_path, trusted=False)
    assert len(config.errors) == 1 and config.errors[0].startswith(f"{tmp_path / 'mcp.json'}: invalid JSON")


def test_acceptance_35_exact_name_then_pattern() -> None:
    entry = {"command": "x", "toolExposure": {"get_x": "direct", "get_*": "hidden"}}
    server = validate_server("s", entry, scope="global", source="f")
    assert (server.exposure_for_tool("get_x"), server.exposure_for_tool("get_y")) == ("direct", "hidden")
    assert server.exposure_for_tool("other") == "codemode"
