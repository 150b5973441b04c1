"""Block-level markdown layout: headings, paragraphs, lists, quotes, rules, code and tables.

Works on markdown-it's flat token stream turned into a small tree; every function returns lines
no wider than the width it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct, field

from pi.tui.markdown_highlight import highlight_lines
from pi.tui.markdown_inline import InlineRenderer, TextStyle, restore_escapes
from pi.tui.markdown_table import render_table
from pi.tui.text_width import visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from markdown_it.token import Token

    from pi.tui.theme import Theme

HR_MAX = 80
NESTED_LIST_INDENT = 4


class Node(Struct):
    """One block token with its children (``inline`` holds the inline tokens, if any)."""

    token: Token
    children: list[Node] = field(default_factory=list)
    inline: list[Token] = field(default_factory=list)
    unclosed: bool = False

    @property
    def kind(self) -> str:
        return self.token.type.removesuffix("_open")


def build_tree(tokens: list[Token]) -> list[Node]:
    """Nest markdown-it's flat block tokens."""
    root: list[Node] = []
    stack: list[Node] = []
    for tok in tokens:
        if tok.nesting == -1:
            if stack:
                stack.pop()
            continue
        if tok.type == "inline":
            if stack:
                stack[-1].inline = list(tok.children or [])
            continue
        node = Node(tok)
        (stack[-1].children if stack else root).append(node)
        if tok.nesting == 1:
            stack.append(node)
    return root


class BlockRenderer:
    """Renders block nodes for one theme and settings."""

    def __init__(
        self, theme: Theme, *, hyperlinks: bool = False, code_indent: str = "  ", keep_escapes: bool = False
    ) -> None:
        self.theme = theme
        self.keep_escapes = keep_escapes
        self.inline = InlineRenderer(theme, hyperlinks=hyperlinks, keep_escapes=keep_escapes)
        self.code_indent = code_indent

    def render_blocks(
        self, nodes: list[Node], width: int, base: TextStyle | None = None, gap: bool = True
    ) -> list[str]:
        """Blocks one after the other, a blank line between them when ``gap``."""
        lines: list[str] = []
        for node in nodes:
            part = self.render_node(node, width, base)
            if not part:
                continue
            if lines and gap:
                lines.append("")
            lines.extend(part)
        return lines

    def render_node(self, node: Node, width: int, base: TextStyle | None = None) -> list[str]:
        width = max(1, width)
        kind = node.kind
        if kind == "paragraph":
            return self._wrap(self.inline.render(node.inline, base), width)
        if kind == "heading":
            return self._heading(node, width)
        if kind in ("bullet_list", "ordered_list"):
            return self._list(node, width, base)
        if kind == "blockquote":
            return self._quote(node, width)
        if kind == "hr":
            return [self.theme.fg("mdHr", "─" * min(width, HR_MAX))]
        if kind in ("fence", "code_block"):
            return self._code(node, width)
        if kind == "table":
            return render_table(node, width, self.theme, self.inline)
        if kind == "html_block":
            text = node.token.content.rstrip("\n")
            if self.keep_escapes:
                text = restore_escapes(text)
            return self._wrap(base(text) if base else text, width)
        if node.children:
            return self.render_blocks(node.children, width, base)
        if node.inline:
            return self._wrap(self.inline.render(node.inline, base), width)
        return []

    @staticmethod
    def _wrap(text: str, width: int) -> list[str]:
        return wrap_text_with_ansi(text, width)

    def _heading(self, node: Node, width: int) -> list[str]:
        theme = self.theme
        level = int(node.token.tag[1:]) if node.token.tag[1:].isdigit() else 1

        def style(text: str) -> str:
            styled = theme.bold(theme.fg("mdHeading", text))
            return theme.underline(styled) if level == 1 else styled

        text = self.inline.render(node.inline, style)
        if level >= 3:
            text = style("#" * level + " ") + text
        return self._wrap(text, width)

    def _list(self, node: Node, width: int, base: TextStyle | None) -> list[str]:
        theme = self.theme
        ordered = node.kind == "ordered_list"
        lines: list[str] = []
        start = int(node.token.attrs.get("start", 1) or 1) if ordered else 1
        for index, item in enumerate(node.children):
            if ordered:
                number = item.token.info or str(start + index)
                marker = f"{number}{item.token.markup or '.'} "
            else:
                marker = "- "
            indent = visible_width(marker)
            body = self._list_item(item, max(1, width - indent), base, indent)
            if not body:
                body = [""]
            lines.append(theme.fg("mdListBullet", marker) + body[0])
            pad = " " * indent
            lines.extend((pad + line) if line else "" for line in body[1:])
        return lines

    def _list_item(self, item: Node, width: int, base: TextStyle | None, indent: int) -> list[str]:
        lines: list[str] = []
        for index, child in enumerate(item.children):
            if child.kind in ("bullet_list", "ordered_list"):
                # Nested lists sit NESTED_LIST_INDENT columns right of the parent's bullet.
                extra = " " * max(0, NESTED_LIST_INDENT - indent)
                nested = self._list(child, max(1, width - len(extra)), base)
                lines.extend(extra + line for line in nested)
                continue
            part = self.render_node(child, width, base)
            if index == 0 and child.kind == "paragraph":
                part = self._task_box(child, part)
            if lines and part and not child.token.hidden and index:
                lines.append("")
            lines.extend(part)
        return lines

    def _task_box(self, paragraph: Node, part: list[str]) -> list[str]:
        """``[ ]`` / ``[x]`` at the start of an item shown as a box in the bullet colour."""
        first = paragraph.inline[0].content if paragraph.inline and paragraph.inline[0].type == "text" else ""
        if not part or first[:4].lower() not in ("[ ] ", "[x] "):
            return part
        box = "☑ " if first[1].lower() == "x" else "☐ "
        line = part[0]
        cut = line.find(first[:4])
        if cut == -1:
            return part
        return [line[:cut] + self.theme.fg("mdListBullet", box) + line[cut + 4 :], *part[1:]]

    def _quote(self, node: Node, width: int) -> list[str]:
        theme = self.theme

        def style(text: str) -> str:
            return theme.italic(theme.fg("mdQuote", text))

        inner = self.render_blocks(node.children, max(1, width - 2), style)
        border = theme.fg("mdQuoteBorder", "│ ")
        return [border + line for line in inner]

    def _code(self, node: Node, width: int) -> list[str]:
        theme = self.theme
        tok = node.token
        lang = tok.info.strip().split(" ")[0] if tok.type == "fence" else ""
        markup = tok.markup if tok.type == "fence" else "```"
        code = tok.content[:-1] if tok.content.endswith("\n") else tok.content
        if self.keep_escapes:
            code = restore_escapes(code)
        lines = [theme.fg("mdCodeBlockBorder", markup + lang)]
        body_width = max(1, width - visible_width(self.code_indent))
        highlighted = highlight_lines(code, theme, language=lang or None) if code or lang else []
        if not lang:
            highlighted = [theme.fg("mdCodeBlock", line) if line else "" for line in code.split("\n")] if code else []
        for line in highlighted:
            for part in wrap_text_with_ansi(line, body_width) if line else [""]:
                lines.append(self.code_indent + part if part else "")
        if not node.unclosed:
            lines.append(theme.fg("mdCodeBlockBorder", markup))
        return lines
