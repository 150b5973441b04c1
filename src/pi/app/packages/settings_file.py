"""Reading and rewriting the `packages` list of a settings.json, keeping every other key as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class SettingsFileError(Exception):
    """A settings file that cannot be read as a JSON object; it is left untouched."""


def read_settings(path: Path) -> dict[str, Any]:
    """The settings object; `{}` when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise SettingsFileError(f"Cannot read {path}: {error.strerror}") from error
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SettingsFileError(
            f"Invalid JSON in {path}: {error.msg} (line {error.lineno}); fix or delete it"
        ) from error
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} must hold a JSON object")
    return data


def read_packages(path: Path) -> list[object]:
    packages = read_settings(path).get("packages")
    return list(packages) if isinstance(packages, list) else []


class PackageLists:
    """The `packages` list of each settings file, each file read at most once.

    A start-up installs missing packages before anything is drawn and collects their resources later;
    both go through one instance, so the settings files are read once. A `/reload` starts a new one
    (the files may have changed since).
    """

    def __init__(self) -> None:
        self._found: dict[Path, list[object] | SettingsFileError] = {}

    def read(self, path: Path) -> list[object]:
        """`read_packages(path)`, from the first read; raises the same SettingsFileError every time."""
        found = self._found.get(path)
        if found is None:
            try:
                found = read_packages(path)
            except SettingsFileError as error:
                found = error
            self._found[path] = found
        if isinstance(found, SettingsFileError):
            raise found
        return list(found)


def write_packages(path: Path, packages: list[object]) -> None:
    """Replace the `packages` key atomically (2-space JSON and a final newline)."""
    from pi.atomic_file import write_file_atomically

    data = read_settings(path)
    data["packages"] = packages
    write_file_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


__all__ = ["PackageLists", "SettingsFileError", "read_packages", "read_settings", "write_packages"]
