"""Events the coding session adds to the agent's: every change of session state a client may draw.

They travel on the same stream as the agent events, so JSON and RPC clients see them in order with
the turns they interrupt. Names and JSON fields are pi's (camelCase on the wire); the Python fields
are their snake_case spellings.

| event | fields (wire) | when |
|---|---|---|
| `queue_update` | steering, followUp (complete queues, texts) | a message is queued, sent or cleared |
| `thinking_level_changed` | level | the effective thinking level changed |
| `model_select` | model, previousModel?, source (set, cycle, restore) | the model changed |
| `session_info_changed` | name (absent = cleared) | the session was named |
| `entry_appended` | entry | a custom entry, or a context edit omitting or shortening a message, was appended |
| `session_start` | reason (new, resume, fork), previousSessionFile? | another session file became current |
| `compaction_start` | reason (manual, threshold, overflow) | a compaction starts |
| `compaction_end` | reason, result?, aborted, willRetry, errorMessage? | it ended |
| `auto_retry_start` | attempt, maxAttempts, delayMs, errorMessage | a retry is scheduled |
| `auto_retry_end` | success, attempt, finalError? | the retries are over (after the good reply's `message_end`) |
| `summarization_retry_scheduled` | attempt, maxAttempts, delayMs, errorMessage | a summary request is sent again |
| `summarization_retry_attempt_start` | source (compaction, branchSummary), reason? | that attempt starts |
| `summarization_retry_finished` | (none) | the retried summary request has settled |
| `agent_settled` | aborted | no automatic work (retry, compaction, queued message) remains |
| `bash_execution_update` | delta, id? | output of a command the user runs |
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from msgspec import Struct, field

from pi.agent.events import AgentEvent
from pi.ai.types import Model

CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]
ModelSelectSource: TypeAlias = Literal["set", "cycle", "restore"]
SessionStartReason: TypeAlias = Literal["new", "resume", "fork"]
SummarySource: TypeAlias = Literal["compaction", "branchSummary"]


class AutoRetryStartEvent(Struct):
    """A run that failed with a transient error will be continued after `delay_ms` (`auto_retry_start`).

    `attempt` counts from 1; the failed reply is dropped from the context before the next attempt.
    """

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


class AutoRetryEndEvent(Struct):
    """Automatic retries are over (`auto_retry_end`); `attempt` is how many were made.

    `final_error` is the last attempt's error when it failed, or "Retry cancelled" when an abort ended the wait.
    """

    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "success": self.success, "attempt": self.attempt}
        if self.final_error is not None:
            out["finalError"] = self.final_error
        return out


class SummarizationRetryScheduledEvent(Struct):
    """A summary request (for a compaction or a branch summary) failed transiently and will be sent again.

    The next attempt starts after `delay_ms` with `summarization_retry_attempt_start`.
    """

    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["summarization_retry_scheduled"] = "summarization_retry_scheduled"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }


class SummarizationRetryAttemptStartEvent(Struct):
    """The wait announced by `summarization_retry_scheduled` is over and the request is sent again.

    Not sent when an abort cuts the wait short.
    """

    source: SummarySource
    reason: CompactionReason | None = None
    """Why the compaction runs (only for ``source == "compaction"``)."""
    type: Literal["summarization_retry_attempt_start"] = "summarization_retry_attempt_start"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "source": self.source}
        if self.reason is not None:
            out["reason"] = self.reason
        return out


class SummarizationRetryFinishedEvent(Struct):
    """Retrying a summary request is over, whether it finally succeeded, failed or was cancelled.

    Sent once for each summary request whose first reply failed with a retryable error, when retries are enabled.
    """

    type: Literal["summarization_retry_finished"] = "summarization_retry_finished"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type}


class CompactionStartEvent(Struct):
    """A compaction begins; a `compaction_end` with the same reason always follows."""

    reason: CompactionReason
    type: Literal["compaction_start"] = "compaction_start"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}


class CompactionEndEvent(Struct):
    """A compaction ended; sent once for each `compaction_start`.

    `result` is None unless a summary was stored; `aborted` means an abort or a `before_compact` hook cancelled
    it, and `error_message` is set when it failed. `will_retry` means the failed run continues next.
    """

    reason: CompactionReason
    result: dict[str, Any] | None
    """pi's CompactionResult JSON (summary, firstKeptEntryId, tokensBefore, estimatedTokensAfter, ...)."""
    aborted: bool
    will_retry: bool
    error_message: str | None = None
    type: Literal["compaction_end"] = "compaction_end"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "reason": self.reason}
        if self.result is not None:
            out["result"] = self.result
        out["aborted"] = self.aborted
        out["willRetry"] = self.will_retry
        if self.error_message is not None:
            out["errorMessage"] = self.error_message
        return out


class QueueUpdateEvent(Struct):
    """The steering or follow-up queue changed.

    Both queues are sent in full, in delivery order, so a client replaces what it shows.
    """

    steering: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)
    type: Literal["queue_update"] = "queue_update"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "steering": list(self.steering), "followUp": list(self.follow_up)}


class ThinkingLevelChangedEvent(Struct):
    """The effective thinking level changed, after clamping to what the model supports.

    Not sent when a requested level leaves it as it was.
    """

    level: str
    type: Literal["thinking_level_changed"] = "thinking_level_changed"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "level": self.level}


class ModelSelectEvent(Struct):
    """The session's model changed: set by a caller, cycled, or restored from a resumed session.

    `previous_model` is None when no model was selected before.
    """

    model: Model
    previous_model: Model | None
    source: ModelSelectSource
    type: Literal["model_select"] = "model_select"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "model": self.model.to_json_dict()}
        if self.previous_model is not None:
            out["previousModel"] = self.previous_model.to_json_dict()
        out["source"] = self.source
        return out


class SessionInfoChangedEvent(Struct):
    """The session was named or renamed; `name` is the current name, None when it was cleared."""

    name: str | None
    type: Literal["session_info_changed"] = "session_info_changed"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.name is not None:
            out["name"] = self.name
        return out


class EntryAppendedEvent(Struct):
    """An entry no message event announces was appended to the session file.

    These are custom and usage entries, and context edits that omit or shorten a message.
    """

    entry: Any
    """The session entry (an object with `to_dict()`)."""
    type: Literal["entry_appended"] = "entry_appended"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "entry": self.entry.to_dict()}


class SessionStartEvent(Struct):
    """Another session file became current: a new session, a resumed one, or a fork.

    `previous_session_file` is the file of the session left, None when that session had none.
    """

    reason: SessionStartReason
    previous_session_file: str | None = None
    type: Literal["session_start"] = "session_start"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "reason": self.reason}
        if self.previous_session_file is not None:
            out["previousSessionFile"] = self.previous_session_file
        return out


class AgentSettledEvent(Struct):
    """A prompt and all it set off (retries, compactions, queued messages) are done and the session is idle.

    Sent exactly once per prompt run, even when it failed; `aborted` tells whether it was aborted.
    """

    aborted: bool
    type: Literal["agent_settled"] = "agent_settled"

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": self.type, "aborted": self.aborted}


class BashExecutionUpdateEvent(Struct):
    """A piece of output, decoded as UTF-8, from a shell command the user runs directly, sent as it arrives."""

    delta: str
    id: str | None = None
    """The RPC command id of the `bash` command, when it had one."""
    type: Literal["bash_execution_update"] = "bash_execution_update"

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.id is not None:
            out["id"] = self.id
        out["delta"] = self.delta
        return out


SessionEvent: TypeAlias = (
    AgentEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | CompactionStartEvent
    | CompactionEndEvent
    | QueueUpdateEvent
    | ThinkingLevelChangedEvent
    | ModelSelectEvent
    | SessionInfoChangedEvent
    | EntryAppendedEvent
    | SessionStartEvent
    | AgentSettledEvent
    | BashExecutionUpdateEvent
    | SummarizationRetryScheduledEvent
    | SummarizationRetryAttemptStartEvent
    | SummarizationRetryFinishedEvent
)

__all__ = [
    "AgentSettledEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionUpdateEvent",
    "CompactionEndEvent",
    "CompactionReason",
    "CompactionStartEvent",
    "EntryAppendedEvent",
    "ModelSelectEvent",
    "ModelSelectSource",
    "QueueUpdateEvent",
    "SessionEvent",
    "SessionInfoChangedEvent",
    "SessionStartEvent",
    "SessionStartReason",
    "SummarizationRetryAttemptStartEvent",
    "SummarizationRetryFinishedEvent",
    "SummarizationRetryScheduledEvent",
    "SummarySource",
    "ThinkingLevelChangedEvent",
]
