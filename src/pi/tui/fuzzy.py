"""Fuzzy matching for pickers and completion lists.

A query matches a text when its characters appear in the text in order (case-insensitive).
Several space-separated query words must all match. The score rewards matches at the start of
the text, at word starts and in consecutive runs, and penalises gaps, so ``mo`` ranks ``model``
above ``scoped-models`` above ``import``. Higher scores are better.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from msgspec import Struct

T = TypeVar("T")

_SEPARATORS = frozenset(" -_/.:@[](){}<>\\,")
_START_BONUS = 12.0
_WORD_START_BONUS = 8.0
_CONSECUTIVE_BONUS = 6.0
_BASE = 1.0
_GAP_PENALTY = 0.2
_LENGTH_PENALTY = 0.01


class FuzzyMatch(Struct, frozen=True):
    """A successful match: its score and the matched character positions in the text."""

    score: float
    positions: tuple[int, ...]


def _is_word_start(text: str, index: int) -> bool:
    if index == 0:
        return True
    prev = text[index - 1]
    if prev in _SEPARATORS:
        return True
    return prev.islower() and text[index].isupper()


def _match_word(query: str, text: str, lowered: str) -> FuzzyMatch | None:
    """Best greedy-with-lookahead match of one query word; None when it is not a subsequence."""
    best: FuzzyMatch | None = None
    # Try every occurrence of the first query character as an anchor; keep the best score.
    first = query[0]
    start = lowered.find(first)
    while start != -1:
        positions = [start]
        cursor = start + 1
        ok = True
        for ch in query[1:]:
            found = lowered.find(ch, cursor)
            if found == -1:
                ok = False
                break
            positions.append(found)
            cursor = found + 1
        if not ok:
            break
        score = _score(text, positions)
        if best is None or score > best.score:
            best = FuzzyMatch(score, tuple(positions))
        start = lowered.find(first, start + 1)
    return best


def _score(text: str, positions: list[int]) -> float:
    score = 0.0
    previous = -2
    for pos in positions:
        score += _BASE
        if pos == 0:
            score += _START_BONUS
        elif _is_word_start(text, pos):
            score += _WORD_START_BONUS
        if pos == previous + 1:
            score += _CONSECUTIVE_BONUS
        elif previous >= 0:
            score -= _GAP_PENALTY * (pos - previous - 1)
        previous = pos
    return score - _LENGTH_PENALTY * len(text)


def fuzzy_match(query: str, text: str) -> FuzzyMatch | None:
    """Match ``query`` against ``text``; an empty query matches everything with score 0."""
    words = query.lower().split()
    if not words:
        return FuzzyMatch(0.0, ())
    lowered = text.lower()
    total = 0.0
    positions: set[int] = set()
    for word in words:
        match = _match_word(word, text, lowered)
        if match is None:
            return None
        total += match.score
        positions.update(match.positions)
    return FuzzyMatch(total, tuple(sorted(positions)))


def fuzzy_filter(items: Sequence[T], query: str, key: Callable[[T], str]) -> list[T]:
    """The items matching ``query``, best first; ties keep the original order."""
    if not query.strip():
        return list(items)
    scored: list[tuple[float, int, T]] = []
    for index, item in enumerate(items):
        match = fuzzy_match(query, key(item))
        if match is not None:
            scored.append((-match.score, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
