from __future__ import annotations

import msgspec.structs

from pi.app.oauth.providers import MAX_SAFE_INTEGER, ProviderTable


def test_production_values_are_the_protocol_constants() -> None:
    table = ProviderTable()
    assert table.anthropic.client_id == "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
    assert table.anthropic.authorize_url == "https://claude.ai/oauth/authorize"
    assert table.anthropic.token_url == "https://platform.claude.com/v1/oauth/token"
    assert table.anthropic.scope == (
        "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
    )
    assert (table.anthropic.callback_port, table.anthropic.callback_path) == (53692, "/callback")
    assert table.openai_codex.client_id == "app_EMoamEEZ73f0CkXaXp7hrann"
    assert table.openai_codex.redirect_uri == "http://localhost:1455/auth/callback"
    assert table.openai_codex.device_token_url == "https://auth.openai.com/api/accounts/deviceauth/token"
    assert table.github_copilot.client_id == "Iv1.b507a08c87ecfe98"
    assert table.github_copilot.user_agent == "GitHubCopilotChat/0.35.0"
    assert table.openrouter.keys_url == "https://openrouter.ai/api/v1/auth/keys"
    assert table.kimi.client_id == "17e5f671-d194-4dfb-9706-5516cb48c098"
    assert table.meta.client_id == "1031625952748946"
    assert table.meta.device_url == "https://auth.meta.com/oidc/device/authorization/"
    assert table.xai.client_id == "b1a00492-073a-47ea-816f-4c329264a828"
    assert table.xai.scope == "openid profile email offline_access grok-cli:access api:access"
    assert table.radius.client_id == "pi-gateway"
    assert MAX_SAFE_INTEGER == 2**53 - 1


def test_with_base_points_endpoints_at_a_loopback_server_and_keeps_paths() -> None:
    table = ProviderTable()
    anthropic = table.anthropic.with_base("http://127.0.0.1:9999")
    assert anthropic.authorize_url == "http://127.0.0.1:9999/oauth/authorize"
    assert anthropic.token_url == "http://127.0.0.1:9999/v1/oauth/token"
    assert anthropic.manual_redirect_uri == table.anthropic.manual_redirect_uri
    assert anthropic.client_id == table.anthropic.client_id
    rebased = msgspec.structs.replace(table, anthropic=anthropic)
    assert rebased.xai == table.xai
