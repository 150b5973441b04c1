"""The ``---`` header of skill and prompt-template files, read as YAML.

Nested maps (``metadata:``), lists and block scalars (``|`` keeps line breaks and indentation,
``>`` folds) mean what YAML says they mean, so the header is parsed by PyYAML's safe loader. That
import costs more than reading every skill a user has, so a header made only of plain
``key: word ...`` lines, where YAML would produce exactly the same strings, is read directly and
the parser is imported only for the files that need it.
"""

from __future__ import annotations

import re
from typing import Any


class FrontmatterError(ValueError):
    """The header is not valid YAML, or is not a mapping; the message says where and why."""


# A header line the fast path may read: a plain key, ": ", then a value YAML would take as a plain
# string. The value starts with a letter (so it is never a number, date, alias, tag or flow
# collection) and has no ':' or '#' (no nested mapping, no comment) and no tab.
_SIMPLE_LINE = r"([A-Za-z][A-Za-z0-9_-]*):(?: +([A-Za-z][A-Za-z0-9 .,;()/_'\"+=!?$%^&~<>-]*))?"
# Words YAML 1.1 (PyYAML's dialect) resolves to booleans or null rather than strings.
_NOT_STRINGS = frozenset(
    word for base in ("yes", "no", "true", "false", "on", "off", "null") for word in (base, base.title(), base.upper())
)


def _parse_simple(lines: list[str]) -> dict[str, Any] | None:
    """The header as YAML would read it, or None when it needs the real parser."""
    fields: dict[str, Any] = {}
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(_SIMPLE_LINE, line.rstrip(" "))
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if key in _NOT_STRINGS:
            return None
        if value is None:
            fields[key] = None
            continue
        value = value.rstrip(" ")
        if value in _NOT_STRINGS:
            return None
        fields[key] = value
    return fields


def parse_yaml_header(lines: list[str]) -> dict[str, Any]:
    """The header lines (without the ``---`` fences) as a mapping; raises FrontmatterError."""
    simple = _parse_simple(lines)
    if simple is not None:
        return simple
    import yaml  # only headers with nesting, blocks, quotes or typed values pay for the parser

    try:
        data = yaml.safe_load("".join(f"{line}\n" for line in lines))
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid YAML frontmatter: {' '.join(str(exc).split())}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(f"frontmatter must be a mapping of keys to values, not {type(data).__name__}")
    return {str(key): value for key, value in data.items()}


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(fields, body). A file without an opening and a closing ``---`` line has no frontmatter.

    Raises FrontmatterError when the header exists but is malformed, so the caller can name the
    file and skip it instead of loading it with half its settings.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            return parse_yaml_header(lines[1:end]), "\n".join(lines[end + 1 :])
    return {}, text


def text_field(fields: dict[str, Any], key: str) -> str:
    """A field as text: strings stripped, numbers and booleans spelled out, anything else empty."""
    value = fields.get(key)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return ""


def flag_field(fields: dict[str, Any], key: str) -> bool:
    """A yes/no field: YAML ``true`` or the text "true" (any case)."""
    value = fields.get(key)
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


__all__ = ["FrontmatterError", "flag_field", "parse_yaml_header", "split_frontmatter", "text_field"]
