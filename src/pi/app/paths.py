"""Where pi keeps its files: the same layout as the TypeScript pi, so a user's config works unchanged.

Global: ``~/.pi/agent/`` (``PI_CODING_AGENT_DIR`` overrides). Project: ``<cwd>/.pi/``.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR_NAME = ".pi"
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"


def agent_dir() -> Path:
    """The global config directory, with ``~`` in the override expanded."""
    override = os.environ.get(AGENT_DIR_ENV)
    if override:
        return Path(os.path.expanduser(override))
    return Path.home() / CONFIG_DIR_NAME / "agent"


def project_dir(cwd: str | Path) -> Path:
    return Path(cwd) / CONFIG_DIR_NAME


def settings_path(agent: Path) -> Path:
    return agent / "settings.json"


def auth_path(agent: Path) -> Path:
    return agent / "auth.json"


def models_path(agent: Path) -> Path:
    return agent / "models.json"


def sessions_dir(agent: Path) -> Path:
    return agent / "sessions"


__all__ = [
    "AGENT_DIR_ENV",
    "CONFIG_DIR_NAME",
    "agent_dir",
    "auth_path",
    "models_path",
    "project_dir",
    "sessions_dir",
    "settings_path",
]
