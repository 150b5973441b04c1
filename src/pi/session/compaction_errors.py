"""The errors a compaction or a summary request raises, apart from the code that raises them.

Code that only needs to catch or subclass them (the session's compaction control, which a print
run loads at start-up) then does not load the summarizer and the cut-point search, which only a
compaction uses.
"""

from __future__ import annotations


class CompactionError(Exception):
    """The summary could not be produced; the message is what the user sees."""


class CompactionCancelledError(CompactionError):
    def __init__(self) -> None:
        super().__init__("Compaction cancelled")


class NoSummaryModelError(CompactionError):
    def __init__(self) -> None:
        super().__init__("No model available for summarization")


__all__ = ["CompactionCancelledError", "CompactionError", "NoSummaryModelError"]
