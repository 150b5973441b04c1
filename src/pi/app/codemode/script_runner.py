"""Runs one script in its own worker process and answers its tool calls.

The parent keeps the tools: each `call` line from the worker becomes a tool call through the
caller given (the session's `ctx.execute_tool`, so hooks and permission gates apply), and its
value goes back as a `settle` line. The deadline and an abort end the script by killing the
worker's process group; the worker slot is released only after the child has exited.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal as signals
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from pi.ai.abort import AbortController, AbortSignal
from pi.app.codemode import protocol
from pi.app.codemode.models_global import ModelCalls
from pi.app.codemode.options import ScriptSource
from pi.app.codemode.script_result import CallRecord, ScriptRun
from pi.app.codemode.tool_values import script_value
from pi.app.codemode.worker_limit import WAIT_LIMIT_S, worker_limit
from pi.app.tool_usage import total_usage

ToolCaller = Callable[[str, dict[str, Any], AbortSignal], Awaitable[Mapping[str, Any]]]
ProgressFn = Callable[[list[CallRecord]], Any]
ARGS_PREVIEW = 200
ERROR_PREVIEW = 500


def no_worker_text(size: int) -> str:
    return (
        f"No codemode worker became free within {int(WAIT_LIMIT_S)} seconds. All {size} workers, shared by every "
        "session in this process, are held by other scripts. Retry after they finish.\n\nThe script did not start."
    )


def _preview(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _worker_env() -> dict[str, str]:
    """The worker imports this package: make sure it finds the same copy this process runs."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


class ScriptRunner:
    """One script run: see the module docstring."""

    def __init__(
        self,
        source: ScriptSource,
        tools: list[dict[str, Any]],
        store: dict[str, str],
        call_tool: ToolCaller,
        signal: AbortSignal | None = None,
        on_progress: ProgressFn | None = None,
        model_registry: Any = None,
        tool_call_id: str = "",
    ) -> None:
        self.source = source
        self.tools = tools
        self.store = store
        self.call_tool = call_tool
        self.signal = signal
        self.on_progress = on_progress
        self.calls: list[CallRecord] = []
        self.items: list[dict[str, Any]] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.calls_abort = AbortController()
        self.process: asyncio.subprocess.Process | None = None
        self.started = 0.0
        self.models: ModelCalls | None = None
        if model_registry is not None:
            self.models = ModelCalls(model_registry, tool_call_id, self.calls, self._progress)

    def _run(self, ok: bool, error: str | None = None, store: dict[str, Any] | None = None) -> ScriptRun:
        wall = time.monotonic() - self.started
        images = self.models.generated_images if self.models is not None else 0
        usage = total_usage(self.models.usage) if self.models is not None else None
        return ScriptRun(
            ok=ok,
            wall_s=wall,
            items=self.items,
            error=error,
            calls=self.calls,
            store_writes=store,
            generated_images=images,
            usage=usage,
        )

    def _timed_out(self) -> str:
        return f"Script timed out: Execution timed out after {self.source.timeout_ms} ms"

    async def run(self) -> ScriptRun:
        self.started = time.monotonic()
        deadline = self.started + self.source.timeout_ms / 1000
        limit = worker_limit()
        if not await limit.acquire(min(WAIT_LIMIT_S, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                return self._run(False, f"{self._timed_out()} while waiting for a free codemode worker")
            run = self._run(False, no_worker_text(limit.size))
            run.started = False
            return run
        try:
            return await self._supervise(deadline)
        finally:
            await self._stop()
            limit.release()

    async def _supervise(self, deadline: float) -> ScriptRun:
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                protocol.WORKER_MODULE,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=protocol.LINE_LIMIT,
                start_new_session=True,
                env=_worker_env(),
            )
        except OSError as error:
            return self._run(False, f"Script sandbox failed: could not start the worker: {error}")
        tools, namespaces = self.tools, _namespaces(self.tools)
        start = protocol.start_message(self.source.code, tools, namespaces, self.store, self.source.timeout_ms)
        start["models"] = self.models is not None
        self._send(start)
        aborted = asyncio.ensure_future(self.signal.wait()) if self.signal is not None else None
        try:
            return await self._loop(deadline, aborted)
        finally:
            if aborted is not None:
                aborted.cancel()

    async def _loop(self, deadline: float, aborted: asyncio.Future[None] | None) -> ScriptRun:
        process = self.process
        assert process is not None and process.stdout is not None
        while True:
            read = asyncio.ensure_future(process.stdout.readline())
            waiting: set[asyncio.Future[Any]] = {read, *([aborted] if aborted is not None else [])}
            done, _ = await asyncio.wait(
                waiting, timeout=max(deadline - time.monotonic(), 0.0), return_when="FIRST_COMPLETED"
            )
            if read not in done:
                read.cancel()
                if aborted is not None and aborted in done:
                    reason = self.signal.reason if self.signal is not None else None
                    return self._run(False, f"Script aborted: {reason or 'the tool call was aborted'}")
                return self._run(False, self._timed_out())
            line = read.result()
            if not line:
                return self._run(False, await self._crash_text())
            try:
                message = protocol.decode(line)
            except ValueError as error:
                return self._run(False, f"Script sandbox failed: {error}")
            outcome = self._handle(message)
            if outcome is not None:
                return outcome

    def _handle(self, message: dict[str, Any]) -> ScriptRun | None:
        op = message.get("op")
        if op == "output" and isinstance(message.get("item"), dict):
            self.items.append(message["item"])
        elif op == "call" and message.get("kind") == "model":
            self._track(self._model_call(str(message.get("id")), str(message.get("name")), message.get("args")))
        elif op == "call":
            self._start_call(str(message.get("id")), str(message.get("name")), message.get("args"))
        elif op == "done":
            ok = bool(message.get("ok"))
            return self._run(ok, None if ok else str(message.get("error") or "Error"), message.get("storeWrites"))
        return None

    def _start_call(self, call_id: str, name: str, args: Any) -> None:
        record = CallRecord(id=call_id, name=name, args=_preview(args, ARGS_PREVIEW))
        self.calls.append(record)
        self._progress()
        self._track(self._call(record, name, args if isinstance(args, dict) else {}))

    def _track(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _model_call(self, call_id: str, name: str, args: Any) -> None:
        """One `models.*` call: its value, or the error text the script's promise rejects with."""
        if self.models is None:
            self._send(protocol.settle_message(call_id, False, "The models global is not available here"))
            return
        try:
            ok, value = True, await self.models.call(name, args, self.calls_abort.signal)
        except Exception as error:
            ok, value = False, str(error) or type(error).__name__
        self._send(protocol.settle_message(call_id, ok, value))

    async def _call(self, record: CallRecord, name: str, args: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            outcome = await self.call_tool(name, args, self.calls_abort.signal)
            ok, value = script_value(name, outcome)
        except asyncio.CancelledError:
            record.status = "cancelled"
            raise
        except Exception as error:
            ok, value = False, str(error) or type(error).__name__
        record.duration_ms = (time.monotonic() - started) * 1000
        if record.status == "cancelled":
            return
        record.status = "ok" if ok else "error"
        if not ok:
            record.error = _preview(value, ERROR_PREVIEW)
        self._progress()
        self._send(protocol.settle_message(record.id, ok, value))

    def _send(self, message: dict[str, Any]) -> None:
        process = self.process
        if process is None or process.stdin is None or process.returncode is not None:
            return
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.write(protocol.encode(message))

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.calls)

    async def _crash_text(self) -> str:
        process = self.process
        assert process is not None
        code = await process.wait()
        stderr = (await process.stderr.read()).decode("utf-8", "replace").strip() if process.stderr else ""
        last = stderr.splitlines()[-1] if stderr else ""
        return f"Script sandbox failed: the worker exited with code {code}" + (f": {last}" if last else "")

    async def _stop(self) -> None:
        """Cancel running calls and end the worker (its whole process group)."""
        self.calls_abort.abort("The script ended")
        for record in self.calls:
            if record.status == "running":
                record.status = "cancelled"
        for task in list(self.tasks):
            task.cancel()
        process = self.process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signals.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


def _namespaces(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from pi.app.codemode.catalog import namespaces

    return namespaces(tools)


__all__ = ["ScriptRunner", "ToolCaller", "no_worker_text"]
