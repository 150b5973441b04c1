"""Radius, Earendil's model gateway: where it is, and which base URL its models are served from.

The gateway is ``https://radius.pi.dev`` unless ``PI_RADIUS_GATEWAY`` names another one (a
staging gateway, or a loopback server in tests). The shipped catalog lists the models at the
default gateway's ``/v1``; a model still at that base URL follows the override, read each time it
is asked for so that a changed environment applies to the next request. A base URL the user set
in models.json is left alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from pi.ai.types import Model

PROVIDER_ID = "radius"
DEFAULT_GATEWAY = "https://radius.pi.dev"
GATEWAY_ENV = "PI_RADIUS_GATEWAY"
API_KEY_ENV = "RADIUS_API_KEY"
_SCHEME = re.compile(r"^https?://", re.IGNORECASE)


def normalize_gateway_url(value: str) -> str:
    """`value` with ``https://`` added when it names no scheme, and without trailing slashes."""
    with_scheme = value if _SCHEME.match(value) else f"https://{value}"
    return with_scheme.rstrip("/")


def gateway_url(env: Mapping[str, str] | None = None) -> str:
    """The gateway origin: ``PI_RADIUS_GATEWAY`` when set (and not blank), else the default."""
    source = os.environ if env is None else env
    override = (source.get(GATEWAY_ENV) or "").strip()
    return normalize_gateway_url(override or DEFAULT_GATEWAY)


def model_base_url(model: Model, env: Mapping[str, str] | None = None) -> str:
    """Where a request to `model` goes: its catalog base URL moved to the configured gateway."""
    default_base = f"{DEFAULT_GATEWAY}/v1"
    if model.provider != PROVIDER_ID or model.base_url.rstrip("/") != default_base:
        return model.base_url
    return f"{gateway_url(env)}/v1"


__all__ = [
    "API_KEY_ENV",
    "DEFAULT_GATEWAY",
    "GATEWAY_ENV",
    "PROVIDER_ID",
    "gateway_url",
    "model_base_url",
    "normalize_gateway_url",
]
