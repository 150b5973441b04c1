"""Autocomplete providers added by extensions (`ctx.ui.add_autocomplete_provider`), ahead of pi's own.

A provider is a callable `provider(line, cursor)` or an object with `suggest(line, cursor)`; `line`
is the editor's current line and `cursor` the column in it. It answers None (pi's completion then
runs as usual), a `pi.tui.autocomplete.Suggestions`, or a list of items — `Completion`s, strings, or
dicts `{value, label?, description?, insert?}` — that replace the word before the cursor. The
newest provider asks first. A provider that raises is reported once and then skipped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from pi.tui.autocomplete import AutocompleteProvider, Completion, Suggestions

logger = logging.getLogger(__name__)
_WORD_RE = re.compile(r"\S*$")
ErrorReporter = Callable[[str, BaseException], None]


def completion_item(raw: Any) -> Completion | None:
    """A `Completion` from a `Completion`, a string or a `{value, label?, description?, insert?}` dict."""
    if isinstance(raw, Completion):
        return raw
    if isinstance(raw, str):
        return Completion(value=raw, label=raw, insert=raw)
    if isinstance(raw, dict) and isinstance(raw.get("value"), str):
        value = raw["value"]
        label = raw.get("label")
        description = raw.get("description")
        insert = raw.get("insert")
        return Completion(
            value=value,
            label=label if isinstance(label, str) else value,
            description=description if isinstance(description, str) else "",
            insert=insert if isinstance(insert, str) else value,
        )
    return None


def as_suggestions(answer: Any, line: str, cursor: int) -> Suggestions | None:
    """A provider's answer as suggestions for the word before `cursor` (None: no answer)."""
    if answer is None or isinstance(answer, Suggestions):
        return answer
    if not isinstance(answer, list | tuple):
        raise TypeError("an autocomplete provider must return None, Suggestions or a list of items")
    items = [item for item in (completion_item(raw) for raw in answer) if item is not None]
    if not items:
        return None
    match = _WORD_RE.search(line[:cursor])
    start = match.start() if match is not None else cursor
    return Suggestions(items, start, cursor, "extension")


class ExtensionAutocomplete(AutocompleteProvider):
    """pi's provider (commands, arguments, `@` files, paths) with the extensions' providers in front."""

    def __init__(self, base: AutocompleteProvider, on_error: ErrorReporter | None = None) -> None:
        super().__init__(
            lambda: base.commands,
            cwd=base.cwd,
            argument_completer=base.argument_completer,
            list_files=base.list_files,
            home=base.home,
            trigger_chars=base.trigger_chars,
        )
        self.base = base
        self.on_error = on_error
        self.providers: list[Any] = []
        self._failed: set[int] = set()

    def add(self, provider: Any) -> Callable[[], None]:
        if not callable(provider) and not callable(getattr(provider, "suggest", None)):
            raise TypeError("add_autocomplete_provider: expected a callable (line, cursor) or an object with suggest()")
        self.providers.insert(0, provider)

        def remove() -> None:
            if provider in self.providers:
                self.providers.remove(provider)

        return remove

    def suggest(self, line: str, cursor: int, *, first_line: bool = True) -> Suggestions | None:
        for provider in list(self.providers):
            if id(provider) in self._failed:
                continue
            ask = getattr(provider, "suggest", None)
            try:
                answer = ask(line, cursor) if callable(ask) else provider(line, cursor)
                found = as_suggestions(answer, line, cursor)
            except Exception as error:
                self._failed.add(id(provider))
                logger.warning("an extension autocomplete provider failed: %s", error)
                if self.on_error is not None:
                    self.on_error("autocomplete provider", error)
                continue
            if found is not None and found.items:
                return found
        return super().suggest(line, cursor, first_line=first_line)


__all__ = ["ExtensionAutocomplete", "as_suggestions", "completion_item"]
