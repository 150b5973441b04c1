"""Where a provider's credential already comes from, for the `/login` provider list.

Someone choosing a provider to set up wants to know whether it already works and why: a key
given with `--api-key`, one stored in auth.json, one models.json holds, or an environment
variable. The sources are checked in the order requests use them (`ModelRegistry.get_api_key`),
and the labels are pi's: `runtime`, `stored`, `models_json_key`, `models_json_command`, and
`env: NAME` for a variable (models.json values that name variables count only when every one of
them is set, and then show those names).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from pi.app.model_registry import ModelRegistry
    from pi.app.modes.interactive.pickers.login_providers import AuthType


class KeySource(Struct, frozen=True):
    kind: AuthType
    """The kind of credential in use: a stored login is `oauth`, everything else an API key."""
    label: str


def key_source(registry: ModelRegistry, provider: str) -> KeySource | None:
    """The credential `provider` would use now, or None."""
    auth = registry.auth
    if auth.runtime_api_key(provider):
        return KeySource("api_key", "runtime")
    stored = auth.stored_type(provider)
    if stored in ("oauth", "api_key"):
        return KeySource("oauth" if stored == "oauth" else "api_key", "stored")
    value = registry.configured_api_key(provider)
    if value is not None:
        return _configured_source(value)
    from pi.ai.env_api_keys import env_var_names

    found = next((name for name in env_var_names(provider) if os.environ.get(name)), None)
    return KeySource("api_key", f"env: {found}") if found is not None else None


def _configured_source(value: str) -> KeySource | None:
    if value.startswith("!"):
        return KeySource("api_key", "models_json_command")
    from pi.app.key_values import referenced_variables

    names = referenced_variables(value)
    if not names:
        return KeySource("api_key", "models_json_key")
    if all(os.environ.get(name) for name in names):
        return KeySource("api_key", "env: " + ", ".join(names))
    return None  # the value cannot be built, so requests would fail: not configured


__all__ = ["KeySource", "key_source"]
