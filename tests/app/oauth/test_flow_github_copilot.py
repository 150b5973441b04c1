from __future__ import annotations

from urllib.parse import parse_qs

import msgspec.structs
import pytest

from pi.app.oauth.credentials import oauth_request_auth
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.flows.github_copilot import GitHubCopilotFlow, copilot_base_url, enterprise_domain
from pi.app.oauth.providers import ProviderTable
from tests.app.oauth.conftest import FakeClock, ScriptedInteraction
from tests.support.http_server import ScriptedServer, json_response

TOKEN = "tid=1;exp=9;proxy-ep=proxy.enterprise.test"


def _ctx(stub: ScriptedServer, clock: FakeClock) -> OAuthContext:
    table = ProviderTable()
    copilot = msgspec.structs.replace(
        table.github_copilot, github_base_override=stub.url, api_base_override=stub.url, models_base_override=stub.url
    )
    return OAuthContext(msgspec.structs.replace(table, github_copilot=copilot), clock)


def test_base_url_from_the_token_or_the_account_kind() -> None:
    assert copilot_base_url(TOKEN, None) == "https://api.enterprise.test"
    assert copilot_base_url("tid=1", "ghe.example.com") == "https://copilot-api.ghe.example.com"
    assert copilot_base_url("tid=1", None) == "https://api.individual.githubcopilot.com"
    assert enterprise_domain("") is None
    assert enterprise_domain("https://GHE.example.com/some/path") == "ghe.example.com"
    with pytest.raises(OAuthError, match=r"^Invalid GitHub Enterprise URL/domain$"):
        enterprise_domain("not a domain")


async def test_enterprise_login_exchanges_the_token_and_filters_models(stub: ScriptedServer, clock: FakeClock) -> None:
    models = {
        "data": [
            {"id": "gpt-4.1", "model_picker_enabled": True, "policy": {"state": "enabled"}},
            {"id": "claude-x", "model_picker_enabled": True, "policy": {"state": "unconfigured"}},
            {"id": "blocked", "model_picker_enabled": True, "policy": {"state": "disabled"}},
            {"id": "hidden", "model_picker_enabled": False},
        ]
    }
    stub.queue(
        json_response(200, {"device_code": "dc", "user_code": "UC", "verification_uri": "https://ghe.test/device"}),
        json_response(200, {"error": "authorization_pending"}),
        json_response(200, {"access_token": "gho_github"}),
        json_response(200, {"token": TOKEN, "expires_at": 2_000_000_000}),
        json_response(200, models),
        json_response(200, {}),
    )
    ui = ScriptedInteraction(texts=["ghe.test"])
    entry = await GitHubCopilotFlow().login(ui, _ctx(stub, clock), None)
    assert entry == {
        "type": "oauth",
        "refresh": "gho_github",
        "access": TOKEN,
        "expires": 2_000_000_000 * 1000 - 300000,
        "enterpriseUrl": "ghe.test",
        "availableModelIds": ["gpt-4.1", "claude-x"],
    }
    device, poll, _, exchange, listing, policy = stub.requests
    assert device.path == "/login/device/code"
    assert parse_qs(device.body.decode()) == {"client_id": ["Iv1.b507a08c87ecfe98"], "scope": ["read:user"]}
    assert poll.path == "/login/oauth/access_token"
    assert parse_qs(poll.body.decode())["grant_type"] == ["urn:ietf:params:oauth:grant-type:device_code"]
    assert device.headers["user-agent"] == poll.headers["user-agent"] == "GitHubCopilotChat/0.35.0"
    assert (exchange.method, exchange.path) == ("GET", "/copilot_internal/v2/token")
    assert exchange.headers["authorization"] == "Bearer gho_github"
    assert exchange.headers["editor-version"] == "vscode/1.107.0"
    assert exchange.headers["copilot-integration-id"] == "vscode-chat"
    assert listing.headers["x-github-api-version"] == "2026-06-01"
    assert (policy.path, policy.json()) == ("/models/claude-x/policy", {"state": "enabled"})
    assert policy.headers["openai-intent"] == "chat-policy"
    assert clock.sleeps[0] == 5  # one interval before the first poll
    assert oauth_request_auth("github-copilot", entry).base_url == "https://api.enterprise.test"
