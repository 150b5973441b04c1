"""What a tool renderer sees (the card's state) and the pieces most renderers share.

A renderer turns the state of one tool call — arguments (perhaps still streaming), the partial or
final result, expanded or not — into the lines inside the card. The card owns the panel, the
background and the caching; renderers only produce content lines no wider than the given width.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field

from pi.app.modes.interactive.components.formatting import EXPAND_KEY, expand_hint, shorten_path, wrap

if TYPE_CHECKING:
    from pi.tui.theme import Theme

INVALID_ARG = "[invalid arg]"


class ToolResultLike(Protocol):
    """A tool result: an AgentToolResult or a ToolResultMessage (content blocks + details)."""

    @property
    def content(self) -> Sequence[Any]: ...

    @property
    def details(self) -> Any: ...


class ToolOutput(Struct):
    """The text of a result (text blocks joined by newlines), its images and its details."""

    text: str = ""
    images: list[str] = field(default_factory=list)
    details: Any = None

    @classmethod
    def of(cls, result: ToolResultLike | None) -> ToolOutput | None:
        if result is None:
            return None
        texts: list[str] = []
        images: list[str] = []
        for block in result.content or ():
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(str(getattr(block, "text", "")))
            elif kind == "image":
                images.append(str(getattr(block, "mime_type", "image")))
        return cls("\n".join(texts), images, result.details)


class ToolState(Struct):
    """Everything a renderer may look at; `memo` lets a renderer keep derived data between frames."""

    name: str
    call_id: str
    args: dict[str, Any]
    cwd: str
    home: str
    args_complete: bool = False
    expanded: bool = False
    started_at: float | None = None
    ended_at: float | None = None
    duration_ms: float | None = None
    partial: ToolOutput | None = None
    result: ToolOutput | None = None
    is_error: bool = False
    expand_key: str = EXPAND_KEY
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def output(self) -> ToolOutput | None:
        """The final result, else the latest partial one."""
        return self.result if self.result is not None else self.partial

    @property
    def done(self) -> bool:
        return self.result is not None


class ToolRenderer(Protocol):
    """Content lines of one tool's card for a width; `prepare` runs once the arguments are complete."""

    ticks: bool

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]: ...

    def prepare(self, state: ToolState) -> None: ...

    def background(self, state: ToolState) -> str | None: ...


class BaseRenderer:
    """Defaults: no timer, nothing to prepare, the background follows the result."""

    ticks = False

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        raise NotImplementedError

    def prepare(self, state: ToolState) -> None:
        return None

    def background(self, state: ToolState) -> str | None:
        return None


# --- arguments -----------------------------------------------------------------------------------


def arg_text(args: dict[str, Any], *keys: str) -> str | None:
    """The first of `keys` present: its string value, `[invalid arg]` for another type, None if absent."""
    for key in keys:
        if key in args and args[key] is not None:
            value = args[key]
            return value if isinstance(value, str) else INVALID_ARG
    return None


def styled_arg(theme: Theme, value: str | None, token: str, missing: str = "...") -> str:
    """An argument in its colour; `[invalid arg]` in `error`; `...` (toolOutput) while absent."""
    if value is None:
        return theme.fg("toolOutput", missing)
    if value == INVALID_ARG:
        return theme.fg("error", INVALID_ARG)
    return theme.fg(token, value)


def display_path(state: ToolState, value: str | None) -> str | None:
    """A path argument as shown: `~`-shortened (relative paths as given)."""
    if value is None or value == INVALID_ARG:
        return value
    return shorten_path(value, state.home)


def title(theme: Theme, text: str) -> str:
    return theme.fg("toolTitle", theme.bold(text))


def number_arg(args: dict[str, Any], key: str) -> int | float | None:
    value = args.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def format_number(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def detail(details: Any, name: str, camel: str | None = None) -> Any:
    """A field of result details, whether an object (live run) or a camelCase dict (resumed session)."""
    if details is None:
        return None
    if isinstance(details, dict):
        if name in details:
            return details[name]
        return details.get(camel) if camel else None
    return getattr(details, name, None)


def pretty_json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def home_dir() -> str:
    return os.path.expanduser("~")


# --- output --------------------------------------------------------------------------------------


def output_lines(text: str) -> list[str]:
    """Result text as lines, leading and trailing empty lines dropped, tabs as three spaces."""
    text = text.strip("\n")
    if not text:
        return []
    return text.replace("\t", "   ").split("\n")


def colored_block(lines: Sequence[str], width: int, paint: Callable[[str], str]) -> list[str]:
    """Each line painted and wrapped to `width`."""
    out: list[str] = []
    for line in lines:
        out.extend(wrap(paint(line), width) if line else [""])
    return out


def head_preview(
    state: ToolState, theme: Theme, lines: Sequence[str], limit: int, width: int, paint: Callable[[str], str]
) -> list[str]:
    """The first `limit` lines (all when expanded), then `... (N more lines, ctrl+o to expand)`."""
    if state.expanded or len(lines) <= limit:
        return colored_block(lines, width, paint)
    shown = colored_block(lines[:limit], width, paint)
    hint = expand_hint(theme, f"... ({len(lines) - limit} more lines,", state.expand_key)
    return [*shown, *wrap(hint, width)]


def warning_note(theme: Theme, text: str, width: int) -> list[str]:
    return wrap(theme.fg("warning", text), width)


def image_placeholders(output: ToolOutput) -> list[str]:
    return [f"[Image: {mime}]" for mime in output.images]


def size_limit_note(details: object) -> list[str]:
    """`50.0KB limit` when the result's output was cut by size."""
    from pi.tools.truncate import DEFAULT_MAX_BYTES, format_size

    truncation = detail(details, "truncation")
    if not detail(truncation, "truncated"):
        return []
    return [f"{format_size(int(detail(truncation, 'max_bytes', 'maxBytes') or DEFAULT_MAX_BYTES))} limit"]


def list_result(
    state: ToolState, theme: Theme, width: int, limit: int, notes: Callable[[object], list[str]]
) -> list[str]:
    """A blank line, the first `limit` result lines (all when expanded), then `[Truncated: …]`."""
    output = state.result
    if output is None:
        return []
    paint: Callable[[str], str] = (
        (lambda s: theme.fg("error", s)) if state.is_error else (lambda s: theme.fg("toolOutput", s))
    )
    lines = output_lines(output.text) + image_placeholders(output)
    parts = [] if state.is_error else notes(output.details)
    if not lines and not parts:
        return []
    out = [""]
    out.extend(head_preview(state, theme, lines, limit, width, paint))
    if parts:
        out.extend(warning_note(theme, f"[Truncated: {', '.join(parts)}]", width))
    return out


__all__ = [
    "INVALID_ARG",
    "BaseRenderer",
    "ToolOutput",
    "ToolRenderer",
    "ToolResultLike",
    "ToolState",
    "arg_text",
    "colored_block",
    "detail",
    "display_path",
    "format_number",
    "head_preview",
    "home_dir",
    "image_placeholders",
    "list_result",
    "number_arg",
    "output_lines",
    "pretty_json",
    "size_limit_note",
    "styled_arg",
    "title",
    "warning_note",
]
