"""A small, safe Markdown-to-HTML renderer for exported sessions.

Model replies are Markdown; shown raw they are hard to read, and a full Markdown library is a large
dependency for one page. This covers what replies use (headings, paragraphs, lists, fenced and
inline code, bold, italic, links, block quotes) and nothing else. Every piece of text is escaped
before any markup is added, and only ``http``, ``https`` and ``mailto`` links become anchors, so no
reply can inject markup or script into the page.
"""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^(\s*)(```|~~~)\s*([\w+.#-]*)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_SAFE_URL = re.compile(r"^(https?://|mailto:)", re.IGNORECASE)


def _inline(text: str) -> str:
    """Inline markup of one escaped line; code spans are set aside first so nothing inside them changes."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(f"<code>{match.group(1)}</code>")
        return f"\x00{len(spans) - 1}\x00"

    out = _CODE_SPAN.sub(keep, html.escape(text, quote=True))

    def link(match: re.Match[str]) -> str:
        label, url = match.group(1), html.unescape(match.group(2))
        if not _SAFE_URL.match(url):
            return match.group(0)
        return f'<a href="{html.escape(url, quote=True)}" rel="noopener noreferrer">{label}</a>'

    out = _LINK.sub(link, out)
    out = _BOLD.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", out)
    out = _ITALIC.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", out)
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], out)


def _list_item(line: str) -> tuple[str, str] | None:
    bullet = _BULLET.match(line)
    if bullet:
        return "ul", bullet.group(1)
    numbered = _NUMBERED.match(line)
    return ("ol", numbered.group(1)) if numbered else None


def render_markdown(text: str) -> str:
    """HTML for `text`; block structure from line starts, inline markup within lines."""
    out: list[str] = []
    paragraph: list[str] = []
    list_kind: str | None = None
    lines = text.replace("\r\n", "\n").split("\n")
    index = 0

    def flush() -> None:
        nonlocal list_kind
        if paragraph:
            out.append("<p>" + "<br>".join(_inline(p) for p in paragraph) + "</p>")
            paragraph.clear()
        if list_kind is not None:
            out.append(f"</{list_kind}>")
            list_kind = None

    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            flush()
            closing = fence.group(2)
            body: list[str] = []
            index += 1
            while index < len(lines) and lines[index].strip() != closing:
                body.append(lines[index])
                index += 1
            out.append("<pre><code>" + html.escape("\n".join(body)) + "</code></pre>")
            index += 1
            continue
        heading = _HEADING.match(line)
        item = _list_item(line)
        quote = _QUOTE.match(line)
        if not line.strip():
            flush()
        elif heading:
            flush()
            level = len(heading.group(1))
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif item:
            if paragraph or list_kind != item[0]:
                flush()
                out.append(f"<{item[0]}>")
                list_kind = item[0]
            out.append(f"<li>{_inline(item[1])}</li>")
        elif quote:
            flush()
            out.append(f"<blockquote>{_inline(quote.group(1))}</blockquote>")
        else:
            if list_kind is not None:
                flush()
            paragraph.append(line)
        index += 1
    flush()
    return "".join(out)


__all__ = ["render_markdown"]
