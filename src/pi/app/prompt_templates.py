"""Prompt templates: ``/name args`` expands a Markdown file with ``$1``, ``$@`` and ``${@:N:L}``.

Arguments are split like a shell would split them (spaces, with single or double quotes keeping
words together); substituted values are never expanded again, so an argument containing ``$2``
stays literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pi.app.frontmatter import split_frontmatter


@dataclass(slots=True, frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    path: Path
    source: str
    """"user", "project" or "path": where it was found."""


def _description(fields: dict[str, str], body: str) -> str:
    if fields.get("description"):
        return fields["description"]
    for line in body.splitlines():
        if line.strip():
            text = line.strip()
            return text if len(text) <= 60 else text[:60] + "..."
    return ""


def load_template_file(path: Path, source: str) -> PromptTemplate | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    fields, body = split_frontmatter(text)
    return PromptTemplate(path.stem, _description(fields, body), body, path, source)


def load_prompt_templates(sources: list[tuple[Path, str]]) -> list[PromptTemplate]:
    """Templates from each (file or directory, source label); the first of a name wins."""
    out: dict[str, PromptTemplate] = {}
    for location, source in sources:
        if location.is_dir():
            files = sorted(p for p in location.iterdir() if p.suffix == ".md" and p.is_file())
        elif location.is_file():
            files = [location]
        else:
            continue
        for file in files:
            template = load_template_file(file, source)
            if template is not None and template.name not in out:
                out[template.name] = template
    return list(out.values())


def split_args(text: str) -> list[str]:
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    in_word = False
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in ("'", '"'):
            quote = ch
            in_word = True
        elif ch in (" ", "\t", "\n"):
            if in_word:
                args.append("".join(current))
                current, in_word = [], False
        else:
            current.append(ch)
            in_word = True
    if in_word:
        args.append("".join(current))
    return args


_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)")


def substitute_args(content: str, args: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(3) is not None:
            index = int(match.group(3)) - 1
            return args[index] if 0 <= index < len(args) else ""
        if match.group(1) is not None:
            start = max(int(match.group(1)) - 1, 0)
            length = match.group(2)
            chosen = args[start : start + int(length)] if length is not None else args[start:]
            return " ".join(chosen)
        return " ".join(args)

    return _PLACEHOLDER.sub(replace, content)


def expand_prompt_template(text: str, templates: list[PromptTemplate]) -> str:
    """``/name args`` → the template with arguments substituted; anything else unchanged."""
    if not text.startswith("/"):
        return text
    name, _, rest = text[1:].partition(" ")
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
