"""Commands the user runs by hand (`!cmd`, RPC `bash`): run, stream, record for the model.

Output streams as `bash_execution_update` events while the command runs. The result becomes a
`bashExecution` message: stored at once, and seen by the model with the next prompt (unless
excluded from the context). A command finished while a run goes on waits for the run to end, so it
never lands between a tool call and its result; it is stored as soon as the session is idle again,
before the client hears `agent_settled`, so a client reading the session then finds it (as in pi).
"""

from __future__ import annotations

import codecs
import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from msgspec import Struct

from pi.ai.abort import AbortController
from pi.app.extensions.results import result_field
from pi.app.session_events import BashExecutionUpdateEvent
from pi.app.session_runtime import SessionCore


class BashResult(Struct, frozen=True):
    """How a command the user ran ended; `exit_code` is None when it was cancelled, 128 + n after signal n.

    `output` is the tail the model also sees; when it is truncated, `full_output_path` holds all of it.
    """

    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """pi's shape: no `exitCode` at all when there is none (a cancelled command), rather than null."""
        out: dict[str, Any] = {"output": self.output}
        if self.exit_code is not None:
            out["exitCode"] = self.exit_code
        out["cancelled"] = self.cancelled
        out["truncated"] = self.truncated
        if self.full_output_path:
            out["fullOutputPath"] = self.full_output_path
        return out


BashGate = Callable[[str, bool], Awaitable[Any]]
"""Asked before a user command runs (extensions' `user_bash`): None runs it here; else an object with
`result` (what to record instead) or `operations` (whose `exec(command, cwd, options)` runs it).
Raising blocks the command."""


class UserBash:
    def __init__(self, core: SessionCore, environment: Any) -> None:
        self.core = core
        self._environment = environment
        self._controller: AbortController | None = None
        self._pending: list[Any] = []
        self.before_run: BashGate | None = None
        # Subscribed before any mode's listener, so the messages are stored before the mode reports the event.
        core.events.subscribe(self._on_event, awaited=True)

    def _on_event(self, event: Any) -> None:
        """The first event after the run ended (its `agent_settled`, a compaction's end) stores what waited."""
        core = self.core
        if self._pending and not (core.run.busy or core.agent.state.is_streaming):
            self.flush_pending()

    async def execute(
        self, command: str, exclude_from_context: bool = False, update_id: str | None = None
    ) -> BashResult:
        from pi.session.messages import BashExecutionMessage
        from pi.tools.shell import CommandAborted, OutputCapture, run_shell_command

        core = self.core
        capture = OutputCapture()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")

        def on_data(chunk: bytes) -> None:
            capture.feed(chunk)
            text = decoder.decode(chunk)
            if text:
                core.events.emit_nowait(BashExecutionUpdateEvent(text, update_id))

        # The controller exists before anything is awaited: an abort that comes while extensions are
        # still deciding (Esc pressed right after Enter) cancels the command instead of being lost.
        controller = AbortController()
        self._controller = controller
        cancelled = False
        exit_code: int | None = None
        try:
            decision = await self.before_run(command, exclude_from_context) if self.before_run is not None else None
        except BaseException:
            self._controller = None
            raise
        given = getattr(decision, "result", None)
        operations = getattr(decision, "operations", None)
        env: Mapping[str, str] = {**os.environ, **self._environment()}
        try:
            if controller.signal.aborted:
                cancelled = True
            elif given is None and operations is not None:
                exit_code = await _run_operations(operations, command, str(core.cwd), on_data, controller, env)
            elif given is None:
                result = await run_shell_command(
                    command,
                    str(core.cwd),
                    on_data=on_data,
                    signal=controller.signal,
                    shell_path=core.settings.get("shellPath"),
                    env=env,
                )
                exit_code = result.shell_status()  # 128 + the signal when one killed it, as pi reports
        except CommandAborted:
            cancelled = True
        finally:
            self._controller = None
            capture.finish()
        snapshot = capture.snapshot()
        bash = BashResult(
            output=snapshot.text,
            exit_code=exit_code,
            cancelled=cancelled or controller.signal.aborted,
            truncated=snapshot.truncation.truncated,
            full_output_path=snapshot.full_output_path,
        )
        if given is not None:
            bash = _given_result(given)
        message = BashExecutionMessage(
            command=command,
            output=bash.output,
            exit_code=bash.exit_code,
            cancelled=bash.cancelled,
            truncated=bash.truncated,
            full_output_path=bash.full_output_path,
            exclude_from_context=exclude_from_context or None,
        )
        if core.run.busy or core.agent.state.is_streaming:
            self._pending.append(message)
        else:
            core.agent.append_message(message)
            core.manager.append_message(message)
        return bash

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    def flush_pending(self) -> None:
        """Add the commands that finished during the last run to the transcript."""
        core = self.core
        for message in self._pending:
            core.agent.append_message(message)
            core.manager.append_message(message)
        self._pending.clear()


def _given_result(value: Any) -> BashResult:
    """A `{output, exitCode, cancelled, truncated, fullOutputPath?}` an extension ran the command into."""
    code = result_field(value, "exit_code", "exitCode")
    return BashResult(
        output=str(result_field(value, "output") or ""),
        exit_code=int(code) if code is not None else None,
        cancelled=bool(result_field(value, "cancelled")),
        truncated=bool(result_field(value, "truncated")),
        full_output_path=result_field(value, "full_output_path", "fullOutputPath"),
    )


async def _run_operations(
    operations: Any,
    command: str,
    cwd: str,
    on_data: Callable[[bytes], None],
    controller: AbortController,
    env: Mapping[str, str],
) -> int | None:
    """Run `command` through an extension's `exec(command, cwd, options)` (sync or async)."""
    run = result_field(operations, "exec")
    if not callable(run):
        raise TypeError("user_bash operations need an exec(command, cwd, options) function")

    def feed(chunk: Any) -> None:
        on_data(chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk))

    options = {"on_data": feed, "signal": controller.signal, "env": dict(env)}
    outcome = run(command, cwd, options)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    code = result_field(outcome, "exit_code", "exitCode") if outcome is not None else None
    return int(code) if code is not None else None


__all__ = ["BashGate", "BashResult", "UserBash"]
