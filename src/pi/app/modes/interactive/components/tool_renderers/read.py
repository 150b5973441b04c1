"""The read card: `read <path>[:from-to]`; the content only when expanded.

Reads of context files (`AGENTS.md`, `CLAUDE.md`, `AGENTS.override.md`) and of skills (`SKILL.md`)
collapse to one line with the expand hint, since the model reading its instructions is routine.
Expanded, the content is highlighted by file extension, trailing blank lines dropped, followed by
the truncation notes of the result.
"""

from __future__ import annotations

import functools
import os
import posixpath
from typing import TYPE_CHECKING

from pi.app.modes.interactive.components.formatting import wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    INVALID_ARG,
    BaseRenderer,
    ToolState,
    arg_text,
    colored_block,
    detail,
    display_path,
    image_placeholders,
    number_arg,
    output_lines,
    styled_arg,
    title,
    warning_note,
)

if TYPE_CHECKING:
    from pi.tui.theme import Theme

RESOURCE_FILES = frozenset(("AGENTS.md", "CLAUDE.md", "AGENTS.override.md"))
SKILL_FILE = "SKILL.md"


@functools.cache
def _manual_root() -> str | None:
    from pi.app.package_docs import package_docs_dir

    root = package_docs_dir()
    return str(root) if root is not None else None


def docs_relative(path: str, cwd: str) -> str | None:
    """`docs/x.md` for a file of pi's own manual, else None."""
    root = _manual_root()
    if root is None:
        return None
    absolute = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    if not absolute.startswith(root + os.sep):
        return None
    return os.path.relpath(absolute, root).replace(os.sep, "/")


def read_truncation_note(details: object) -> str | None:
    """The read tool's truncation note, or None when nothing was cut."""
    from pi.tools.truncate import DEFAULT_MAX_BYTES, format_size

    truncation = detail(details, "truncation")
    if not detail(truncation, "truncated"):
        return None
    limit = format_size(int(detail(truncation, "max_bytes", "maxBytes") or DEFAULT_MAX_BYTES))
    if detail(truncation, "first_line_exceeds_limit", "firstLineExceedsLimit"):
        return f"[First line exceeds {limit} limit]"
    shown = detail(truncation, "output_lines", "outputLines")
    if detail(truncation, "truncated_by", "truncatedBy") == "lines":
        total = detail(truncation, "total_lines", "totalLines")
        max_lines = detail(truncation, "max_lines", "maxLines")
        return f"[Truncated: showing {shown} of {total} lines ({max_lines} line limit)]"
    return f"[Truncated: {shown} lines shown ({limit} limit)]"


def highlighted(state: ToolState, theme: Theme, text: str, path: str | None) -> list[str]:
    """`text` split into lines and highlighted for `path`'s extension (memoised per text)."""
    from pi.tui.markdown_highlight import has_language, highlight_lines

    memo = state.memo.get("highlight")
    if memo is not None and memo[0] == text and memo[1] == path:
        cached: list[str] = memo[2]
        return cached
    code = text.replace("\t", "   ")
    if path and path != INVALID_ARG and has_language(filename=posixpath.basename(path)):
        lines = highlight_lines(code, theme, filename=posixpath.basename(path))
    else:
        lines = [theme.fg("toolOutput", line) if line else "" for line in code.split("\n")]
    state.memo["highlight"] = (text, path, lines)
    return lines


def drop_trailing_blank(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


class ReadRenderer(BaseRenderer):
    def _kind(self, path: str | None) -> str:
        if not path or path == INVALID_ARG:
            return "file"
        name = posixpath.basename(path.replace("\\", "/"))
        if name in RESOURCE_FILES:
            return "resource"
        if name == SKILL_FILE:
            return "skill"
        return "file"

    def call_line(self, state: ToolState, theme: Theme) -> str:
        raw = arg_text(state.args, "path", "file_path")
        path = display_path(state, raw)
        kind = self._kind(raw)
        hint = theme.fg("dim", f" ({state.expand_key} to expand)")
        if kind == "skill" and not state.expanded and path is not None:
            name = posixpath.basename(posixpath.dirname(path.replace("\\", "/"))) or path
            return theme.fg("customMessageLabel", theme.bold("[skill]")) + " " + theme.fg("accent", name) + hint
        if kind == "resource" and not state.expanded:
            return title(theme, "read resource") + " " + styled_arg(theme, path, "accent") + hint
        docs = docs_relative(raw, state.cwd) if raw and raw != INVALID_ARG and not state.expanded else None
        if docs is not None:
            return title(theme, "read docs") + " " + theme.fg("accent", docs) + hint
        text = title(theme, "read") + " " + styled_arg(theme, path, "accent")
        offset = number_arg(state.args, "offset")
        limit = number_arg(state.args, "limit")
        if offset is not None or limit is not None:
            start = int(offset) if offset is not None else 1
            end = f"-{start + int(limit) - 1}" if limit is not None else ""
            text += theme.fg("warning", f":{start}{end}")
        return text

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        out = wrap(self.call_line(state, theme), width)
        output = state.result
        if output is None:
            return out
        if state.is_error:
            lines = output_lines(output.text)
            if lines:
                out.append("")
                out.extend(colored_block(lines, width, lambda s: theme.fg("toolOutput", s)))
            return out
        model = detail(output.details, "image_unsupported_by_model", "imageUnsupportedByModel")
        if not state.expanded:
            if model:
                out.append("")
                out.extend(
                    warning_note(theme, f"[{model} does not support images; it saw a placeholder instead]", width)
                )
            return out
        path = arg_text(state.args, "path", "file_path")
        body = drop_trailing_blank(highlighted(state, theme, output.text, path)) if output.text.strip() else []
        body.extend(image_placeholders(output))
        note = read_truncation_note(output.details)
        if body or note:
            out.append("")
        for line in body:
            out.extend(wrap(line, width) if line else [""])
        if note:
            out.extend(warning_note(theme, note, width))
        return out


__all__ = ["RESOURCE_FILES", "ReadRenderer", "drop_trailing_blank", "highlighted", "read_truncation_note"]
