"""auth.json: stored credentials, plus keys given for this run only.

A key passed with ``--api-key`` is a runtime key: it is used before anything stored and is never
written to disk. Stored keys are written with mode 0600, atomically and under a file lock, so two
pi processes saving at once cannot lose each other's entries.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi.ai.env_api_keys import get_env_api_key
from pi.app.atomic_file import write_atomic
from pi.app.key_values import resolve_config_value


class AuthStorage:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._runtime: dict[str, str] = {}
        self._data: dict[str, Any] = self._load()
        self.errors: list[str] = []

    @classmethod
    def in_memory(cls) -> AuthStorage:
        return cls(None)

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """Use `key` for `provider` in this process only."""
        self._runtime[provider] = key

    def has_stored(self, provider: str) -> bool:
        return provider in self._data

    def stored_api_key(self, provider: str) -> str | None:
        entry = self._data.get(provider)
        if not isinstance(entry, dict):
            return None
        if entry.get("type") == "api_key" and isinstance(entry.get("key"), str):
            return resolve_config_value(entry["key"])
        if entry.get("type") == "oauth" and isinstance(entry.get("access"), str):
            expires = entry.get("expires")
            if isinstance(expires, (int, float)) and expires <= time.time() * 1000:
                return None
            return str(entry["access"])
        return None

    def has_expired_login(self, provider: str) -> bool:
        """True when auth.json holds an OAuth login for `provider` whose access token has expired.

        Refreshing needs the provider's login flow, which this version does not have; saying so beats
        a bare "no API key".
        """
        entry = self._data.get(provider)
        return (
            isinstance(entry, dict)
            and entry.get("type") == "oauth"
            and isinstance(entry.get("expires"), (int, float))
            and entry["expires"] <= time.time() * 1000
        )

    def get_api_key(self, provider: str) -> str | None:
        """Runtime key, then auth.json, then the provider's environment variable."""
        return self._runtime.get(provider) or self.stored_api_key(provider) or get_env_api_key(provider)

    def set_api_key(self, provider: str, key: str) -> None:
        """Store a key in auth.json (mode 0600), keeping every other entry."""
        self._update(provider, {"type": "api_key", "key": key})

    def remove(self, provider: str) -> None:
        self._update(provider, None)

    def _update(self, provider: str, entry: dict[str, Any] | None) -> None:
        if self.path is None:
            if entry is None:
                self._data.pop(provider, None)
            else:
                self._data[provider] = entry
            return
        with self._locked():
            self._data = self._load()
            if entry is None:
                self._data.pop(provider, None)
            else:
                self._data[provider] = entry
            write_atomic(self.path, json.dumps(self._data, indent=2) + "\n", mode=0o600)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


__all__ = ["AuthStorage"]
