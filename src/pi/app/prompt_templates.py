"""Prompt templates: ``/name args`` expands a Markdown file with ``$1``, ``$@``, ``${@:N:L}`` and defaults.

Placeholders: ``$N``, ``$@`` / ``$ARGUMENTS`` (all arguments joined by spaces), ``${@:N}`` and
``${@:N:L}`` (a slice, 1-based), and ``${N:-default}``, ``${@:-default}``, ``${ARGUMENTS:-default}``
(the default when the value is missing or empty). Substituted values are never expanded again, so
an argument containing ``$2`` stays literal.

Arguments split on whitespace; a quote opens only at the start of an argument (``don't`` is one
word), ``""`` is an empty argument that keeps its position, ``\\"`` inside double quotes (``\\'``
inside single ones) is a literal quote, and a quote that is never closed is ordinary text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from msgspec import Struct

from pi.app.frontmatter import FrontmatterError, split_frontmatter, text_field


class PromptTemplate(Struct, frozen=True):
    """One prompt template file; ``/name args`` expands `content` with the arguments."""

    name: str
    description: str
    content: str
    path: Path
    source: str
    """"user", "project" or "path": where it was found."""
    argument_hint: str = ""
    """What the arguments are (``argument-hint`` in the frontmatter), shown beside the name when completing."""


def _description(fields: dict[str, Any], body: str) -> str:
    described = text_field(fields, "description")
    if described:
        return described
    for line in body.splitlines():
        if line.strip():
            text = line.strip()
            return text if len(text) <= 60 else text[:60] + "..."
    return ""


def load_template_file(path: Path, source: str, warnings: list[str] | None = None) -> PromptTemplate | None:
    """The template in `path`, or None (with a warning naming the file) when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        if warnings is not None:
            warnings.append(f"Skipping prompt template {path}: {exc.strerror or exc}")
        return None
    try:
        fields, body = split_frontmatter(text)
    except FrontmatterError as exc:
        if warnings is not None:
            warnings.append(f"Skipping prompt template {path}: {exc}")
        return None
    return PromptTemplate(
        path.stem, _description(fields, body), body, path, source, argument_hint=text_field(fields, "argument-hint")
    )


def load_prompt_templates(
    sources: list[tuple[Path, str]],
    warnings: list[str] | None = None,
    enabled: Callable[[Path], bool] | None = None,
) -> list[PromptTemplate]:
    """Templates from each (file or directory, source label); the first of a name wins.

    `enabled(path)` says whether a template file is switched on in settings (skipped when not).
    """
    out: dict[str, PromptTemplate] = {}
    for location, source in sources:
        if location.is_dir():
            files = sorted(p for p in location.iterdir() if p.suffix == ".md" and p.is_file())
        elif location.is_file():
            files = [location]
        else:
            continue
        for file in files:
            if enabled is not None and not enabled(file):
                continue
            template = load_template_file(file, source, warnings)
            if template is not None and template.name not in out:
                out[template.name] = template
    return list(out.values())


def _quoted(text: str, start: int) -> tuple[str, int] | None:
    """The quoted text opening at `start` and the index after its closing quote; None if never closed."""
    quote = text[start]
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == quote:
            chars.append(quote)
            i += 2
            continue
        if ch == quote:
            return "".join(chars), i + 1
        chars.append(ch)
        i += 1
    return None


def split_args(text: str) -> list[str]:
    """Split template arguments as described in the module docstring."""
    args: list[str] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        word: list[str] = []
        if text[i] in ("'", '"'):
            quoted = _quoted(text, i)
            if quoted is not None:
                word.append(quoted[0])
                i = quoted[1]
        while i < len(text) and not text[i].isspace():
            word.append(text[i])
            i += 1
        args.append("".join(word))
    return args


_PLACEHOLDER = (
    r"\$\{(\d+):-([^}]*)\}"  # ${N:-default}
    r"|\$\{(?:@|ARGUMENTS):-([^}]*)\}"  # ${@:-default}, ${ARGUMENTS:-default}
    r"|\$\{@:(\d+)(?::(\d+))?\}"  # ${@:N}, ${@:N:L}
    r"|\$ARGUMENTS|\$@"
    r"|\$(\d+)"
)


def substitute_args(content: str, args: list[str]) -> str:
    def arg(number: str) -> str:
        index = int(number) - 1
        return args[index] if 0 <= index < len(args) else ""

    def replace(match: re.Match[str]) -> str:
        number, default, all_default, start, length, single = match.groups()
        if number is not None:
            return arg(number) or default
        if all_default is not None:
            return " ".join(args) or all_default
        if start is not None:
            first = max(int(start) - 1, 0)
            chosen = args[first : first + int(length)] if length is not None else args[first:]
            return " ".join(chosen)
        if single is not None:
            return arg(single)
        return " ".join(args)

    return re.sub(_PLACEHOLDER, replace, content)


def expand_prompt_template(text: str, templates: list[PromptTemplate]) -> str:
    """``/name args`` → the template with arguments substituted; anything else unchanged."""
    if not text.startswith("/"):
        return text
    match = re.match(r"/(\S+)", text)
    if match is None:
        return text
    name, rest = match.group(1), text[match.end() :]
    for template in templates:
        if template.name == name:
            return substitute_args(template.content, split_args(rest))
    return text


__all__ = [
    "PromptTemplate",
    "expand_prompt_template",
    "load_prompt_templates",
    "load_template_file",
    "split_args",
    "substitute_args",
]
