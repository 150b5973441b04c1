"""Markdown tables drawn with box characters, cells wrapped when the table is too wide.

Layout: ``┌─┬─┐`` on top, ``│ cell │`` rows with ``├─┼─┤`` between every two rows, ``└─┴─┘`` at
the bottom; the header row is bold; column alignment follows the delimiter row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi.tui.text_width import pad_to_width, truncate_to_width, visible_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.tui.markdown_blocks import Node
    from pi.tui.markdown_inline import InlineRenderer
    from pi.tui.theme import Theme


def _rows(table: Node, inline: InlineRenderer) -> list[tuple[bool, list[tuple[str, str]]]]:
    rows: list[tuple[bool, list[tuple[str, str]]]] = []
    for section in table.children:
        header = section.kind == "thead"
        for row in section.children:
            cells: list[tuple[str, str]] = []
            for cell in row.children:
                style = str(cell.token.attrs.get("style", ""))
                align = style.removeprefix("text-align:") if style.startswith("text-align:") else "left"
                cells.append((inline.render(cell.inline), align))
            rows.append((header, cells))
    return rows


def _column_widths(natural: list[int], available: int) -> list[int]:
    widths = list(natural)
    total = sum(widths)
    while total > available and max(widths, default=0) > 1:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        widths[widest] -= 1
        total -= 1
    return widths


def _align(text: str, width: int, align: str) -> str:
    gap = max(0, width - visible_width(text))
    if align == "right":
        return " " * gap + text
    if align == "center":
        left = gap // 2
        return " " * left + text + " " * (gap - left)
    return pad_to_width(text, width)


def render_table(table: Node, width: int, theme: Theme, inline: InlineRenderer) -> list[str]:
    """Lines of the table, never wider than ``width``."""
    rows = _rows(table, inline)
    if not rows:
        return []
    columns = max(len(cells) for _, cells in rows)
    for _, cells in rows:
        cells.extend(("", "left") for _ in range(columns - len(cells)))
    natural = [max(1, *(visible_width(cells[i][0]) for _, cells in rows)) for i in range(columns)]
    widths = _column_widths(natural, max(columns, width - (3 * columns + 1)))

    def rule(left: str, mid: str, right: str) -> str:
        return left + mid.join("─" * (w + 2) for w in widths) + right

    lines = [rule("┌", "┬", "┐")]
    for index, (header, cells) in enumerate(rows):
        if index:
            lines.append(rule("├", "┼", "┤"))
        wrapped = [wrap_text_with_ansi(text, w) if text else [""] for (text, _), w in zip(cells, widths, strict=True)]
        height = max(len(parts) for parts in wrapped)
        for row in range(height):
            out = []
            for (_, align), parts, w in zip(cells, wrapped, widths, strict=True):
                text = _align(parts[row] if row < len(parts) else "", w, align)
                out.append(theme.bold(text) if header else text)
            lines.append("│ " + " │ ".join(out) + " │")
    lines.append(rule("└", "┴", "┘"))
    return [truncate_to_width(line, width, "") if visible_width(line) > width else line for line in lines]
