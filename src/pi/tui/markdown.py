"""The Markdown component: markdown text rendered to terminal lines, cheap to stream into.

While a reply streams, ``set_text`` is called with the whole text so far. Only the text after the
last finished block is parsed again: a top-level block followed by another block is finished (it
cannot change any more), so it is parsed once, rendered once per width and cached. Each frame
then costs the trailing block only, and a long reply streams in linear time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from msgspec import Struct, field

from pi.tui.markdown_blocks import BlockRenderer, Node, build_tree
from pi.tui.markdown_inline import TextStyle, protect_escapes
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from pi.tui.theme import Theme


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


class _Block(Struct):
    """One top-level block: its source and its rendered lines per width."""

    source: str
    nodes: list[Node] | None
    cache: dict[int, list[str]] = field(default_factory=dict)


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    pos = text.find("\n")
    while pos != -1:
        offsets.append(pos + 1)
        pos = text.find("\n", pos + 1)
    offsets.append(len(text))
    return offsets


def _fence_closed(source: str, markup: str) -> bool:
    lines = source.rstrip("\n").split("\n")
    for line in reversed(lines[1:]):
        stripped = line.strip()
        if not stripped:
            continue
        return stripped[0] == markup[0] and set(stripped) == {markup[0]} and len(stripped) >= len(markup)
    return False


def parse_blocks(text: str) -> list[tuple[int, int, list[Node]]]:
    """Top-level blocks of ``text`` as (first line, end line, nodes)."""
    tokens = _parser().parse(text)
    blocks: list[tuple[int, int, list[Node]]] = []
    group: list[object] = []
    depth = 0
    start = 0
    end = 0
    for tok in tokens:
        if depth == 0:
            group = []
            if tok.map is not None:
                start, end = tok.map
        group.append(tok)
        depth += tok.nesting
        if depth == 0:
            nodes = build_tree(group)  # type: ignore[arg-type]
            blocks.append((start, end, nodes))
    return blocks


class Markdown:
    """Markdown text as lines; ``set_text``/``append`` for streaming, finished blocks cached."""

    def __init__(
        self,
        text: str = "",
        theme: Theme | None = None,
        *,
        padding_x: int = 0,
        padding_y: int = 0,
        base_style: TextStyle | None = None,
        hyperlinks: bool = False,
        code_indent: str = "  ",
        keep_escapes: bool = False,
    ) -> None:
        if theme is None:
            from pi.tui.theme import Theme as _Theme

            theme = _Theme.plain()
        self.theme = theme
        self.padding_x = padding_x
        self.padding_y = padding_y
        self.base_style = base_style
        self.hyperlinks = hyperlinks
        self.code_indent = code_indent
        self.keep_escapes = keep_escapes
        self.block_renders = 0
        self._renderer = BlockRenderer(theme, hyperlinks=hyperlinks, code_indent=code_indent, keep_escapes=keep_escapes)
        self._text = ""
        self._original = ""
        self._committed: list[_Block] = []
        self._committed_len = 0
        self._live: list[_Block] = []
        self._prefix: dict[int, tuple[int, list[str]]] = {}
        self._frame: tuple[int, int, list[str]] | None = None
        self._version = 0
        self._parsed_version = -1
        self.set_text(text)

    @property
    def text(self) -> str:
        return self._original

    def set_text(self, text: str) -> None:
        """Replace the text (usually the same text with more appended); parsed at the next render."""
        if text == self._original and self._version:
            return
        self._original = text
        self._version += 1

    def _sync(self) -> None:
        """Bring the parsed blocks up to date with the text (only the unfinished tail is parsed)."""
        text = protect_escapes(self._original) if self.keep_escapes else self._original
        self._parsed_version = self._version
        if text == self._text and (self._committed or self._live or not text):
            return
        if not text.startswith(self._text[: self._committed_len]):
            self._committed = []
            self._committed_len = 0
            self._prefix.clear()
        self._text = text
        self._reparse_tail()

    def append(self, delta: str) -> None:
        self.set_text(self._original + delta)

    def _reparse_tail(self) -> None:
        """Parse the unfinished tail; commit the blocks that later text can no longer change.

        A block is finished once the line that starts the next block is complete: until then
        that line may still turn out to continue the block (``- item`` then ``*…``).
        """
        tail = self._text[self._committed_len :]
        blocks = parse_blocks(tail)
        offsets = _line_offsets(tail)
        previous = {b.source: b for b in self._live}
        live: list[_Block] = []
        commit_to = 0
        committing = True
        for index, (start, _end, nodes) in enumerate(blocks):
            last = index == len(blocks) - 1
            begin = offsets[min(start, len(offsets) - 1)]
            stop = offsets[min(blocks[index + 1][0], len(offsets) - 1)] if not last else len(tail)
            source = tail[begin:stop]
            self._mark_unclosed(nodes, source)
            block = previous.get(source) or _Block(source, nodes)
            committing = committing and not last and tail.find("\n", stop) != -1
            if committing:
                self._committed.append(block)
                commit_to = stop
            else:
                live.append(block)
        self._committed_len += commit_to
        self._live = live

    def _parse_source(self, source: str) -> list[Node]:
        nodes = [node for _, _, part in parse_blocks(source) for node in part]
        self._mark_unclosed(nodes, source)
        return nodes

    @staticmethod
    def _mark_unclosed(nodes: list[Node], source: str) -> None:
        for node in nodes:
            if node.token.type == "fence":
                node.unclosed = not _fence_closed(source, node.token.markup)

    def set_theme(self, theme: Theme) -> None:
        """Switch themes (for example after ``/settings`` → Theme): everything is drawn again."""
        self.theme = theme
        self._renderer = BlockRenderer(
            theme, hyperlinks=self.hyperlinks, code_indent=self.code_indent, keep_escapes=self.keep_escapes
        )
        self.invalidate()

    def invalidate(self) -> None:
        for block in self._committed + self._live:
            block.cache.clear()
        self._prefix.clear()
        self._frame = None

    def _render_block(self, block: _Block, width: int) -> list[str]:
        lines = block.cache.get(width)
        if lines is None:
            self.block_renders += 1
            pad_x = self.padding_x if width > 2 * self.padding_x else 0
            inner = max(1, width - 2 * pad_x)
            nodes = block.nodes if block.nodes is not None else self._parse_source(block.source)
            lines = self._renderer.render_blocks(nodes, inner, self.base_style)
            block.nodes = None  # parsed again from the source on a width change; saves memory
            if pad_x:
                pad = " " * pad_x
                lines = [pad + line if line else "" for line in lines]
            # The last guard of the width promise (borders of code blocks on tiny widths).
            lines = [line if visible_width(line) <= width else truncate_to_width(line, width, "") for line in lines]
            block.cache = {width: lines}
        return lines

    def render(self, width: int) -> list[str]:
        if self._frame is not None and self._frame[0] == width and self._frame[1] == self._version:
            return self._frame[2]
        if self._parsed_version != self._version:
            self._sync()
        count, prefix = self._prefix.get(width, (0, []))
        for block in self._committed[count:]:
            part = self._render_block(block, width)
            if part and prefix:
                prefix.append("")
            prefix.extend(part)
        self._prefix = {width: (len(self._committed), prefix)}
        lines = list(prefix)
        for block in self._live:
            part = self._render_block(block, width)
            if part and lines:
                lines.append("")
            lines.extend(part)
        if lines and self.padding_y:
            blank = [""] * self.padding_y
            lines = blank + lines + blank
        self._frame = (width, self._version, lines)
        return lines
