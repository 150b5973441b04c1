"""Opening the model selector refreshes the Radius account's model list in the background, against a
loopback gateway; offline, or when the gateway refuses, nothing changes and nothing is shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.model_selector import ModelSelector
from tests.app.interactive.test_commands_fakes import FakeApi, make_env
from tests.app.oauth.radius_gateway import GATEWAY_MODEL, RadiusGateway


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[RadiusGateway]:
    gw = RadiusGateway().start()
    monkeypatch.setenv("PI_RADIUS_GATEWAY", gw.url)
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    monkeypatch.delenv("RADIUS_API_KEY", raising=False)
    try:
        yield gw
    finally:
        gw.stop()


def _signed_in(tmp_path: Path, gateway: RadiusGateway, token: str | None = None) -> FakeApi:
    env = make_env(tmp_path)
    access = token or gateway.issue()["access_token"]
    env.session.model_registry.auth.set_oauth("radius", {"access": access, "refresh": "r", "expires": 4102444800000})
    env.session.model_registry.reload()
    return FakeApi(env)


def _shows(api: FakeApi, text: str) -> bool:
    return any(text in line for line in api.screen(160))


async def test_the_account_list_arrives_while_the_selector_is_open(tmp_path: Path, gateway: RadiusGateway) -> None:
    gateway.config_models = [GATEWAY_MODEL]
    api = _signed_in(tmp_path, gateway)
    assert await CommandRegistry(api.session).execute(api, "/model gw-fast")
    assert isinstance(api.selector, ModelSelector)
    assert not _shows(api, "gw-fast [radius]")  # the shipped Radius catalog until the gateway answers
    await api.run_spawned()
    assert _shows(api, "gw-fast [radius]")
    (config,) = [r for r in gateway.requests if r.path == "/v1/config"]
    assert config.authorization is not None and config.authorization.startswith("Bearer radius-access-")
    stored = json.loads((api.agent_dir / "models-store.json").read_text())["radius"]
    assert [m["id"] for m in stored["models"]] == ["gw-fast"]
    registry = api.session.model_registry
    assert [m.id for m in registry.all_models() if m.provider == "radius"] == ["gw-fast"]
    assert api.texts("warning") == [] and api.texts("error") == []


async def test_offline_the_selector_asks_the_gateway_nothing(
    tmp_path: Path, gateway: RadiusGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OFFLINE", "1")
    api = _signed_in(tmp_path, gateway)
    assert await CommandRegistry(api.session).execute(api, "/model")
    assert isinstance(api.selector, ModelSelector) and api.spawned == []
    assert [r for r in gateway.requests if r.path == "/v1/config"] == []


async def test_a_refused_refresh_changes_nothing_and_shows_nothing(tmp_path: Path, gateway: RadiusGateway) -> None:
    gateway.config_models = [GATEWAY_MODEL]
    api = _signed_in(tmp_path, gateway, token="not-a-token-the-gateway-issued")
    before = [m.id for m in api.session.model_registry.all_models() if m.provider == "radius"]
    assert await CommandRegistry(api.session).execute(api, "/model")
    await api.run_spawned()
    assert [r.path for r in gateway.requests] == ["/v1/config"]
    assert [m.id for m in api.session.model_registry.all_models() if m.provider == "radius"] == before
    assert "gw-fast" not in before and not (api.agent_dir / "models-store.json").exists()
    assert api.texts("warning") == [] and api.texts("error") == []
    assert isinstance(api.selector, ModelSelector)
