"""Keep the model's hands off files that should never be edited by a tool.

`write` and `edit` calls whose path falls under a protected name (`.env` files, `.git/`,
`node_modules/`, and whatever `PI_PROTECTED_PATHS` adds, comma-separated) are blocked before they
run, with a reason the model can act on.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any

from pi.app.extensions import ExtensionAPI

DEFAULT_PROTECTED = (".env", ".git", "node_modules")


def protected_names() -> list[str]:
    extra = [p.strip() for p in os.environ.get("PI_PROTECTED_PATHS", "").split(",") if p.strip()]
    return [*DEFAULT_PROTECTED, *extra]


def is_protected(path: str) -> bool:
    parts = PurePath(path).parts
    for name in protected_names():
        if name in parts or any(part.startswith(name + ".") and name == ".env" for part in parts):
            return True
    return False


def setup(pi: ExtensionAPI) -> None:
    @pi.on("tool_call")
    def guard(event: Any, ctx: Any) -> dict[str, Any] | None:
        if event.tool_name not in ("write", "edit"):
            return None
        path = str(event.input.get("path", ""))
        if is_protected(path):
            return {"block": True, "reason": f"{path} is protected; leave it unchanged and tell the user instead"}
        return None
