"""Reading (not verifying) a JWT's payload: the account id the ChatGPT backend wants is a claim in it."""

from __future__ import annotations

import base64
import json
from typing import Any


def jwt_payload(token: str) -> dict[str, Any] | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    segment = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        payload = json.loads(base64.urlsafe_b64decode(segment))
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


__all__ = ["jwt_payload"]
