"""How connection failures are classified and worded (retry at connect, pi's error texts)."""

from __future__ import annotations

import re


class NeedsAuthError(RuntimeError):
    """The server answered 401 and no stored token could be used."""


class ConnectionClosedError(RuntimeError):
    """The transport ended while a request was pending."""


def error_leaves(error: BaseException) -> list[BaseException]:
    """The real errors inside (nested) exception groups, which the SDK's task groups raise."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in error_leaves(inner)]
    return [error]


def http_status(error: BaseException) -> int | None:
    """The HTTP status of an `httpx.HTTPStatusError`-like error, else None."""
    response = getattr(error, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


def is_transient(error: BaseException) -> bool:
    """Network trouble, 408, 429 and 5xx except 501 are worth a retry at connect."""
    import httpx

    for leaf in error_leaves(error):
        code = http_status(leaf)
        if code is not None:
            return code in (408, 429) or (500 <= code < 600 and code != 501)
        if isinstance(leaf, httpx.TransportError):
            return True
    return False


def describe_error(error: BaseException) -> str:
    """The text after `MCP server "<name>" failed to connect: `."""
    leaves = error_leaves(error)
    for leaf in leaves:
        text = str(leaf)
        match = re.match(r"Unsupported protocol version from the server: (.+)", text)
        if match:
            return f"MCP server selected unsupported protocol version {match.group(1)}"
    leaf = leaves[0]
    return str(leaf) or type(leaf).__name__


__all__ = [
    "ConnectionClosedError",
    "NeedsAuthError",
    "describe_error",
    "error_leaves",
    "http_status",
    "is_transient",
]
