"""The component model: anything that renders itself to lines for a given width.

Components are retained: they keep their state and cache their lines while nothing changed, so a
frame costs only the components that did change. A renderer asks the root for its lines and diffs
them against what is on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

from pi.tui.text_width import pad_to_width, truncate_to_width, visible_width, wrap_text_with_ansi

__all__ = [
    "CURSOR_MARKER",
    "Box",
    "Component",
    "Container",
    "Focusable",
    "HStack",
    "RenderRequester",
    "Spacer",
    "Style",
    "Text",
    "TruncatedText",
    "VStack",
]

#: Zero-width APC marker placed where the hardware cursor should go; renderers strip it.
CURSOR_MARKER = "\x1b_pi:c\x07"

#: Given to components that change on their own (spinners, timers) to ask for a new frame.
RenderRequester = Callable[[], None]

#: A function that styles a whole line (for example a theme background).
Style = Callable[[str], str]


@runtime_checkable
class Component(Protocol):
    """Renders to lines, each at most `width` cells wide and without a newline.

    A component may return the same list object again while nothing changed (that is how
    containers skip work), so a returned list must never be mutated afterwards: build a new list
    when the content changes.
    """

    def render(self, width: int) -> list[str]: ...

    def invalidate(self) -> None: ...


@runtime_checkable
class Focusable(Component, Protocol):
    """A component that takes keyboard input while focused."""

    focused: bool

    def handle_input(self, data: str) -> bool: ...


class Container:
    """Children rendered one below the other."""

    def __init__(self, children: Iterable[Component] = ()) -> None:
        self.children: list[Component] = list(children)
        self._parts: list[list[str]] = []
        self._lines: list[str] = []

    def add(self, child: Component) -> None:
        self.children.append(child)

    def insert(self, index: int, child: Component) -> None:
        self.children.insert(index, child)

    def remove(self, child: Component) -> None:
        if child in self.children:
            self.children.remove(child)

    def clear(self) -> None:
        self.children.clear()

    def invalidate(self) -> None:
        for child in self.children:
            child.invalidate()

    def render(self, width: int) -> list[str]:
        parts = [child.render(width) for child in self.children]
        # Children hand back their cached list objects when unchanged: then so do we.
        if len(parts) == len(self._parts) and all(a is b for a, b in zip(parts, self._parts, strict=True)):
            return self._lines
        lines: list[str] = []
        for part in parts:
            lines.extend(part)
        self._parts = parts
        self._lines = lines
        return lines


class VStack(Container):
    """A container with `gap` empty lines between non-empty children."""

    def __init__(self, children: Iterable[Component] = (), gap: int = 0) -> None:
        super().__init__(children)
        self.gap = gap

    def render(self, width: int) -> list[str]:
        parts = [child.render(width) for child in self.children]
        if len(parts) == len(self._parts) and all(a is b for a, b in zip(parts, self._parts, strict=True)):
            return self._lines
        lines: list[str] = []
        for part in parts:
            if not part:
                continue
            if lines and self.gap:
                lines.extend([""] * self.gap)
            lines.extend(part)
        self._parts = parts
        self._lines = lines
        return lines


class HStack:
    """Children side by side. `widths` gives each child's width; None shares what is left."""

    def __init__(self, children: Sequence[Component], widths: Sequence[int | None] | None = None, gap: int = 1) -> None:
        self.children = list(children)
        self.widths: list[int | None] = list(widths) if widths is not None else [None] * len(self.children)
        self.gap = gap

    def invalidate(self) -> None:
        for child in self.children:
            child.invalidate()

    def column_widths(self, width: int) -> list[int]:
        count = len(self.children)
        available = max(0, width - self.gap * max(0, count - 1))
        fixed = [min(w, available) if w is not None else 0 for w in self.widths[:count]]
        fixed += [0] * (count - len(fixed))
        flexible = [i for i in range(count) if i >= len(self.widths) or self.widths[i] is None]
        rest = max(0, available - sum(fixed))
        for n, i in enumerate(flexible):
            share = rest // len(flexible) + (1 if n < rest % len(flexible) else 0)
            fixed[i] = share
        # Never exceed the width when fixed columns overflow it.
        total = 0
        for i, w in enumerate(fixed):
            fixed[i] = max(0, min(w, available - total))
            total += fixed[i]
        return fixed

    def render(self, width: int) -> list[str]:
        widths = self.column_widths(width)
        columns = [child.render(w) if w > 0 else [] for child, w in zip(self.children, widths, strict=True)]
        height = max((len(c) for c in columns), default=0)
        spacer = " " * self.gap
        lines = []
        for row in range(height):
            cells = [
                pad_to_width(col[row] if row < len(col) else "", w) for col, w in zip(columns, widths, strict=True)
            ]
            lines.append((("\x1b[0m" + spacer).join(cells)).rstrip(" ") if cells else "")
        return lines


class Text:
    """Word-wrapped text with optional padding and a line style (for example a background)."""

    def __init__(self, text: str = "", padding_x: int = 0, padding_y: int = 0, style: Style | None = None) -> None:
        self._text = text
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.style = style
        self._cache_width = -1
        self._cache: list[str] = []

    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._cache_width = -1

    def invalidate(self) -> None:
        self._cache_width = -1

    def render(self, width: int) -> list[str]:
        if width == self._cache_width:
            return self._cache
        inner = max(1, width - 2 * self.padding_x)
        lines: list[str] = []
        if self._text.strip():
            pad = " " * self.padding_x
            for line in wrap_text_with_ansi(self._text, inner):
                lines.append(pad + line + pad if self.padding_x else line)
        if lines and self.padding_y:
            blank = [""] * self.padding_y
            lines = blank + lines + blank
        if self.style is not None:
            style = self.style
            lines = [style(pad_to_width(line, width)) for line in lines]
        else:
            lines = [truncate_to_width(line, width, "") if visible_width(line) > width else line for line in lines]
        self._cache_width = width
        self._cache = lines
        return lines


class TruncatedText:
    """A single line (the first line of `text`), cut with an ellipsis when too wide."""

    def __init__(self, text: str = "", padding_x: int = 0, padding_y: int = 0) -> None:
        self._text = text
        self.padding_x = padding_x
        self.padding_y = padding_y
        self._cache_width = -1
        self._cache: list[str] = []

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._cache_width = -1

    def invalidate(self) -> None:
        self._cache_width = -1

    def render(self, width: int) -> list[str]:
        if width == self._cache_width:
            return self._cache
        first = self._text.split("\n", 1)[0]
        pad = " " * self.padding_x
        inner = max(0, width - 2 * self.padding_x)
        line = pad + truncate_to_width(first, inner) + pad if inner else ""
        blank = [""] * self.padding_y
        self._cache = [*blank, truncate_to_width(line, width, ""), *blank]
        self._cache_width = width
        return self._cache


class Spacer:
    """`lines` empty lines."""

    def __init__(self, lines: int = 1) -> None:
        self.lines = lines
        self._cache: list[str] = [""] * lines

    def invalidate(self) -> None:
        return None

    def render(self, width: int) -> list[str]:
        if len(self._cache) != self.lines:
            self._cache = [""] * self.lines
        return self._cache


class Box(Container):
    """Children inside padding, every line filled to the full width and styled (e.g. a background)."""

    def __init__(
        self,
        children: Iterable[Component] = (),
        padding_x: int = 1,
        padding_y: int = 1,
        style: Style | None = None,
    ) -> None:
        super().__init__(children)
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.style = style
        self._box_width = -1
        self._box_lines: list[str] = []

    def set_style(self, style: Style | None) -> None:
        self.style = style
        self._box_width = -1

    def invalidate(self) -> None:
        super().invalidate()
        self._box_width = -1

    def render(self, width: int) -> list[str]:
        inner_width = max(1, width - 2 * self.padding_x)
        previous = self._lines
        inner = super().render(inner_width)
        if inner is previous and width == self._box_width:
            return self._box_lines
        pad = " " * self.padding_x
        blank = pad_to_width("", width)
        lines = [blank] * self.padding_y
        lines.extend(pad_to_width(pad + line, width) for line in inner)
        lines.extend([blank] * self.padding_y)
        if self.style is not None:
            style = self.style
            lines = [style(line) for line in lines]
        self._box_width = width
        self._box_lines = lines
        return lines
