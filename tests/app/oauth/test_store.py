from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pi.app.oauth.store import OAuthStore


def test_creates_the_file_0600_and_its_directory_0700_keeping_other_entries(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "auth.json"
    store = OAuthStore(path)
    store.set("anthropic", {"type": "oauth", "access": "a", "refresh": "r", "expires": 1})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    raw = json.loads(path.read_text())
    raw["custom"] = {"type": "something-else", "x": [1]}
    path.write_text(json.dumps(raw))
    store.set("openrouter", {"type": "api_key", "key": "k"})
    data = json.loads(path.read_text())
    assert data["custom"] == {"type": "something-else", "x": [1]}
    assert set(data) == {"anthropic", "custom", "openrouter"}
    assert store.remove("openrouter") is True
    assert store.remove("openrouter") is False
    assert (path.parent / "auth.json.lock").exists()


def test_existing_permissions_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{}")
    os.chmod(path, 0o640)
    OAuthStore(path).set("x", {"type": "api_key", "key": "k"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_an_unreadable_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text("{not json")
    with pytest.raises(OSError, match="fix or remove it first"):
        OAuthStore(path).set("x", {"type": "api_key", "key": "k"})
    assert path.read_text() == "{not json"
