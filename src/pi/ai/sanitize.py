"""Remove lone UTF-16 surrogates from text before it goes on the wire.

A Python str decoded from JSON can hold a lone surrogate code point (e.g. from a truncated emoji
in tool output); JSON encoders then emit an escape that providers reject with a 400. Valid pairs
are already single code points in Python, so every surrogate left in a str is a lone one.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    return _SURROGATE.sub("", text) if _SURROGATE.search(text) else text


__all__ = ["sanitize_surrogates"]
