"""Check 52: a Copilot login decides where Copilot's models are served and which of them are offered."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry


def _registry(tmp_path: Path, entry: dict[str, object], models_json: dict[str, object] | None = None) -> ModelRegistry:
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"github-copilot": entry}))
    os.chmod(auth, 0o600)
    models = tmp_path / "models.json"
    models.write_text(json.dumps(models_json or {"providers": {}}))
    return ModelRegistry(AuthStorage(auth), models)


def _copilot(registry: ModelRegistry) -> dict[str, str]:
    return {m.id: m.base_url for m in registry.all_models() if m.provider == "github-copilot"}


def test_enterprise_proxy_endpoint_and_available_model_filter(tmp_path: Path) -> None:
    entry = {
        "type": "oauth",
        "refresh": "ghu_x",
        "access": "tid=1;exp=9;proxy-ep=proxy.enterprise.test",
        "expires": 9_999_999_999_999,
        "enterpriseUrl": "enterprise.test",
        "availableModelIds": ["gpt-6.1-sol", "claude-fable-5"],
    }
    copilot = _copilot(_registry(tmp_path, entry))
    assert copilot == {"gpt-6.1-sol": "https://api.enterprise.test", "claude-fable-5": "https://api.enterprise.test"}


def test_without_a_proxy_endpoint_the_enterprise_host_serves(tmp_path: Path) -> None:
    entry = {"type": "oauth", "refresh": "g", "access": "tid=1", "expires": 1, "enterpriseUrl": "ghe.example.com"}
    copilot = _copilot(_registry(tmp_path, entry))
    assert len(copilot) > 2  # no availableModelIds stored: every catalog model stays
    assert set(copilot.values()) == {"https://copilot-api.ghe.example.com"}


def test_a_base_url_from_models_json_is_kept_and_other_providers_are_untouched(tmp_path: Path) -> None:
    entry = {"type": "oauth", "refresh": "g", "access": "proxy-ep=proxy.business.githubcopilot.com", "expires": 1}
    moved: dict[str, object] = {"providers": {"github-copilot": {"baseUrl": "http://127.0.0.1:9"}}}
    registry = _registry(tmp_path, entry, moved)
    assert set(_copilot(registry).values()) == {"http://127.0.0.1:9"}
    plain = ModelRegistry(AuthStorage.in_memory(), None)
    others = [(m.provider, m.id, m.base_url) for m in plain.all_models() if m.provider != "github-copilot"]
    assert [(m.provider, m.id, m.base_url) for m in registry.all_models() if m.provider != "github-copilot"] == others
