"""The interactive transcript's cache notices (`showCacheMissNotices`), as live events arrive.

`CacheNotices(app)` is told of each appended entry and each finished reply. With the setting on
(read each time, so `/settings` applies at once) it adds `Cache warmed: $…` in dim text after a
refresh, growing one line over back-to-back refreshes, and `Cache miss…: … tokens re-billed` in the
warning colour after a reply that paid for a significant miss. When the transcript is drawn again
from the stored session (a resume), the same notices are derived from the stored entries and put
after the messages they follow. With the setting off nothing is shown and nothing is computed.
The wording and thresholds are `pi.app.cache_warming_notices`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.app.cache_warming_notices import cache_miss_text, cache_warmed_text, detect_cache_miss

if TYPE_CHECKING:
    from pi.tui.theme import Theme

SETTING = "showCacheMissNotices"


class NoticeLine:
    """A blank line, then one text in one theme colour, padded like the other notices."""

    def __init__(self, text: str, token: str, theme: Theme, pad: int = 1) -> None:
        self.text = text
        self.token = token
        self.theme = theme
        self.pad = pad

    def set_text(self, text: str) -> None:
        self.text = text

    def invalidate(self) -> None:
        """Nothing is cached: the text is wrapped at each render."""

    def render(self, width: int) -> list[str]:
        from pi.app.modes.interactive.components.formatting import inner_width, wrap

        pad = self.pad if width > 2 * self.pad else 0
        body = wrap(self.theme.fg(self.token, self.text), inner_width(width, pad))
        return ["", *(" " * pad + line for line in body)] if body else []


class CacheNotices:
    """Adds the notices to `app.chat` (an `InteractiveApp`, duck-typed: session, chat, theme)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._warm: tuple[NoticeLine, str | None, float] | None = None
        """The last refresh line, its note and the cost it shows (extended while it stays last)."""

    def enabled(self) -> bool:
        return self.app.session.settings.get(SETTING) is True

    def on_entry(self, entry: Any) -> None:
        """An appended entry: a successful refresh is a `usage` entry of kind `cache_warm`."""
        if getattr(entry, "type", None) != "usage" or getattr(entry, "kind", None) != "cache_warm":
            return
        if not self.enabled():
            return
        usage = entry.usage if isinstance(entry.usage, dict) else {}
        cost_json = usage.get("cost")
        cost = cost_json.get("total", 0.0) if isinstance(cost_json, dict) else 0.0
        cost = float(cost) if isinstance(cost, int | float) else 0.0
        chat = self.app.chat
        last = chat.children[-1] if chat.children else None
        if self._warm is not None and self._warm[0] is last and self._warm[1] == entry.note:
            line, note, shown = self._warm
            self._warm = (line, note, shown + cost)
            line.set_text(cache_warmed_text(shown + cost, note))
            return
        line = NoticeLine(cache_warmed_text(cost, entry.note), "dim", self.app.theme, chat.output_pad)
        self._warm = (line, entry.note, cost)
        chat.add(line)

    def for_rebuild(self, messages: Sequence[Any]) -> Callable[[Any], None] | None:
        """The transcript is drawn again from stored messages (resume, compaction, tree moves):
        the function to call after each message is drawn, adding the notices that follow it.
        None (no work at all) while the setting is off."""
        self._warm = None
        if not self.enabled() or not messages:
            return None
        from pi.app.cache_warming_notices import stored_notices

        session = self.app.session
        notices = stored_notices(session.session.get_branch(), self._cache_read_price)

        def after(message: Any) -> None:
            chat = self.app.chat
            for notice in notices.get(id(message), ()):
                token = "warning" if notice.kind == "miss" else "dim"
                line = NoticeLine(notice.text, token, self.app.theme, chat.output_pad)
                chat.add(line)
                self._warm = (line, notice.note, notice.cost) if notice.kind == "warm" else None

        return after

    def _cache_read_price(self, provider: str, model_id: str) -> float:
        model = self.app.session.model_registry.find(provider, model_id)
        return float(model.cost.cache_read) if model is not None else 0.0

    def on_reply(self, message: Any) -> None:
        """A finished assistant reply: show its cache miss when significant."""
        if getattr(message, "stop_reason", None) in ("error", "aborted") or not self.enabled():
            return
        from pi.agent.messages import to_jsonable

        session = self.app.session
        before = []
        for entry in session.session.get_entries():
            if getattr(entry, "parsed", None) is message:
                break  # the reply is stored already: compare with what came before it
            before.append(entry)
        data = to_jsonable(message)
        if not isinstance(data, dict):
            return
        miss = detect_cache_miss(before, data, self._cache_read_price(message.provider, message.model))
        text = cache_miss_text(miss) if miss is not None else None
        if text is not None:
            chat = self.app.chat
            chat.add(NoticeLine(text, "warning", self.app.theme, chat.output_pad))


__all__ = ["CacheNotices", "NoticeLine"]
