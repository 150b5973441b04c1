"""Summing the stored usage of a session: its replies, and the model work recorded beside the
conversation (`usage` entries for cache refreshes and other kinds, the summary requests of
compactions and branch summaries).

Work beside the conversation never enters the context as a reply, but it was paid for: the
statistics (RPC `get_session_stats`, the footer, the HTML export) add every one of them in the file
(any branch; any `kind`, unknown kinds included) to the tokens and cost of its messages, so the
totals are the same live and after the session is opened again. One reader of the stored JSON
serves all of them, tolerant of hand-edited entries.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct


class UsageTotals(Struct):
    """Token counts in the statistics' keys, and the cost in dollars."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def add_json(self, usage: Any) -> None:
        """Add one stored usage object (`input`, `output`, `cacheRead`, `cacheWrite`, `cost.total`);
        missing or malformed fields count as zero, so a hand-edited entry never breaks the totals."""
        if not isinstance(usage, dict):
            return
        self.input += _count(usage.get("input"))
        self.output += _count(usage.get("output"))
        self.cache_read += _count(usage.get("cacheRead"))
        self.cache_write += _count(usage.get("cacheWrite"))
        cost = usage.get("cost")
        total = cost.get("total") if isinstance(cost, dict) else None
        if isinstance(total, int | float) and not isinstance(total, bool):
            self.cost += float(total)

    def token_dict(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
        }


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_entry_totals(entries: Iterable[Any]) -> UsageTotals:
    """The summed usage of the `usage`, `compaction` and `branch_summary` entries among `entries`
    (the latter two only when they recorded their summary request's usage)."""
    from pi.session.entries import BranchSummaryEntry, CompactionEntry, UsageEntry

    totals = UsageTotals()
    for entry in entries:
        if isinstance(entry, UsageEntry | CompactionEntry | BranchSummaryEntry):
            totals.add_json(entry.usage)
    return totals


__all__ = ["UsageTotals", "usage_entry_totals"]
