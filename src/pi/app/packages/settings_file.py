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


def write_packages(path: Path, packages: list[object]) -> None:
    """Replace the `packages` key atomically (2-space JSON and a final newline)."""
    from pi.atomic_file import write_file_atomically

    data = read_settings(path)
    data["packages"] = packages
    write_file_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


__all__ = ["SettingsFileError", "read_packages", "read_settings", "write_packages"]
