"""Syntax highlighting of code with pygments, coloured with the theme's ``syntax*`` tokens.

Used for fenced code blocks and by tool cards (read/write previews by file name). Pygments is
imported on first use only. Unknown languages come back in ``mdCodeBlock`` (or unstyled).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.tui.theme import Theme

# Pygments token type prefixes (most specific first) mapped to theme tokens.
_TOKEN_MAP: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Comment",), "syntaxComment"),
    (("Keyword", "Type"), "syntaxType"),
    (("Keyword",), "syntaxKeyword"),
    (("Name", "Function"), "syntaxFunction"),
    (("Name", "Builtin"), "syntaxFunction"),
    (("Name", "Class"), "syntaxType"),
    (("Name", "Decorator"), "syntaxFunction"),
    (("Name", "Tag"), "syntaxKeyword"),
    (("Name", "Attribute"), "syntaxVariable"),
    (("Name", "Variable"), "syntaxVariable"),
    (("Name", "Constant"), "syntaxNumber"),
    (("Literal", "String"), "syntaxString"),
    (("Literal", "Number"), "syntaxNumber"),
    (("Literal",), "syntaxString"),
    (("Operator",), "syntaxOperator"),
    (("Punctuation",), "syntaxPunctuation"),
)

_ALIASES = {"js": "javascript", "ts": "typescript", "sh": "bash", "shell": "bash", "py": "python", "yml": "yaml"}


def _theme_token(ttype: Any) -> str | None:
    parts = tuple(ttype)
    for prefix, token in _TOKEN_MAP:
        if parts[: len(prefix)] == prefix:
            return token
    return None


@lru_cache(maxsize=64)
def _lexer_for(language: str | None, filename: str | None) -> Any:
    # Loaded through importlib: pygments ships no type information.
    lexers = importlib.import_module("pygments.lexers")
    not_found: type[Exception] = importlib.import_module("pygments.util").ClassNotFound
    try:
        if language:
            name = _ALIASES.get(language.lower(), language.lower())
            return lexers.get_lexer_by_name(name, stripnl=False, ensurenl=False)
        if filename:
            return lexers.get_lexer_for_filename(filename, stripnl=False, ensurenl=False)
    except not_found:
        return None
    return None


def has_language(language: str | None = None, filename: str | None = None) -> bool:
    """True when a lexer exists for the language name or file name."""
    return _lexer_for(language, filename) is not None


def highlight_lines(code: str, theme: Theme, *, language: str | None = None, filename: str | None = None) -> list[str]:
    """``code`` split into lines, each coloured by token; one output line per input line."""
    lexer = _lexer_for(language, filename)
    if lexer is None:
        return [theme.fg("mdCodeBlock", line) if line else "" for line in code.split("\n")]
    lines: list[str] = []
    current: list[str] = []
    for ttype, value in lexer.get_tokens(code):
        token = _theme_token(ttype)
        pieces = value.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                lines.append("".join(current))
                current = []
            if piece:
                current.append(theme.fg(token, piece) if token else piece)
    lines.append("".join(current))
    expected = code.count("\n") + 1
    if len(lines) > expected:
        lines = lines[:expected]
    return lines
