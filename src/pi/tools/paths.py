"""Turning the path a model typed into the path on disk.

Models copy paths out of chat UIs and web pages: ``@src/a.py`` mentions, no-break spaces, ``~``,
``file://`` URLs. Each tool runs its `path` argument through here so they all forgive the same
mistakes. Only `read` additionally tries the macOS spellings of a name (screenshots with a narrow
no-break space before AM/PM, decomposed accents, curly apostrophes); tools that write never guess.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import unquote, urlparse

_UNICODE_SPACES = dict.fromkeys([0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
"""Unicode space variants, as a `str.translate` table mapping each to an ASCII space."""
_AM_PM = r"(?i) (AM|PM)\."
_NARROW_NO_BREAK_SPACE = "\u202f"
_RIGHT_SINGLE_QUOTE = "\u2019"


def normalize_path_argument(path: str) -> str:
    """Unicode space variants become ASCII spaces, then one leading ``@`` (a chat mention) is dropped."""
    path = path.translate(_UNICODE_SPACES)
    if path.startswith("@"):
        path = path[1:]
    return path


def _file_url_to_path(url: str) -> str:
    parsed = urlparse(url)
    host = parsed.netloc if parsed.netloc not in ("", "localhost") else ""
    return f"//{host}{unquote(parsed.path)}" if host else unquote(parsed.path)


def expand_path(path: str) -> str:
    """Normalise, then expand ``~`` / ``~/x`` (not ``~user``) and ``file://`` URLs to plain paths."""
    path = normalize_path_argument(path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), path[2:])
    if path.lower().startswith("file://"):
        return _file_url_to_path(path)
    return path


class PathArgumentError(ValueError):
    """A `path` argument no file can have; the message tells the model how to pass it instead."""


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Absolute, lexically normalised path; relative arguments are taken relative to the tool's cwd.

    Raises PathArgumentError for a NUL character (also one from a ``file://`` URL's ``%00``): the OS
    would refuse it with a bare "embedded null byte", which does not tell the model what went wrong.
    """
    expanded = expand_path(path)
    if "\0" in expanded:
        shown = path.replace("\0", "\\0")
        raise PathArgumentError(
            f"The path '{shown}' contains a NUL character (shown as \\0), which no file name can hold. "
            "Pass the path without it."
        )
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(cwd, expanded))


def read_path_variants(resolved: str) -> list[str]:
    """The spellings macOS may have used for a name, in the order they are tried (duplicates removed)."""
    am_pm = re.sub(_AM_PM, lambda m: f"{_NARROW_NO_BREAK_SPACE}{m.group(1)}.", resolved)
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", _RIGHT_SINGLE_QUOTE)
    nfd_curly = nfd.replace("'", _RIGHT_SINGLE_QUOTE)
    variants: list[str] = []
    for candidate in (am_pm, nfd, curly, nfd_curly):
        if candidate != resolved and candidate not in variants:
            variants.append(candidate)
    return variants


def resolve_read_path(path: str, cwd: str, exists: Callable[[str], bool] = os.path.exists) -> str:
    """Like `resolve_to_cwd`, but if nothing is there, the first macOS spelling that exists.

    Falls back to the plain resolution so that the read fails with the name the model gave.
    `exists` is replaceable for tools whose files live elsewhere (SSH, containers).
    """
    resolved = resolve_to_cwd(path, cwd)
    if exists(resolved):
        return resolved
    for candidate in read_path_variants(resolved):
        if exists(candidate):
            return candidate
    return resolved


__all__ = [
    "PathArgumentError",
    "expand_path",
    "normalize_path_argument",
    "read_path_variants",
    "resolve_read_path",
    "resolve_to_cwd",
]
