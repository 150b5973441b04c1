"""The router's last model list, kept in the agent directory's ``models-store.json``.

pi 1.6.0 keeps refreshed provider catalogs there, one entry per provider:
``{"llama.cpp": {"models": [<model JSON>...], "checkedAt": <ms>}}``. Keeping the same entry lets
both read what the other wrote, and lets the ``llama.cpp`` models be listed before (or without:
``--offline``) reading the router at start-up. Other entries of the file are left as they are; a
file that cannot be read counts as empty, and it is replaced atomically.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from pi.app.llama.config import PROVIDER

FILE_NAME = "models-store.json"
CLASSIFIER_APIS = ("llama-cpp-classify", "typesafe-system-one")

logger = logging.getLogger(__name__)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def stored_models(agent_dir: Path) -> list[dict[str, Any]]:
    """The kept models of the ``llama.cpp`` entry that this extension can use (chat and classifier)."""
    entry = _read(agent_dir / FILE_NAME).get(PROVIDER)
    models = entry.get("models") if isinstance(entry, dict) else None
    out: list[dict[str, Any]] = []
    for model in models if isinstance(models, list) else []:
        if not isinstance(model, dict) or not isinstance(model.get("id"), str):
            continue
        classifier = model.get("type") == "classifier"
        if (classifier and model.get("api") in CLASSIFIER_APIS) or (
            not classifier and model.get("type", "chat") == "chat" and model.get("api") == "openai-completions"
        ):
            out.append(model)
    return out


def keep_models(agent_dir: Path, models: list[dict[str, Any]]) -> None:
    """Replace the ``llama.cpp`` entry with `models` (pi's model JSON); a failure is only logged."""
    from pi.app.atomic_file import write_atomic

    path = agent_dir / FILE_NAME
    data = _read(path)
    data[PROVIDER] = {"models": models, "checkedAt": int(time.time() * 1000)}
    try:
        write_atomic(path, json.dumps(data, indent=2), 0o600, fsync=False)
    except OSError as exc:
        logger.warning("could not keep the llama.cpp model list in %s: %s", path, exc)


__all__ = ["FILE_NAME", "keep_models", "stored_models"]
