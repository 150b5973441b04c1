"""Remove lone UTF-16 surrogates from text before it goes on the wire.

A Python str decoded from JSON can hold a lone surrogate code point (e.g. from a truncated emoji
in tool output); JSON encoders then emit an escape that providers reject with a 400. Valid pairs
are already single code points in Python, so every surrogate left in a str is a lone one.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """`text` without its lone surrogates, for the wire."""
    return _SURROGATE.sub("", text) if _SURROGATE.search(text) else text


def replace_surrogates(text: str, replacement: str = "\ufffd") -> str:
    """`text` with each lone surrogate shown as `replacement`, for diffs and files written as UTF-8."""
    return _SURROGATE.sub(replacement, text)


__all__ = ["replace_surrogates", "sanitize_surrogates"]
