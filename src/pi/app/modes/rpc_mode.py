"""RPC mode: JSON commands on stdin, JSON responses and events on stdout, one per line.

Every command may carry an ``id`` that its response echoes, so a client can pipeline commands.
``prompt`` answers once its preflight is done (``data.disposition``: started, queued or handled) and
the run streams as events; a failure after that arrives as events only. A line that is not JSON is
answered with a ``parse`` error instead of ending the process: one bad line from a client must not
cost the user their session. Events are written in step with the session (an awaited listener), so
they interleave with responses in the order things happened.

The end of stdin ends the process at once, as pi's does: the client that could read the answers is
gone, so whatever runs (a prompt, a tool's command, the user's `bash`, a compaction) is stopped, no
further line is written, and the exit status is 0. A client that wants a run to finish keeps stdin
open until `agent_settled`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

from pi.agent.messages import to_jsonable
from pi.ai.types import ImageContent
from pi.app.agent_session import AgentSession
from pi.app.model_resolver import all_thinking_levels
from pi.app.modes.jsonl import JsonlWriter, stdin_lines
from pi.app.modes.rpc_shapes import commands_json, session_stats_json, state_json
from pi.app.session_events import SessionEvent
from pi.app.session_prompting import StreamingBehavior

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
logger = logging.getLogger(__name__)


class _JsonNull:
    """A handler's answer that is JSON null on the wire (`"data":null`), unlike None (no `data` key).

    pi answers `cycle_model` and `cycle_thinking_level` that way when there is nothing to cycle to;
    clients test for that null."""


JSON_NULL = _JsonNull()

_NOT_RPC_EVENTS = frozenset({"session_start", "model_select"})
"""Session events that exist for extensions and the UI only: pi's RPC stream does not carry them (its
clients learn of a model or session change from the command's response, or by asking)."""

_SESSION_MOVES = frozenset({"new_session", "switch_session", "fork", "clone"})

_STREAMING_BEHAVIORS = ("steer", "followUp")

_BESIDE_READER = frozenset({"bash", "compact"})
"""Commands that wait on outside work run beside the command reader, so that the command that stops
them (`abort_bash`, `abort`) is read and carried out while they wait; the others run in order."""


class RpcError(Exception):
    """A command that cannot be carried out; the message goes back to the client."""


def _images(command: dict[str, Any]) -> list[ImageContent] | None:
    raw = command.get("images")
    if not raw:
        return None
    if not isinstance(raw, list):
        raise RpcError('"images" must be a list of {"type":"image","data":<base64>,"mimeType":...}')
    return [ImageContent.model_validate(item) for item in raw]


def _text(command: dict[str, Any], field: str = "message") -> str:
    value = command.get(field)
    if value is None:
        raise RpcError(f'Missing required field "{field}"')
    if not isinstance(value, str):
        raise RpcError(f'"{field}" must be a string')
    return value


def _choice(command: dict[str, Any], field: str, label: str, valid: tuple[str, ...]) -> str:
    """`command[field]`, one of `valid`; an error that names the field and the allowed values otherwise."""
    value = command.get(field)
    allowed = f"Valid values: {', '.join(valid)}"
    if value is None:
        raise RpcError(f'Missing required field "{field}". {allowed}')
    if not isinstance(value, str) or value not in valid:
        raise RpcError(f"Invalid {label} {json.dumps(value)}. {allowed}")
    return value


class RpcServer:
    def __init__(self, session: AgentSession, writer: JsonlWriter | None = None) -> None:
        self.session = session
        self.writer = writer or JsonlWriter()
        self._tasks: set[asyncio.Task[None]] = set()
        self._handlers: dict[str, Handler] = {
            "prompt": self._prompt,
            "steer": self._steer,
            "follow_up": self._follow_up,
            "abort": self._abort,
            "get_state": self._get_state,
            "get_messages": self._get_messages,
            "set_model": self._set_model,
            "cycle_model": self._cycle_model,
            "get_available_models": self._get_available_models,
            "set_thinking_level": self._set_thinking_level,
            "cycle_thinking_level": self._cycle_thinking_level,
            "set_steering_mode": self._set_steering_mode,
            "set_follow_up_mode": self._set_follow_up_mode,
            "set_auto_compaction": self._set_auto_compaction,
            "set_auto_retry": self._set_auto_retry,
            "abort_retry": self._abort_retry,
            "bash": self._bash,
            "abort_bash": self._abort_bash,
            "get_session_stats": self._get_session_stats,
            "get_last_assistant_text": self._get_last_assistant_text,
            "set_session_name": self._set_session_name,
            "get_commands": self._get_commands,
            "compact": self._compact,
            "new_session": self._new_session,
            "switch_session": self._switch_session,
            "fork": self._fork,
            "get_fork_messages": self._get_fork_messages,
            "export_html": self._export_html,
            "clear_queue": self._clear_queue,
            "get_available_thinking_levels": self._get_available_thinking_levels,
            "clone": self._clone,
            "get_entries": self._get_entries,
            "get_tree": self._get_tree,
        }
        self._unsubscribe = session.subscribe(self._on_event, awaited=True)
        self.ui: Any = None
        """The `ctx.ui` extensions get (`RpcUI`), created when the session has extensions."""
        self._stop = asyncio.Event()
        self._shutdown_requested = False
        self._active_commands = 0
        self._closed = False
        """Set at the end of input: nothing more is written."""
        self._moving = 0
        """Session moves being handled: the emptied queue they report is not news to the client."""

    async def bind_extensions(self) -> None:
        """Give the session's extensions the RPC `ctx.ui`, report their errors, emit `session_start`."""
        session = self.session
        if session.extension_runner is None:
            return
        from pi.app.extensions.rpc_ui import RpcUI

        self.ui = RpcUI(self.writer.write, on_prompt=session.notify_extension_ui_prompt)
        session.on_extension_error(self._on_extension_error)
        session.set_extension_shutdown_handler(self._request_shutdown)
        await session.bind_extensions(ui=self.ui, mode="rpc")

    def _on_extension_error(self, info: Any) -> None:
        if self._closed:
            return
        self.writer.write(
            {"type": "extension_error", "extensionPath": info.extension_path, "event": info.event, "error": info.error}
        )

    def _request_shutdown(self) -> None:
        """`ctx.shutdown()`: stop reading once the command being handled has answered and the run settled."""
        self._shutdown_requested = True
        if self._active_commands == 0:
            self._spawn(self._stop_when_idle())

    async def _stop_when_idle(self) -> None:
        await self.session.wait_for_idle()
        self._stop.set()

    def register(self, command: str, handler: Handler) -> None:
        """Add a command (sessions, compaction and export register theirs here)."""
        self._handlers[command] = handler

    def _on_event(self, event: SessionEvent) -> None:
        if self._closed or event.type in _NOT_RPC_EVENTS:
            return
        out = event.to_json_dict()
        if self._moving and event.type == "queue_update" and not out["steering"] and not out["followUp"]:
            return  # the new session starts with empty queues; a message queued by its start handlers still shows
        self.writer.write(out)

    def _respond(
        self, command_id: Any, command: Any, success: bool, data: Any = None, error: str = "", *, named: bool = True
    ) -> None:
        """One response line; `named=False` leaves out `command` (a command that had no `type` key)."""
        if self._closed:
            return
        out: dict[str, Any] = {}
        if command_id is not None:
            out["id"] = command_id
        out["type"] = "response"
        if named:
            out["command"] = command
        out["success"] = success
        if success:
            if data is JSON_NULL:
                out["data"] = None
            elif data is not None:
                out["data"] = data
        else:
            out["error"] = error
        self.writer.write(out)

    async def handle_line(self, line: str) -> None:
        if not line.strip():
            return
        try:
            command = json.loads(line)
        except ValueError as exc:
            self._respond(None, "parse", False, error=f"Failed to parse command: {exc}")
            return
        if not isinstance(command, dict):
            self._respond(None, "parse", False, error="Failed to parse command: expected a JSON object")
            return
        command_type = command.get("type")
        if command_type == "extension_ui_response":
            if self.ui is not None:
                self.ui.handle_response(command)
            return
        if command_type is None:
            self._respond(
                command.get("id"),
                None,
                False,
                error='Missing required field "type" (the command name, e.g. "get_state")',
                named="type" in command,
            )
            return
        handler = self._handlers.get(command_type) if isinstance(command_type, str) else None
        if handler is None or not isinstance(command_type, str):
            shown = command_type if isinstance(command_type, str) else json.dumps(command_type)
            self._respond(command.get("id"), command_type, False, error=f"Unknown command: {shown}")
            return
        if command_type in _BESIDE_READER or self._is_extension_command(command):
            self._spawn(self._dispatch(handler, command, command_type))
            # Let it start, so that a stop command already waiting in the input finds it running.
            await asyncio.sleep(0)
        else:
            await self._dispatch(handler, command, command_type)

    def _is_extension_command(self, command: dict[str, Any]) -> bool:
        """Whether extension code may wait on a dialog while this command runs, so that the reader must
        go on reading (the answer comes as a later line): an extension `/command`, or a session change
        an extension gates."""
        runner = self.session.extension_runner
        if runner is None:
            return False
        kind = command.get("type")
        if kind in ("new_session", "switch_session"):
            return runner.has_handlers("session_before_switch")
        if kind in ("fork", "clone"):
            return runner.has_handlers("session_before_fork")
        message = command.get("message")
        if kind != "prompt" or not isinstance(message, str):
            return False
        return message.startswith("/") and runner.registry.command(message[1:].partition(" ")[0]) is not None

    async def _dispatch(self, handler: Handler, command: dict[str, Any], command_type: str) -> None:
        command_id = command.get("id")
        self._active_commands += 1
        moving = command_type in _SESSION_MOVES
        self._moving += moving
        try:
            data = await handler(command)
        except Exception as exc:  # any failure of one command is that command's error response
            self._respond(command_id, command_type, False, error=str(exc) or type(exc).__name__)
            return
        finally:
            self._moving -= moving
            self._active_commands -= 1
            if self._shutdown_requested and self._active_commands == 0:
                self._spawn(self._stop_when_idle())
        self._respond(command_id, command_type, True, data)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self, lines: AsyncIterator[str] | None = None) -> int:
        await self.bind_extensions()
        source = lines if lines is not None else stdin_lines()
        try:
            while True:
                line = await self._next_line(source)
                if line is None:
                    break
                await self.handle_line(line)
            if self._stop.is_set():  # an extension's `ctx.shutdown()`: what runs may finish
                await self.session.wait_for_idle()
                for task in list(self._tasks):
                    await task
            else:
                await self._end_of_input()
        finally:
            # Also when a signal cancelled the loop: `session_shutdown`, and MCP servers closed in order.
            await self.session.shutdown_extensions("quit")
        return 0

    async def _end_of_input(self) -> None:
        """Stop everything at once and write nothing more: the client closed stdin (see the module docstring).

        The commands of running tools and of the user's `bash` are killed first, so that no child
        outlives pi and the abort does not wait out a process's grace period. Commands still waiting
        (an extension dialog whose answer can no longer come) are cancelled.
        """
        self._closed = True
        self._unsubscribe()
        shell = sys.modules.get("pi.tools.shell")  # never loaded: no command ever ran
        if shell is not None:
            shell.kill_tracked_process_groups()
        session = self.session
        session.abort_bash()
        session.abort_retry()
        await session.abort()
        pending = [task for task in self._tasks if not task.done()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _next_line(self, source: AsyncIterator[str]) -> str | None:
        """The next command line, or None at the end of input or once an extension asked to shut down."""
        if self._stop.is_set():
            return None
        reading = asyncio.ensure_future(anext(source))
        stopping = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not reading.done():
            reading.cancel()
            return None
        try:
            return reading.result()
        except StopAsyncIteration:
            return None

    # -- commands ----------------------------------------------------------------------------------

    async def _prompt(self, command: dict[str, Any]) -> dict[str, Any]:
        text, images = _text(command), _images(command)
        behavior: StreamingBehavior | None = None
        if command.get("streamingBehavior") is not None:
            chosen = _choice(command, "streamingBehavior", "streamingBehavior", _STREAMING_BEHAVIORS)
            behavior = "steer" if chosen == "steer" else "followUp"
        disposition, run = await self.session.start_prompt(text, images, behavior, source="rpc")
        if run is not None:
            self._spawn(self._run_prompt(run))
        return {"disposition": disposition}

    async def _run_prompt(self, run: Callable[[], Any]) -> None:
        try:
            await run()
        except Exception:  # a failure after acceptance is in the event stream already; keep serving
            logger.exception("a prompt run failed")

    async def _steer(self, command: dict[str, Any]) -> dict[str, Any]:
        disposition = await self.session.queue_message(_text(command), _images(command), "steer", source="rpc")
        return {"disposition": disposition}

    async def _follow_up(self, command: dict[str, Any]) -> dict[str, Any]:
        disposition = await self.session.queue_message(_text(command), _images(command), "followUp", source="rpc")
        return {"disposition": disposition}

    async def _abort(self, command: dict[str, Any]) -> None:
        await self.session.abort()

    async def _clear_queue(self, command: dict[str, Any]) -> dict[str, Any]:
        steering, follow_up = self.session.clear_queue()
        return {"steering": steering, "followUp": follow_up}

    async def _get_available_thinking_levels(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"levels": self.session.available_thinking_levels()}

    async def _clone(self, command: dict[str, Any]) -> dict[str, Any]:
        return await self.session.clone()

    async def _get_entries(self, command: dict[str, Any]) -> dict[str, Any]:
        since = command.get("since")
        return self.session.session.get_entries_data(since if isinstance(since, str) else None)

    async def _get_tree(self, command: dict[str, Any]) -> dict[str, Any]:
        return self.session.session.get_tree_data()

    async def _get_state(self, command: dict[str, Any]) -> dict[str, Any]:
        return state_json(self.session)

    async def _get_messages(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [to_jsonable(m) for m in self.session.messages]}

    async def _set_model(self, command: dict[str, Any]) -> dict[str, Any]:
        provider, model_id = _text(command, "provider"), _text(command, "modelId")
        registry = self.session.model_registry
        model = next((m for m in registry.available_models() if m.provider == provider and m.id == model_id), None)
        if model is None:
            raise RpcError(f"Model not found: {provider}/{model_id}")
        self.session.set_model(model)
        return model.to_json_dict()

    async def _cycle_model(self, command: dict[str, Any]) -> dict[str, Any] | _JsonNull:
        result = self.session.cycle_model()
        if result is None:
            return JSON_NULL
        model, level = result
        return {"model": model.to_json_dict(), "thinkingLevel": level, "isScoped": bool(self.session.scoped_models)}

    async def _get_available_models(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"models": [m.to_json_dict() for m in self.session.model_registry.available_models()]}

    async def _set_thinking_level(self, command: dict[str, Any]) -> None:
        level = _choice(command, "level", "thinking level", tuple(all_thinking_levels()))
        self.session.set_thinking_level(level)

    async def _cycle_thinking_level(self, command: dict[str, Any]) -> dict[str, Any] | _JsonNull:
        level = self.session.cycle_thinking_level()
        return JSON_NULL if level is None else {"level": level}

    def _queue_mode(self, command: dict[str, Any]) -> Any:
        return _choice(command, "mode", "mode", ("all", "one-at-a-time"))

    async def _set_steering_mode(self, command: dict[str, Any]) -> None:
        self.session.set_steering_mode(self._queue_mode(command))

    async def _set_follow_up_mode(self, command: dict[str, Any]) -> None:
        self.session.set_follow_up_mode(self._queue_mode(command))

    async def _set_auto_compaction(self, command: dict[str, Any]) -> None:
        self.session.auto_compaction_enabled = bool(command.get("enabled"))

    async def _set_auto_retry(self, command: dict[str, Any]) -> None:
        self.session.auto_retry_enabled = bool(command.get("enabled"))

    async def _abort_retry(self, command: dict[str, Any]) -> None:
        self.session.abort_retry()

    async def _bash(self, command: dict[str, Any]) -> dict[str, Any]:
        command_id = command.get("id")
        result = await self.session.execute_bash(
            _text(command, "command"),
            exclude_from_context=bool(command.get("excludeFromContext")),
            update_id=command_id if isinstance(command_id, str) else None,
        )
        return result.to_json_dict()

    async def _abort_bash(self, command: dict[str, Any]) -> None:
        self.session.abort_bash()

    async def _get_session_stats(self, command: dict[str, Any]) -> dict[str, Any]:
        return session_stats_json(self.session)

    async def _get_last_assistant_text(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"text": self.session.last_assistant_text()}

    async def _set_session_name(self, command: dict[str, Any]) -> None:
        name = _text(command, "name").strip()
        if not name:
            raise ValueError("Session name cannot be empty")
        self.session.set_session_name(name)

    async def _compact(self, command: dict[str, Any]) -> dict[str, Any]:
        """Compact what is there (a run going on is aborted first, by `AgentSession.compact`)."""
        instructions = command.get("customInstructions")
        return await self.session.compact(instructions if isinstance(instructions, str) else None)

    async def _new_session(self, command: dict[str, Any]) -> dict[str, Any]:
        parent = command.get("parentSession")
        return await self.session.new_session(parent if isinstance(parent, str) else None)

    async def _switch_session(self, command: dict[str, Any]) -> dict[str, Any]:
        return await self.session.switch_session(_text(command, "sessionPath"))

    async def _fork(self, command: dict[str, Any]) -> dict[str, Any]:
        return await self.session.fork(_text(command, "entryId"))

    async def _get_fork_messages(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"messages": self.session.fork_messages()}

    async def _export_html(self, command: dict[str, Any]) -> dict[str, Any]:
        output = command.get("outputPath")
        return {"path": self.session.export_html(output if isinstance(output, str) else None)}

    async def _get_commands(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"commands": commands_json(self.session)}


async def run_rpc_mode(session: AgentSession) -> int:
    return await RpcServer(session).run()


__all__ = ["JSON_NULL", "RpcError", "RpcServer", "run_rpc_mode"]
