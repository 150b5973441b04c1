"""The Radius account's model list: what `/v1/config` answers mean, how they are kept and read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.oauth.radius_catalog import (
    CatalogError,
    fetch_gateway_models,
    parse_gateway_config,
    save_models,
    stored_models,
)
from tests.app.oauth.radius_gateway import GATEWAY_MODEL
from tests.support.http_server import ScriptedServer, json_response

MODEL = GATEWAY_MODEL
ENTRY = {**MODEL, "api": "pi-messages", "provider": "radius", "baseUrl": "https://gw.example.com/v1"}


def test_entries_missing_a_field_are_dropped_and_each_model_gets_the_gateways_base_url() -> None:
    body = {
        "baseUrl": "https://gw.example.com/v1",
        "models": [MODEL, {**MODEL, "id": 7}, {**MODEL, "reasoning": "yes"}, {**MODEL, "maxTokens": True}, "x"],
    }
    assert parse_gateway_config(body) == [ENTRY]
    assert parse_gateway_config({"models": []}) is None
    assert parse_gateway_config({"baseUrl": "https://gw.example.com/v1", "models": {}}) is None
    assert parse_gateway_config([]) is None


async def test_the_request_and_its_failures(server: ScriptedServer) -> None:
    server.queue(json_response(200, {"baseUrl": "https://gw.example.com/v1", "models": [MODEL]}))
    assert await fetch_gateway_models(server.url, "tok") == [ENTRY]
    (request,) = server.requests
    assert (request.method, request.path) == ("GET", "/v1/config")
    assert request.headers["authorization"] == "Bearer tok" and request.headers["accept"] == "application/json"

    server.queue(json_response(403, "x" * 600))
    with pytest.raises(CatalogError) as refused:
        await fetch_gateway_models(server.url + "/", None)
    assert str(refused.value) == f"Could not load Radius config from {server.url}/: 403: {'x' * 512}…"
    assert "authorization" not in server.requests[-1].headers

    server.queue(json_response(200, {"models": []}))
    with pytest.raises(CatalogError, match=f"^Invalid Radius config from {server.url}$"):
        await fetch_gateway_models(server.url, "tok")


def test_saving_keeps_other_providers_and_never_overwrites_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "models-store.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"openrouter": {"models": [], "checkedAt": 5}}))
    save_models(path, [ENTRY])
    data = json.loads(path.read_text())
    assert data["openrouter"] == {"models": [], "checkedAt": 5}
    assert data["radius"]["models"] == [ENTRY]
    path.write_text("{broken")
    with pytest.raises(OSError, match="cannot be read as JSON"):
        save_models(path, [ENTRY])
    assert path.read_text() == "{broken"


def test_a_new_store_is_private(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    save_models(path, [ENTRY])
    assert path.stat().st_mode & 0o777 == 0o600


def test_reading_skips_what_this_version_cannot_use(tmp_path: Path) -> None:
    path = tmp_path / "models-store.json"
    assert stored_models(path) is None
    other = {**ENTRY, "id": "elsewhere", "provider": "openrouter"}
    bad = {**ENTRY, "id": "bad", "contextWindow": "huge"}
    path.write_text(json.dumps({"radius": {"models": [ENTRY, other, bad, 3], "checkedAt": 1}}))
    models = stored_models(path)
    assert models is not None and [m.id for m in models] == ["gw-fast"]
    assert models[0].base_url == "https://gw.example.com/v1" and models[0].api == "pi-messages"
    path.write_text("{broken")
    assert stored_models(path) is None


def _registry(agent: Path) -> ModelRegistry:
    return ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")


def test_the_registry_offers_the_kept_list_instead_of_the_shipped_one(tmp_path: Path) -> None:
    assert _registry(tmp_path).find("radius", "balanced") is not None
    save_models(tmp_path / "models-store.json", [ENTRY])
    registry = _registry(tmp_path)
    assert [m.id for m in registry.all_models() if m.provider == "radius"] == ["gw-fast"]
    assert registry.find("radius", "balanced") is None
    save_models(tmp_path / "models-store.json", [])  # an organisation that switched every model off
    registry.reload()
    assert [m for m in registry.all_models() if m.provider == "radius"] == []
