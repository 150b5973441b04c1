"""Events the coding session adds to the agent's: automatic retries and compactions.

They travel on the same stream as the agent events, so JSON and RPC clients see them in order with
the turns they interrupt; field names are pi's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi.agent.events import AgentEvent


@dataclass(slots=True)
class AutoRetryStartEvent:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }


@dataclass(slots=True)
class AutoRetryEndEvent:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "success": self.success, "attempt": self.attempt}
        if self.final_error is not None:
            out["finalError"] = self.final_error
        return out


@dataclass(slots=True)
class AutoCompactionStartEvent:
    reason: Literal["threshold", "overflow"]
    type: Literal["auto_compaction_start"] = "auto_compaction_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}


@dataclass(slots=True)
class AutoCompactionEndEvent:
    result: dict[str, Any] | None
    aborted: bool
    will_retry: bool
    error_message: str | None = None
    type: Literal["auto_compaction_end"] = "auto_compaction_end"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "result": self.result,
            "aborted": self.aborted,
            "willRetry": self.will_retry,
        }
        if self.error_message is not None:
            out["errorMessage"] = self.error_message
        return out


SessionEvent: TypeAlias = (
    AgentEvent | AutoRetryStartEvent | AutoRetryEndEvent | AutoCompactionStartEvent | AutoCompactionEndEvent
)

__all__ = [
    "AutoCompactionEndEvent",
    "AutoCompactionStartEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "SessionEvent",
]
