"""`pi auth check`, `pi auth print-api-key` and `pi auth print-bearer-token`: is a provider usable, and with what."""

from __future__ import annotations

import json
import re
from typing import IO, Any

from pi.app.oauth.clock import now_ms
from pi.app.oauth.credentials import RequestAuth, resolve_request_auth
from pi.app.oauth.errors import OAuthError
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.provider_names import oauth_flows
from pi.app.oauth.refresh import fresh_credential, needs_refresh
from pi.app.oauth.store import OAuthStore

_EXIT = {"ready": 0, "not_ready": 1, "invalid": 2}
_DURATION = re.compile(r"^(\d+)(ms|s|m|h)$")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def _options(args: list[str]) -> tuple[dict[str, str], set[str]]:
    values: dict[str, str] = {}
    flags: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("--provider", "--model", "--min-expiry") and i + 1 < len(args):
            values[arg] = args[i + 1]
            i += 2
            continue
        if "=" in arg and arg.split("=", 1)[0] in ("--provider", "--model", "--min-expiry"):
            key, value = arg.split("=", 1)
            values[key] = value
        else:
            flags.add(arg)
        i += 1
    return values, flags


def provider_of(values: dict[str, str]) -> str | None:
    """`--provider P`, or the provider of `--model provider/id` (a bare id is looked up in the catalog)."""
    if values.get("--provider"):
        return values["--provider"]
    model = values.get("--model")
    if not model:
        return None
    if "/" in model:
        return model.split("/", 1)[0]
    from pi.ai.models import catalog_models

    for candidate in catalog_models():
        if candidate.id == model:
            return str(candidate.provider)
    return None


async def run_check(args: list[str], store: OAuthStore, ctx: OAuthContext, out: IO[str], err: IO[str]) -> int:
    values, flags = _options(args)
    provider = provider_of(values)
    if provider is None:
        err.write("Error: pi auth check requires --provider <provider> or --model <model>\n")
        return 2
    result = await _check(provider, store, ctx, refresh="--no-refresh" not in flags)
    credentials = result.pop("_auth", None)
    if "--json" in flags:
        if "--credentials" in flags and isinstance(credentials, RequestAuth):
            result["credentials"] = {"apiKey": credentials.api_key, "headers": credentials.headers}
        out.write(json.dumps(result) + "\n")
    else:
        out.write(f"{result['status']}\n")
    return _EXIT[str(result["status"])]


async def _check(provider: str, store: OAuthStore, ctx: OAuthContext, refresh: bool) -> dict[str, Any]:
    entry = store.get(provider)
    result: dict[str, Any] = {"provider": provider}
    if entry is not None and entry.get("type") not in ("api_key", "oauth"):
        return {**result, "status": "invalid", "message": "auth.json entry is not a credential pi understands"}
    if entry is not None and entry.get("type") == "oauth" and not refresh:
        stale = needs_refresh(entry, now_ms(ctx.clock), 0)
        return {**result, "status": "not_ready" if stale else "ready", "source": "oauth"}
    try:
        auth = await resolve_request_auth(store, provider, oauth_flows(), ctx)
    except OAuthError as exc:
        return {**result, "status": "invalid", "message": str(exc)}
    if auth is None:
        return {**result, "status": "not_ready", "message": f"No API key found for {provider}."}
    return {**result, "status": "ready", "source": auth.source, "_auth": auth}


async def run_print_api_key(args: list[str], store: OAuthStore, ctx: OAuthContext, out: IO[str], err: IO[str]) -> int:
    values, _ = _options(args)
    provider = provider_of(values)
    if provider is None:
        err.write("Error: Credential printing requires --provider <provider> or --model <model>\n")
        return 1
    try:
        auth = await resolve_request_auth(store, provider, oauth_flows(), ctx)
    except OAuthError as exc:
        err.write(f"Error: {exc}\n")
        return 1
    if auth is None:
        err.write(f"Error: No API key found for {provider}.\n")
        return 1
    out.write(auth.api_key + "\n")
    return 0


async def run_print_bearer_token(
    args: list[str], store: OAuthStore, ctx: OAuthContext, out: IO[str], err: IO[str]
) -> int:
    values, _ = _options(args)
    provider = provider_of(values)
    if provider is None:
        err.write("Error: Credential printing requires --provider <provider> or --model <model>\n")
        return 1
    min_ms = 300_000
    if "--min-expiry" in values:
        match = _DURATION.match(values["--min-expiry"])
        if not match:
            err.write("Error: --min-expiry must use a duration such as 30m or 1h\n")
            return 1
        min_ms = int(match.group(1)) * _UNIT_MS[match.group(2)]
    flow = oauth_flows().get(provider)
    try:
        if flow is None:
            raise OAuthError(f"{provider} has no account login")
        entry = await fresh_credential(store, flow, ctx, min_validity_ms=min_ms)
        if needs_refresh(entry, now_ms(ctx.clock), min_ms):
            raise OAuthError(f"OAuth refresh returned a token that expires too soon for {provider}")
    except OAuthError as exc:
        err.write(f"Error: {exc}\n")
        return 1
    out.write(str(entry.get("access")) + "\n")
    return 0


__all__ = ["provider_of", "run_check", "run_print_api_key", "run_print_bearer_token"]
