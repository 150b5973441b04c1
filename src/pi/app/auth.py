"""auth.json: stored credentials, plus keys given for this run only.

A key passed with ``--api-key`` is a runtime key: it is used before anything stored and is never
written to disk. Stored keys are written with mode 0600, atomically and under a file lock, so two
pi processes saving at once cannot lose each other's entries.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pi.ai.env_api_keys import get_env_api_key
from pi.app.atomic_file import write_atomic
from pi.app.key_values import resolve_config_value

if TYPE_CHECKING:
    from pi.app.auth_credentials import ApiKeyCredential, OAuthCredential


class AuthStorage:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._runtime: dict[str, str] = {}
        self.errors: list[str] = []
        self._data: dict[str, Any] = self._load()
        self._stamp = self._file_stamp()

    @classmethod
    def in_memory(cls) -> AuthStorage:
        return cls(None)

    def _load(self, strict: bool = False) -> dict[str, Any]:
        """The file's entries; with `strict` (before a write) an unreadable file raises instead of reading as empty."""
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8-sig") or "{}")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            if strict:
                raise OSError(f"auth.json at {self.path} cannot be read ({exc}); fix or remove it first") from exc
            self.errors.append(f"auth.json: cannot read {self.path}: {exc}; stored credentials are not used")
            return {}
        return data if isinstance(data, dict) else {}

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """Use `key` for `provider` in this process only."""
        self._runtime[provider] = key

    def runtime_api_key(self, provider: str) -> str | None:
        """The ``--api-key`` given for `provider` in this process, if any."""
        return self._runtime.get(provider)

    def has_stored(self, provider: str) -> bool:
        return provider in self._data

    def credential(self, provider: str) -> ApiKeyCredential | OAuthCredential | None:
        """The stored entry for `provider`, checked; one of unknown shape is reported and skipped (kept on disk)."""
        raw = self._data.get(provider)
        if raw is None:
            return None
        from pi.app.auth_credentials import credential_adapter  # only a run with stored credentials builds it

        try:
            return credential_adapter().validate_python(raw)
        except ValidationError as exc:
            detail = exc.errors()[0]["msg"]
            message = f'auth.json: the entry for "{provider}" is not a credential pi understands: {detail}'
            if message not in self.errors:
                self.errors.append(message)
            return None

    def stored_api_key(self, provider: str) -> str | None:
        """The stored key, or an OAuth login's access token while it is valid or can be refreshed.

        Requests do not use this token as it is: the session resolves an OAuth login per request
        (`pi.app.oauth.session_auth`), refreshing it first when it is about to expire.
        """
        self.reload_if_changed()  # another pi process may have logged in or out since
        entry = self.credential(provider)
        if entry is not None and entry.type == "api_key":
            return resolve_config_value(entry.key, env=entry.env) if entry.key else None
        if entry is not None and entry.type == "oauth" and (not entry.expired or entry.refresh):
            return entry.access
        return None

    def provider_env(self, provider: str) -> dict[str, str]:
        """Variables a stored API-key entry sets for `provider` only, over the process environment.

        They apply wherever that provider's configuration reads the environment (``$NAME`` and
        ``!command`` values of its key and headers), never to another provider.
        """
        entry = self.credential(provider)
        return dict(entry.env) if entry is not None and entry.type == "api_key" and entry.env else {}

    def has_expired_login(self, provider: str) -> bool:
        """True when auth.json holds an OAuth login for `provider` that has expired and cannot be refreshed."""
        entry = self.credential(provider)
        return entry is not None and entry.type == "oauth" and entry.expired and not entry.refresh

    def stored_type(self, provider: str) -> str | None:
        """``"api_key"``, ``"oauth"`` (or another type string) of the stored entry; None when there is none."""
        raw = self._data.get(provider)
        kind = raw.get("type") if isinstance(raw, dict) else None
        return kind if isinstance(kind, str) else None

    def raw_entry(self, provider: str) -> dict[str, Any] | None:
        """A copy of the stored entry as auth.json has it (all provider extras kept)."""
        raw = self._data.get(provider)
        return dict(raw) if isinstance(raw, dict) else None

    def stored_providers(self) -> list[str]:
        """Every provider auth.json holds an entry for, in file order."""
        return list(self._data)

    def oauth_providers(self) -> list[str]:
        """Providers whose stored entry is an OAuth login."""
        return [name for name in self._data if self.stored_type(name) == "oauth"]

    def reload(self) -> None:
        """Read auth.json again (after a login or logout, here or in another pi process)."""
        self.errors = []
        self._data = self._load()
        self._stamp = self._file_stamp()

    def reload_if_changed(self) -> bool:
        """Re-read auth.json when it changed on disk since it was read (one `stat`); True when it did."""
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return False
        self.reload()
        return True

    def _file_stamp(self) -> tuple[int, int, int] | None:
        if self.path is None:
            return None
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def set_oauth(self, provider: str, entry: dict[str, Any]) -> None:
        """Store an OAuth login's entry (``type: "oauth"`` and the provider's fields) as it is."""
        self._update(provider, {**entry, "type": "oauth"})

    def get_api_key(self, provider: str) -> str | None:
        """Runtime key, then auth.json, then the provider's environment variable."""
        return self._runtime.get(provider) or self.stored_api_key(provider) or get_env_api_key(provider)

    def set_api_key(self, provider: str, key: str | None, env: Mapping[str, str] | None = None) -> None:
        """Store a key (or none) and variables for `provider` only in auth.json (mode 0600), keeping
        every other entry."""
        entry: dict[str, Any] = {"type": "api_key"}
        if key:
            entry["key"] = key
        if env:
            entry["env"] = dict(env)
        self._update(provider, entry)

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
            self._data = self._load(strict=True)
            if entry is None:
                self._data.pop(provider, None)
            else:
                self._data[provider] = entry
            write_atomic(self.path, json.dumps(self._data, indent=2) + "\n", mode=0o600)
            self._stamp = self._file_stamp()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        assert self.path is not None
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, mode=0o700)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


__all__ = ["AuthStorage"]
