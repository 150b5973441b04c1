"""Commands the user runs by hand (`!cmd`, RPC `bash`): run, stream, record for the model.

Output streams as `bash_execution_update` events while the command runs. The result becomes a
`bashExecution` message: stored at once, and seen by the model with the next prompt (unless
excluded from the context). A command finished while a run goes on waits for the run to end, so it
never lands between a tool call and its result.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pi.ai.abort import AbortController
from pi.app.session_events import BashExecutionUpdateEvent
from pi.app.session_runtime import SessionCore


@dataclass(slots=True, frozen=True)
class BashResult:
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "output": self.output,
            "exitCode": self.exit_code,
            "cancelled": self.cancelled,
            "truncated": self.truncated,
        }
        if self.full_output_path:
            out["fullOutputPath"] = self.full_output_path
        return out


class UserBash:
    def __init__(self, core: SessionCore, environment: Any) -> None:
        self.core = core
        self._environment = environment
        self._controller: AbortController | None = None
        self._pending: list[Any] = []

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

        controller = AbortController()
        self._controller = controller
        cancelled = False
        exit_code: int | None = None
        env: Mapping[str, str] = {**os.environ, **self._environment()}
        try:
            result = await run_shell_command(
                command,
                str(core.cwd),
                on_data=on_data,
                signal=controller.signal,
                shell_path=core.settings.get("shellPath"),
                env=env,
            )
            exit_code = result.exit_code
        except CommandAborted:
            cancelled = True
        finally:
            self._controller = None
            capture.finish()
        snapshot = capture.snapshot()
        bash = BashResult(
            output=snapshot.text,
            exit_code=exit_code,
            cancelled=cancelled,
            truncated=snapshot.truncation.truncated,
            full_output_path=snapshot.full_output_path,
        )
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


__all__ = ["BashResult", "UserBash"]
