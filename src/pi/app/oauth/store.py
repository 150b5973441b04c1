"""auth.json read-modify-write under the same lock file the rest of pi uses.

Entries this code does not understand are kept byte-for-byte in meaning; the file is created 0600
(existing permissions kept), its directory 0700; every write is an atomic replace.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi.app.atomic_file import write_atomic

_PROCESS_LOCK = threading.Lock()
"""flock is per open file: threads of one process need their own mutual exclusion as well."""


class OAuthStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        """All entries; a missing file is empty, an unreadable one raises (so nothing overwrites it)."""
        try:
            text = self.path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text or "{}")
        except ValueError as exc:
            raise OSError(f"auth.json at {self.path} cannot be read ({exc}); fix or remove it first") from exc
        return data if isinstance(data, dict) else {}

    def get(self, provider: str) -> dict[str, Any] | None:
        entry = self.read().get(provider)
        return entry if isinstance(entry, dict) else None

    @contextlib.contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        """The entries, re-read under the lock; changes to the yielded dict are written on a clean exit."""
        self._ensure_dir()
        lock_path = self.path.resolve().with_name(self.path.name + ".lock")
        with _PROCESS_LOCK, open(lock_path, "a") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                data = self.read()
                before = json.dumps(data, sort_keys=True)
                yield data
                if json.dumps(data, sort_keys=True) != before or not self.path.exists():
                    self._write(data)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def set(self, provider: str, entry: dict[str, Any]) -> None:
        with self.locked() as data:
            data[provider] = entry

    def remove(self, provider: str) -> bool:
        """Drop the entry; True when there was one."""
        with self.locked() as data:
            return data.pop(provider, None) is not None

    def _ensure_dir(self) -> None:
        parent = self.path.parent
        if not parent.exists():
            parent.mkdir(parents=True, mode=0o700)
            os.chmod(parent, 0o700)

    def _write(self, data: dict[str, Any]) -> None:
        mode = None if self.path.exists() else 0o600
        write_atomic(self.path, json.dumps(data, indent=2) + "\n", mode=mode)


__all__ = ["OAuthStore"]
