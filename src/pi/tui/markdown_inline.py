"""Inline markdown (emphasis, code spans, links) to styled text.

Styles are applied per text run from a stack, so nested emphasis inside links or headings keeps
all of its attributes, and each run closes its own attributes (a wrapped line never leaks colour).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

    from pi.tui.theme import Theme

TextStyle = Callable[[str], str]

_OSC8_OPEN = "\x1b]8;;{url}\x1b\\"
_OSC8_CLOSE = "\x1b]8;;\x1b\\"
_EMPHASIS = {"strong_open": "bold", "em_open": "italic", "s_open": "strikethrough"}
_URL_RE = re.compile(r"https?://[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"]")


_ESCAPE_BASE = 0xF0000
_ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")
_RESTORE = {_ESCAPE_BASE + code: "\\" + chr(code) for code in range(33, 127)}


def protect_escapes(text: str) -> str:
    """Backslash escapes turned into private characters, so the parser shows them as typed."""
    return _ESCAPE_RE.sub(lambda m: chr(_ESCAPE_BASE + ord(m.group(1))), text)


def restore_escapes(text: str) -> str:
    """The inverse of ``protect_escapes`` on rendered text."""
    return text.translate(_RESTORE)


def _identity(text: str) -> str:
    return text


class InlineRenderer:
    """Renders markdown-it inline tokens for one theme."""

    def __init__(self, theme: Theme, *, hyperlinks: bool = False, keep_escapes: bool = False) -> None:
        self.theme = theme
        self.hyperlinks = hyperlinks
        self.keep_escapes = keep_escapes

    def render(self, tokens: Sequence[Token], base: TextStyle | None = None) -> str:
        """Styled text of ``tokens``; ``base`` styles plain runs (headings, quotes, thinking)."""
        theme = self.theme
        base_style = base or _identity
        stack: list[TextStyle] = []
        links: list[str] = []
        link_texts: list[list[str]] = []
        out: list[str] = []

        def styled(text: str) -> str:
            result = base_style(text)
            for style in reversed(stack):
                result = style(result)
            return result

        for tok in tokens:
            kind = tok.type
            if kind == "text":
                if tok.content:
                    if link_texts:
                        out.append(styled(tok.content))
                        link_texts[-1].append(tok.content)
                    else:
                        out.append(self._linkify(tok.content, styled))
            elif kind in ("softbreak", "hardbreak"):
                out.append("\n")  # a single newline in a reply is kept as a line break
            elif kind == "code_inline":
                out.append(self._code(tok.content, stack))
                if link_texts:
                    link_texts[-1].append(tok.content)
            elif kind in _EMPHASIS:
                stack.append(getattr(theme, _EMPHASIS[kind]))
            elif kind in ("strong_close", "em_close", "s_close", "link_close"):
                if kind == "link_close":
                    out.append(self._link_end(links, link_texts))
                if stack:
                    stack.pop()
            elif kind == "link_open":
                url = str(tok.attrs.get("href", ""))
                links.append(url)
                link_texts.append([])
                if self.hyperlinks and url:
                    out.append(_OSC8_OPEN.format(url=url))
                stack.append(_link_style(theme))
            elif tok.content:
                # html_inline, images (their alt text) and anything else: the text as written
                out.append(styled(f"[{tok.content}]" if kind == "image" else tok.content))
        result = "".join(out)
        return restore_escapes(result) if self.keep_escapes else result

    def _linkify(self, text: str, styled: TextStyle) -> str:
        """Plain text with bare ``http(s)://`` URLs shown as links."""
        if "://" not in text:
            return styled(text)
        out: list[str] = []
        pos = 0
        for match in _URL_RE.finditer(text):
            if match.start() > pos:
                out.append(styled(text[pos : match.start()]))
            url = match.group(0)
            shown = self.theme.underline(self.theme.fg("mdLink", url))
            if self.hyperlinks:
                shown = _OSC8_OPEN.format(url=url) + shown + _OSC8_CLOSE
            out.append(shown)
            pos = match.end()
        if pos < len(text):
            out.append(styled(text[pos:]))
        return "".join(out)

    def _code(self, content: str, stack: list[TextStyle]) -> str:
        result = self.theme.fg("mdCode", content)
        for style in reversed(stack):
            result = style(result)
        return result

    def _link_end(self, links: list[str], link_texts: list[list[str]]) -> str:
        url = links.pop() if links else ""
        text = "".join(link_texts.pop()) if link_texts else ""
        if self.hyperlinks and url:
            return _OSC8_CLOSE
        shown = url[len("mailto:") :] if url.startswith("mailto:") else url
        if not url or text in (shown, url):
            return ""
        return self.theme.fg("mdLinkUrl", f" ({url})")


def _link_style(theme: Theme) -> TextStyle:
    def style(text: str) -> str:
        return theme.underline(theme.fg("mdLink", text))

    return style
