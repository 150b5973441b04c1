"""`pi auth ...`: sign in, sign out and inspect stored credentials from a shell.

Only this module (and the CLI above it) writes to the terminal; flows report through the
interaction surface. Secrets are never printed except by the commands whose job that is.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import IO

from pi.app.oauth.auth_check import run_check, run_print_api_key, run_print_bearer_token
from pi.app.oauth.auth_login import run_login
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.interaction import LoginInteraction
from pi.app.oauth.provider_names import display_name
from pi.app.oauth.store import OAuthStore

_COMMANDS = ("login", "logout", "list", "check", "print-api-key", "print-bearer-token")


def run_auth_command(
    argv: list[str],
    agent_dir: Path,
    out: IO[str],
    err: IO[str],
    interaction: LoginInteraction | None = None,
    context: OAuthContext | None = None,
    input: IO[str] | None = None,
) -> int:
    """Run `pi auth <argv>`; returns the exit code. `interaction`/`context` let tests drive a login."""
    if context is None:
        import os

        from pi.app.oauth.providers import table_from_env

        context = OAuthContext(providers=table_from_env(os.environ), agent_dir=agent_dir)
    ctx = context
    if ctx.agent_dir is None:
        ctx.agent_dir = agent_dir
    store = OAuthStore(agent_dir / "auth.json")
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if command == "login":
            try:
                return asyncio.run(run_login(args, store, ctx, out, err, interaction, input or sys.stdin))
            except KeyboardInterrupt:
                err.write("\nLogin cancelled.\n")
                return 1
        if command == "logout":
            return _logout(args, store, out, err)
        if command == "list":
            return _list(store, out)
        if command == "check":
            return asyncio.run(run_check(args, store, ctx, out, err))
        if command == "print-api-key":
            return asyncio.run(run_print_api_key(args, store, ctx, out, err))
        if command == "print-bearer-token":
            return asyncio.run(run_print_bearer_token(args, store, ctx, out, err))
    except OSError as exc:
        err.write(f"Error: {exc}\n")
        return 1
    names = ", ".join(f'"pi auth {name}"' for name in _COMMANDS)
    err.write(f'Unknown auth command "{command}". Use {names}.\n')
    return 1


def _logout(args: list[str], store: OAuthStore, out: IO[str], err: IO[str]) -> int:
    if len(args) != 1 or args[0].startswith("-"):
        err.write("Usage: pi auth logout <provider>\n")
        return 1
    provider = args[0]
    if store.remove(provider):
        out.write(f"Logged out of {display_name(provider)}. Removed its credentials from {store.path}\n")
    else:
        out.write(f"No stored credentials for {display_name(provider)}.\n")
    return 0


def _list(store: OAuthStore, out: IO[str]) -> int:
    entries = store.read()
    if not entries:
        out.write(f"No stored credentials in {store.path}\n")
        return 0
    for provider in sorted(entries):
        entry = entries[provider]
        kind = entry.get("type") if isinstance(entry, dict) else None
        label = {"oauth": "account login", "api_key": "API key"}.get(str(kind), "unrecognised entry")
        out.write(f"{provider}\t{label}\t{display_name(provider)}\n")
    return 0


__all__ = ["run_auth_command"]
