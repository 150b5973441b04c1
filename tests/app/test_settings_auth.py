"""settings.json merging, auth.json storage and key resolution."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pi.app.auth import AuthStorage
from pi.app.key_values import resolve_config_value
from pi.app.settings import SettingsManager


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_project_overrides_global_key_by_key(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(agent / "settings.json", {"compaction": {"enabled": False, "reserveTokens": 1000}, "theme": "dark"})
    _write(cwd / ".pi" / "settings.json", {"compaction": {"reserveTokens": 5000}, "theme": "light"})
    settings = SettingsManager.create(cwd, agent)
    assert settings.compaction.reserve_tokens == 5000
    assert settings.compaction.enabled is False
    assert settings.compaction.keep_recent_tokens == 20000
    assert settings.get("theme") == "light"
    assert settings.errors == []


def test_malformed_settings_warn_and_do_not_stop(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text("{not json")
    settings = SettingsManager.create(tmp_path, agent)
    assert settings.retry.max_retries == 3
    assert len(settings.errors) == 1
    assert settings.errors[0].startswith(f"Warning: Invalid settings file {agent / 'settings.json'}: ")


def test_merge_is_deep_and_arrays_replace(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(agent / "settings.json", {"terminal": {"images": {"a": 1, "b": 2}}, "skills": ["x", "y"]})
    _write(cwd / ".pi" / "settings.json", {"terminal": {"images": {"b": 3}}, "skills": ["z"]})
    settings = SettingsManager.create(cwd, agent)
    assert settings.get("terminal") == {"images": {"a": 1, "b": 3}}
    assert settings.get("skills") == ["z"]


def test_a_value_of_the_wrong_type_warns_and_keeps_its_default(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    _write(
        agent / "settings.json",
        {"retry": {"maxRetries": "many", "baseDelayMs": 5}, "steeringMode": "sometimes", "myPlugin": {"k": [1]}},
    )
    settings = SettingsManager.create(tmp_path, agent)
    assert settings.retry.max_retries == 3 and settings.retry.base_delay_ms == 5
    assert settings.steering_mode == "one-at-a-time"
    assert any(e.startswith("Warning: Invalid settings: retry.maxRetries:") for e in settings.errors)
    assert any("steeringMode" in e for e in settings.errors)
    settings.set("theme", "dark")  # unknown and invalid keys survive a write-back untouched
    on_disk = json.loads((agent / "settings.json").read_text())
    assert on_disk["myPlugin"] == {"k": [1]} and on_disk["retry"]["maxRetries"] == "many"
    assert on_disk["theme"] == "dark"


def test_set_writes_only_that_key_and_keeps_the_rest(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    _write(agent / "settings.json", {"theme": "dark", "custom": {"x": 1}})
    settings = SettingsManager.create(tmp_path, agent)
    settings.set("defaultModel", "gpt-5")
    on_disk = json.loads((agent / "settings.json").read_text())
    assert on_disk == {"theme": "dark", "custom": {"x": 1}, "defaultModel": "gpt-5"}


def test_legacy_queue_mode_is_migrated(tmp_path: Path) -> None:
    _write(tmp_path / "a" / "settings.json", {"queueMode": "all"})
    assert SettingsManager.create(tmp_path, tmp_path / "a").steering_mode == "all"


def test_auth_json_is_written_0600_and_keeps_other_entries(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    _write(path, {"openai": {"type": "api_key", "key": "sk-openai"}})
    auth = AuthStorage(path)
    auth.set_api_key("anthropic", "sk-ant")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data == {
        "openai": {"type": "api_key", "key": "sk-openai"},
        "anthropic": {"type": "api_key", "key": "sk-ant"},
    }
    assert AuthStorage(path).get_api_key("anthropic") == "sk-ant"


def test_runtime_key_wins_and_is_never_persisted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    path = tmp_path / "auth.json"
    auth = AuthStorage(path)
    assert auth.get_api_key("openai") == "from-env"
    auth.set_runtime_api_key("openai", "runtime-key")
    assert auth.get_api_key("openai") == "runtime-key"
    auth.set_api_key("groq", "g")
    assert "runtime-key" not in path.read_text()


def test_stored_key_beats_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    _write(tmp_path / "auth.json", {"openai": {"type": "api_key", "key": "stored"}})
    assert AuthStorage(tmp_path / "auth.json").get_api_key("openai") == "stored"


def test_key_values_command_env_and_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROXY_KEY", "secret-from-env")
    assert resolve_config_value("!echo sk-from-command") == "sk-from-command"
    assert resolve_config_value("$MY_PROXY_KEY") == "secret-from-env"
    assert resolve_config_value("MY_PROXY_KEY") == "MY_PROXY_KEY"
    assert resolve_config_value("sk-literal") == "sk-literal"


def test_oauth_login_is_used_until_it_expires(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    future = int(time.time() * 1000) + 60_000
    _write(
        tmp_path / "auth.json",
        {"anthropic": {"type": "oauth", "access": "sk-ant-oat-x", "refresh": "r", "expires": future}},
    )
    auth = AuthStorage(tmp_path / "auth.json")
    assert auth.get_api_key("anthropic") == "sk-ant-oat-x"
    assert not auth.has_expired_login("anthropic")
    _write(tmp_path / "auth.json", {"anthropic": {"type": "oauth", "access": "old", "expires": 1}})
    expired = AuthStorage(tmp_path / "auth.json")
    assert expired.get_api_key("anthropic") is None
    assert expired.has_expired_login("anthropic")


def test_auth_entries_are_checked_and_unknown_shapes_kept(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    _write(path, {"a": {"type": "api_key", "key": "sk-a", "note": "kept"}, "b": {"type": "mystery", "x": 1}})
    auth = AuthStorage(path)
    assert auth.stored_api_key("a") == "sk-a"
    assert auth.stored_api_key("b") is None
    assert any('"b"' in e for e in auth.errors)
    auth.set_api_key("c", "sk-c")
    on_disk = json.loads(path.read_text())
    assert on_disk["b"] == {"type": "mystery", "x": 1} and on_disk["a"]["note"] == "kept"


def test_an_unreadable_auth_json_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    path.parent.mkdir(parents=True)
    path.write_text("{half written")
    auth = AuthStorage(path)
    assert auth.errors and auth.get_api_key("zzz-none") is None
    with pytest.raises(OSError, match="fix or remove it first"):
        auth.set_api_key("c", "sk-c")
    assert path.read_text() == "{half written"
