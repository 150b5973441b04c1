"""The Radius account's model list: fetched from the gateway, kept in models-store.json.

The organisation behind a Radius account may switch models off, so once the gateway's list is
known it replaces the shipped Radius catalog instead of adding to it. The list is
``GET <gateway>/v1/config`` under the Radius credential: ``{"baseUrl": ..., "models": [...]}``;
entries that lack a field a chat model needs are dropped. It is fetched after a Radius login
(never while pi is offline) and kept in ``<agent dir>/models-store.json`` under ``"radius"`` as
``{"models": [...], "checkedAt": <ms>}``, the file pi 1.6.0 keeps too, so model lists and
requests later read it without touching the network.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

if TYPE_CHECKING:
    from pi.ai.types import Model

log = logging.getLogger(__name__)

PROVIDER = "radius"
STORE_FILE = "models-store.json"
TIMEOUT_S = 15.0
_BODY_CHARS = 512
_LOCK = threading.Lock()


class CatalogError(Exception):
    """The gateway's list could not be fetched or made sense of; the message says which gateway."""


def _is_gateway_model(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    numbers = all(
        isinstance(value.get(key), int | float) and not isinstance(value.get(key), bool)
        for key in ("contextWindow", "maxTokens")
    )
    return (
        numbers
        and isinstance(value.get("id"), str)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("reasoning"), bool)
        and isinstance(value.get("input"), list)
        and isinstance(value.get("cost"), dict)
    )


def parse_gateway_config(body: Any, provider: str = PROVIDER) -> list[dict[str, Any]] | None:
    """The models a `/v1/config` answer lists, as model entries of `provider`; None when it is no config."""
    if (
        not isinstance(body, dict)
        or not isinstance(body.get("baseUrl"), str)
        or not isinstance(body.get("models"), list)
    ):
        return None
    base = body["baseUrl"]
    return [
        {**model, "api": "pi-messages", "provider": provider, "baseUrl": base}
        for model in body["models"]
        if _is_gateway_model(model)
    ]


async def fetch_gateway_models(gateway: str, token: str | None) -> list[dict[str, Any]]:
    """`GET <gateway>/v1/config` (Bearer `token` when there is one); raises CatalogError."""
    import httpx

    headers = {"accept": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    url = urljoin(gateway, "/v1/config")
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
            response = await client.get(url, headers=headers)
    except httpx.TimeoutException:
        raise CatalogError(f"Could not load Radius config from {gateway}: no answer in {TIMEOUT_S:g} s") from None
    except httpx.HTTPError as exc:
        raise CatalogError(f"Could not load Radius config from {gateway}: {type(exc).__name__}") from None
    if not 200 <= response.status_code < 300:
        text = response.text.strip()
        text = text if len(text) <= _BODY_CHARS else text[:_BODY_CHARS] + "…"
        raise CatalogError(f"Could not load Radius config from {gateway}: {response.status_code}: {text}")
    try:
        models = parse_gateway_config(response.json())
    except ValueError:
        models = None
    if models is None:
        raise CatalogError(f"Invalid Radius config from {gateway}")
    return models


def store_path(agent_dir: Path) -> Path:
    return agent_dir / STORE_FILE


def save_models(path: Path, models: list[dict[str, Any]], provider: str = PROVIDER) -> None:
    """Replace `provider`'s entry under the file's lock; other providers' entries are kept.

    An unreadable file is not overwritten (OSError), so nothing another program keeps there is lost.
    """
    from pi.app.atomic_file import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.resolve().with_name(path.name + ".lock")
    with _LOCK, open(lock_path, "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            data = _read(path)
            if data is None:
                raise OSError(f"{path} cannot be read as JSON; fix or remove it first")
            data[provider] = {"models": models, "checkedAt": int(time.time() * 1000)}
            mode = None if path.exists() else 0o600
            write_atomic(path, json.dumps(data, indent=2) + "\n", mode=mode)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _read(path: Path) -> dict[str, Any] | None:
    """The file's object ({} when missing); None when it is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def stored_models(path: Path, provider: str = PROVIDER) -> list[Model] | None:
    """`provider`'s kept list (entries this version cannot read are skipped); None when none is kept."""
    from pydantic import ValidationError

    from pi.ai.types import Model

    try:
        data = _read(path)
    except OSError as exc:
        log.info("cannot read %s: %s", path, exc)
        return None
    entry = data.get(provider) if data is not None else None
    models = entry.get("models") if isinstance(entry, dict) else None
    if not isinstance(models, list):
        return None
    out: list[Model] = []
    for raw in models:
        if not isinstance(raw, dict) or raw.get("provider") != provider:
            continue
        with contextlib.suppress(ValidationError):
            out.append(Model.model_validate(raw))
    return out


def network_allowed() -> bool:
    """False while pi is offline (``--offline`` or ``PI_OFFLINE``)."""
    return not os.environ.get("PI_OFFLINE")


async def refresh_radius_models(agent_dir: Path, gateway: str, token: str | None) -> int:
    """Fetch the account's list and keep it; returns how many models it has. Raises CatalogError/OSError."""
    models = await fetch_gateway_models(gateway, token)
    save_models(store_path(agent_dir), models)
    return len(models)


__all__ = [
    "CatalogError",
    "fetch_gateway_models",
    "network_allowed",
    "parse_gateway_config",
    "refresh_radius_models",
    "save_models",
    "store_path",
    "stored_models",
]
