"""What the session picker shows: the rows in each sort, the search rules, the age column.

Threaded order nests a fork under the session it was forked from (`└─`); Recent is newest first;
Fuzzy orders by how well the search matches. The search is fuzzy, or a regular expression after
`re:`, or an exact phrase in double quotes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal

from msgspec import Struct

from pi.session.listing import SessionInfo
from pi.tui.fuzzy import fuzzy_match

Sort = Literal["threaded", "recent", "fuzzy"]
SORTS: tuple[Sort, ...] = ("threaded", "recent", "fuzzy")


class SessionRow(Struct, frozen=True):
    info: SessionInfo
    depth: int = 0


def title_of(info: SessionInfo) -> str:
    """The session's name, else its first user message, on one line."""
    return " ".join((info.name or info.first_message or "").split())


def age(modified: datetime, now: datetime | None = None) -> str:
    """`now`, `5m`, `3h`, `2d`, `4w`, `7mo`, `1y`."""
    moment = now or datetime.now(UTC)
    seconds = max(0, int((moment - modified).total_seconds()))
    if seconds < 60:
        return "now"
    for unit, size in (("y", 31536000), ("mo", 2592000), ("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"


def match_score(info: SessionInfo, query: str) -> float | None:
    """How well `info` matches the search (higher is better), or None when it does not."""
    query = query.strip()
    if not query:
        return 0.0
    haystack = f"{info.name or ''} {info.first_message} {info.all_messages_text}"
    if query.startswith("re:"):
        try:
            return 0.0 if re.search(query[3:], haystack, re.IGNORECASE) else None
        except re.error:
            return None
    phrases = re.findall(r'"([^"]+)"', query)
    rest = re.sub(r'"[^"]*"', " ", query)
    lowered = haystack.lower()
    if any(p.lower() not in lowered for p in phrases):
        return None
    if not rest.strip():
        return 0.0
    title = fuzzy_match(rest, title_of(info))
    if title is not None:
        return title.score + 1000.0
    body = fuzzy_match(rest, haystack)
    return body.score if body is not None else None


def _threaded(infos: Sequence[SessionInfo]) -> list[SessionRow]:
    by_path = {str(i.path): i for i in infos}
    children: dict[str, list[SessionInfo]] = {}
    roots: list[SessionInfo] = []
    for info in infos:
        parent = info.parent_session_path
        if parent and parent in by_path and parent != str(info.path):
            children.setdefault(parent, []).append(info)
        else:
            roots.append(info)
    rows: list[SessionRow] = []
    seen: set[str] = set()

    def walk(info: SessionInfo, depth: int) -> None:
        key = str(info.path)
        if key in seen:
            return
        seen.add(key)
        rows.append(SessionRow(info, depth))
        for child in sorted(children.get(key, []), key=lambda i: i.recency, reverse=True):
            walk(child, depth + 1)

    for root in sorted(roots, key=lambda i: i.recency, reverse=True):
        walk(root, 0)
    return rows


def arrange(infos: Sequence[SessionInfo], sort: Sort, query: str, named_only: bool) -> list[SessionRow]:
    """The rows to show for a sort, a search and the named-only filter."""
    scored = [(info, match_score(info, query)) for info in infos if not named_only or info.name]
    kept = [(info, score) for info, score in scored if score is not None]
    if sort == "fuzzy":
        kept.sort(key=lambda pair: pair[0].recency, reverse=True)
        kept.sort(key=lambda pair: -(pair[1] or 0.0))  # stable: equal scores stay newest first
        return [SessionRow(info) for info, _ in kept]
    if sort == "recent" or query.strip():
        kept.sort(key=lambda pair: pair[0].recency, reverse=True)
        return [SessionRow(info) for info, _ in kept]
    return _threaded([info for info, _ in kept])


__all__ = ["SORTS", "SessionRow", "Sort", "age", "arrange", "match_score", "title_of"]
