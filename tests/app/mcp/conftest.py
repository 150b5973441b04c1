from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pi.app.mcp.config import ServerConfig, validate_server

FIXTURE = str(Path(__file__).with_name("fixture_server.py"))


def fixture_config(name: str = "srv", **extra: Any) -> ServerConfig:
    """The fixture server as a validated stdio entry."""
    entry: dict[str, Any] = {"command": sys.executable, "args": [FIXTURE], **extra}
    return validate_server(name, entry, scope="global", source="test")
