"""settings.json: global (``~/.pi/agent``) merged with project (``.pi``), as pi merges them.

The project file deep-merges into the global one at every object depth (so a project can change
``compaction.reserveTokens`` and still inherit ``compaction.enabled``); arrays and plain values
replace. The keys the core reads are checked against a typed model (`SettingsFile`); every other key
is kept as it is, and written back untouched. A broken file, or a key with a value of the wrong
type, is reported as a warning and ignored: pi must still start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from pi.app.atomic_file import write_atomic
from pi.app.paths import project_dir, settings_path
from pi.session.tokens import CompactionSettings


class _Section(BaseModel):
    # Validators are built when a settings file is first read, not at import.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True)


class CompactionSection(_Section):
    enabled: bool = True
    reserve_tokens: int = Field(default=16384, ge=0)
    keep_recent_tokens: int = Field(default=20000, ge=0)


class RetryProviderSection(_Section):
    """``retry.provider``: what the HTTP layer itself may do before pi's own retry sees a failure."""

    max_retry_delay_ms: int = Field(default=60000, ge=0)
    """A server asking to wait longer than this fails the request (0: no cap)."""
    max_retries: int = Field(default=0, ge=0)
    """Retries the HTTP layer makes on its own (429, 5xx, dropped connections); 0 leaves every retry to
    pi's, which records each failed attempt."""
    timeout_ms: int | None = Field(default=None, ge=0)
    """How long a response may send nothing; unset: ``httpIdleTimeoutMs``."""


class RetrySection(_Section):
    enabled: bool = True
    max_retries: int = Field(default=3, ge=0)
    base_delay_ms: int = Field(default=2000, ge=0)
    max_agent_delay_ms: int = Field(default=60000, ge=0)
    """The cap on each of pi's own backoffs (``baseDelayMs · 2^(attempt−1)``)."""
    provider: RetryProviderSection = Field(default_factory=RetryProviderSection)

    @property
    def max_delay_ms(self) -> int:
        """The longest server-requested delay honoured (``retry.provider.maxRetryDelayMs``)."""
        return self.provider.max_retry_delay_ms


class ImagesSection(_Section):
    auto_resize: bool = True
    block_images: bool = False


class SettingsFile(_Section):
    """The keys of settings.json the core acts on; unknown keys are allowed and kept."""

    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: str | None = None
    steering_mode: Literal["all", "one-at-a-time"] = "one-at-a-time"
    follow_up_mode: Literal["all", "one-at-a-time"] = "one-at-a-time"
    compaction: CompactionSection = Field(default_factory=CompactionSection)
    retry: RetrySection = Field(default_factory=RetrySection)
    images: ImagesSection = Field(default_factory=ImagesSection)
    thinking_budgets: dict[str, int] | None = None
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    enable_skill_commands: bool = True
    enabled_models: list[str] | None = None
    skills: list[str] | None = None
    prompts: list[str] | None = None
    http_idle_timeout_ms: int | Literal["disabled"] = 300000
    """How long a model's response may send nothing before it fails (0 or ``"disabled"``: no limit)."""

    @field_validator("http_idle_timeout_ms", mode="before")
    @classmethod
    def _idle_timeout(cls, value: Any) -> Any:
        if value == "disabled" or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            return value
        raise ValueError(f"Invalid httpIdleTimeoutMs setting: {value}")


RetrySettings = RetrySection


def _read_json_object(path: Path, scope: str, errors: list[str]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        errors.append(f"Warning: Invalid settings file {path}: {exc.strerror or exc}")
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        errors.append(f"Warning: Invalid settings file {path}: {exc}")
        return {}
    if not isinstance(data, dict):
        errors.append(f"Warning: Invalid settings file {path}: expected a JSON object")
        return {}
    return _migrate(data)


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Old key names pi has used, mapped to the current ones."""
    if "queueMode" in data and "steeringMode" not in data:
        data["steeringMode"] = data.pop("queueMode")
    if isinstance(data.get("websockets"), bool) and "transport" not in data:
        data["transport"] = "websocket" if data.pop("websockets") else "sse"
    retry = data.get("retry")
    if isinstance(retry, dict) and "maxDelayMs" in retry:  # its meaning moved to retry.provider
        old = retry.pop("maxDelayMs")
        provider = retry.get("provider")
        if provider is None:
            provider = retry["provider"] = {}
        if isinstance(provider, dict) and "maxRetryDelayMs" not in provider:
            provider["maxRetryDelayMs"] = old
    return data


def merge_settings(global_: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """`project` over `global_`, objects merged at every depth; arrays and plain values replace."""
    merged = dict(global_)
    for key, value in project.items():
        base = merged.get(key)
        merged[key] = merge_settings(base, value) if isinstance(base, dict) and isinstance(value, dict) else value
    return merged


def _without(data: dict[str, Any], path: tuple[Any, ...]) -> None:
    node: Any = data
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict) and path:
        node.pop(path[-1], None)


def validate_settings(data: dict[str, Any], label: str, errors: list[str]) -> SettingsFile:
    """The typed view of `data`: each invalid value is reported (pi's wording) and left at its default."""
    candidate = json.loads(json.dumps(data))
    for _ in range(50):
        try:
            return SettingsFile.model_validate(candidate)
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"])
                errors.append(f"Warning: Invalid {label}: {where}: {error['msg']}")
                _without(candidate, tuple(error["loc"]))
    return SettingsFile()


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
        self._refresh()

    def _refresh(self) -> None:
        self._merged = merge_settings(self._global, self._project)
        self._typed = validate_settings(self._merged, "settings", self.errors)

    @classmethod
    def create(cls, cwd: str | Path, agent_dir: Path, *, project_trusted: bool = True) -> SettingsManager:
        """Both files; the project's only when `project_trusted` (an untrusted checkout must not steer pi)."""
        errors: list[str] = []
        global_file = settings_path(agent_dir)
        global_settings = _read_json_object(global_file, "global", errors)
        project_settings = (
            _read_json_object(project_dir(cwd) / "settings.json", "project", errors) if project_trusted else {}
        )
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

    @property
    def global_data(self) -> dict[str, Any]:
        """The global file alone (for keys only the user may set, and lists each scope adds to)."""
        return self._global

    @property
    def project_data(self) -> dict[str, Any]:
        """The project file alone (empty when the project is not trusted)."""
        return self._project

    @property
    def typed(self) -> SettingsFile:
        """The checked view of the keys the core reads."""
        return self._typed

    def get(self, key: str, default: Any = None) -> Any:
        return self._merged.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Set a global key and persist it; other keys in the file are re-read and kept as they are."""
        self._global[key] = value
        self._refresh()
        if self._global_path is None:
            return
        on_disk = _read_json_object(self._global_path, "global", self.errors)
        on_disk[key] = value
        write_atomic(self._global_path, json.dumps(on_disk, indent=2, ensure_ascii=False) + "\n")

    # -- typed views of the keys the core reads ----------------------------------------------------

    @property
    def compaction(self) -> CompactionSettings:
        section = self._typed.compaction
        return CompactionSettings(section.enabled, section.reserve_tokens, section.keep_recent_tokens)

    @property
    def retry(self) -> RetrySection:
        return self._typed.retry

    @property
    def response_timeout_s(self) -> float:
        """Seconds a model's response may send nothing (``retry.provider.timeoutMs``, else
        ``httpIdleTimeoutMs``); 0 means no limit."""
        ms = self._typed.retry.provider.timeout_ms
        if ms is None:
            idle = self._typed.http_idle_timeout_ms
            ms = 0 if idle == "disabled" else idle
        return ms / 1000

    @property
    def steering_mode(self) -> Literal["all", "one-at-a-time"]:
        return self._typed.steering_mode

    @property
    def follow_up_mode(self) -> Literal["all", "one-at-a-time"]:
        return self._typed.follow_up_mode

    @property
    def thinking_budgets(self) -> dict[str, int] | None:
        return self._typed.thinking_budgets


__all__ = [
    "CompactionSettings",
    "RetrySettings",
    "SettingsFile",
    "SettingsManager",
    "merge_settings",
    "validate_settings",
]
