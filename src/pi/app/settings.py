"""settings.json: global (``~/.pi/agent``) merged with project (``.pi``), as pi merges them.

The project file overrides the global one key by key; nested objects are merged one level deep (so a
project can change ``compaction.reserveTokens`` and still inherit ``compaction.enabled``). A broken
file is reported as a warning and treated as empty: pi must still start.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi.app.atomic_file import write_atomic
from pi.app.paths import project_dir, settings_path


@dataclass(slots=True, frozen=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


@dataclass(slots=True, frozen=True)
class RetrySettings:
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60000


def _read_json_object(path: Path, scope: str, errors: list[str]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        errors.append(f"Warning ({scope} settings): cannot read {path}: {exc.strerror or exc}")
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        errors.append(f"Warning ({scope} settings): {path} is not valid JSON ({exc}); ignoring it")
        return {}
    if not isinstance(data, dict):
        errors.append(f"Warning ({scope} settings): {path} must hold a JSON object; ignoring it")
        return {}
    return _migrate(data)


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Old key names pi has used, mapped to the current ones."""
    if "queueMode" in data and "steeringMode" not in data:
        data["steeringMode"] = data.pop("queueMode")
    if isinstance(data.get("websockets"), bool) and "transport" not in data:
        data["transport"] = "websocket" if data.pop("websockets") else "sse"
    return data


def merge_settings(global_: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    merged = dict(global_)
    for key, value in project.items():
        base = merged.get(key)
        if isinstance(base, dict) and isinstance(value, dict):
            merged[key] = {**base, **value}
        else:
            merged[key] = value
    return merged


class SettingsManager:
    """Merged view of both files; setters write the global file, changing only the keys set."""

    def __init__(
        self,
        global_settings: dict[str, Any],
        project_settings: dict[str, Any],
        global_path: Path | None,
        errors: list[str] | None = None,
    ) -> None:
        self._global = global_settings
        self._project = project_settings
        self._global_path = global_path
        self.errors: list[str] = errors or []
        self._merged = merge_settings(global_settings, project_settings)

    @classmethod
    def create(cls, cwd: str | Path, agent_dir: Path) -> SettingsManager:
        errors: list[str] = []
        global_file = settings_path(agent_dir)
        global_settings = _read_json_object(global_file, "global", errors)
        project_settings = _read_json_object(project_dir(cwd) / "settings.json", "project", errors)
        return cls(global_settings, project_settings, global_file, errors)

    @classmethod
    def in_memory(cls, settings: dict[str, Any] | None = None) -> SettingsManager:
        return cls(dict(settings or {}), {}, None)

    def drain_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors

    @property
    def data(self) -> dict[str, Any]:
        return self._merged

    def get(self, key: str, default: Any = None) -> Any:
        return self._merged.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Set a global key and persist it; other keys in the file are re-read and kept as they are."""
        self._global[key] = value
        self._merged = merge_settings(self._global, self._project)
        if self._global_path is None:
            return
        on_disk = _read_json_object(self._global_path, "global", self.errors)
        on_disk[key] = value
        write_atomic(self._global_path, json.dumps(on_disk, indent=2, ensure_ascii=False) + "\n")

    # -- typed views of the keys the core reads ----------------------------------------------------

    def _section(self, name: str) -> dict[str, Any]:
        value = self._merged.get(name)
        return value if isinstance(value, dict) else {}

    @property
    def compaction(self) -> CompactionSettings:
        s = self._section("compaction")
        d = CompactionSettings()
        return CompactionSettings(
            enabled=bool(s.get("enabled", d.enabled)),
            reserve_tokens=int(s.get("reserveTokens", d.reserve_tokens)),
            keep_recent_tokens=int(s.get("keepRecentTokens", d.keep_recent_tokens)),
        )

    @property
    def retry(self) -> RetrySettings:
        s = self._section("retry")
        d = RetrySettings()
        return RetrySettings(
            enabled=bool(s.get("enabled", d.enabled)),
            max_retries=int(s.get("maxRetries", d.max_retries)),
            base_delay_ms=int(s.get("baseDelayMs", d.base_delay_ms)),
            max_delay_ms=int(s.get("maxDelayMs", d.max_delay_ms)),
        )

    @property
    def steering_mode(self) -> Literal["all", "one-at-a-time"]:
        return "all" if self._merged.get("steeringMode") == "all" else "one-at-a-time"

    @property
    def follow_up_mode(self) -> Literal["all", "one-at-a-time"]:
        return "all" if self._merged.get("followUpMode") == "all" else "one-at-a-time"

    @property
    def thinking_budgets(self) -> dict[str, int] | None:
        value = self._merged.get("thinkingBudgets")
        return {k: int(v) for k, v in value.items()} if isinstance(value, dict) else None


__all__ = ["CompactionSettings", "RetrySettings", "SettingsManager", "merge_settings"]
