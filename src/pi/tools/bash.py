"""The `bash` tool: the model's universal escape hatch (ls, rg, tests, git, builds, ...).

Two parameters face the model (`command`, `timeout`); everything an integrator may want (a
sandbox, a remote shell, a command prefix, extra variables) goes through options and hooks, so the
schema stays small. The output the model sees is the tail (errors and results come last), with a
notice pointing at a file that holds all of it; failures carry the output too, so the model can
read the error and fix its command.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import os
import shutil
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools.shell import (
    CommandAborted,
    CommandTimedOut,
    ExecResult,
    OnData,
    OutputCapture,
    OutputSnapshot,
    run_shell_command,
)
from pi.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size

MAX_TIMEOUT_SECONDS = 2_147_483_647 / 1000
"""The longest timer Node allows; kept so that limits match pi's."""

BASH_UPDATE_THROTTLE_S = 0.1

SESSION_ENV_NAMES = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")


class BashParams(BaseModel):
    command: str = Field(description="The bash command line to run, in the working directory.")
    timeout: float | None = Field(
        default=None,
        description="Seconds after which the command and everything it started are killed. "
        "There is no timeout unless you give one; set it for anything that might hang or wait for input.",
    )


class BashToolDetails(PiModel):
    """Present only when the output was cut: what was kept, and where the whole output is."""

    model_config = ConfigDict(defer_build=True)  # validator built on first use: most runs never cut output

    truncation: TruncationResult | None = None
    full_output_path: str | None = None


class BashError(Exception):
    """The command failed (exit code, signal, timeout, abort); the message carries its output."""

    def __init__(self, message: str, details: BashToolDetails | None = None) -> None:
        super().__init__(message)
        self.details = details


# --- the Operations protocol: how commands run ---------------------------------------------------


class BashOperations(Protocol):
    """Where commands run. Local processes by default; an SSH or container backend implements the same.

    Stop on abort by raising `CommandAborted` and on timeout by raising `CommandTimedOut`; both must
    leave nothing running.
    """

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: OnData,
        signal: AbortSignal | None,
        timeout: float | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult: ...


@dataclass(slots=True, frozen=True)
class LocalBashOperations:
    shell_path: str | None = None

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: OnData,
        signal: AbortSignal | None,
        timeout: float | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult:
        return await run_shell_command(
            command, cwd, on_data=on_data, signal=signal, timeout=timeout, env=env, shell_path=self.shell_path
        )


def create_local_bash_operations(shell_path: str | None = None) -> BashOperations:
    """The built-in backend, for integrators who wrap it (logging, sandboxing) rather than replace it."""
    return LocalBashOperations(shell_path)


@dataclass(slots=True)
class BashExecution:
    """One command about to run; `prepare` and `spawn_hook` may rewrite any field."""

    command: str
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    """Variables set on top of the inherited environment."""
    inherit_env: bool = True
    """False starts from an empty environment (plus `env`)."""


class BashPrepare(Protocol):
    """Async hook that edits the execution in place (sandbox it, move it, add variables)."""

    def __call__(self, execution: BashExecution, signal: AbortSignal | None) -> Awaitable[None]: ...


SpawnHook = Callable[[BashExecution], BashExecution]
SessionEnvironment = Callable[[], Mapping[str, str]]


@dataclass(slots=True)
class BashToolOptions:
    operations: BashOperations | None = None
    command_prefix: str | None = None
    """Run before every command in the same shell, e.g. ``shopt -s expand_aliases``; its output is kept."""
    shell_path: str | None = None
    prepare: BashPrepare | None = None
    spawn_hook: SpawnHook | None = None
    default_timeout: float | None = None
    """Applied when the model gives no timeout (none by default)."""
    expose_session_environment: bool = True
    """Replace inherited PI_* variables with the current session's (from `session_environment`)."""
    session_environment: SessionEnvironment | None = None
    temp_dir: str | None = None
    """Where full-output files go (the system temp directory by default)."""


# --- building blocks ---------------------------------------------------------------------------------


def format_seconds(value: float) -> str:
    """A number as JavaScript prints it, so `timeout: 1` reads back as ``1``, not ``1.0``."""
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def validate_timeout(timeout: float | None) -> None:
    if timeout is None:
        return
    if not math.isfinite(timeout) or timeout <= 0:
        raise BashError("Invalid timeout: must be a finite number of seconds")
    if timeout > MAX_TIMEOUT_SECONDS:
        raise BashError(f"Invalid timeout: maximum is {format_seconds(MAX_TIMEOUT_SECONDS)} seconds")


def _base_environment(options: BashToolOptions) -> dict[str, str]:
    env = dict(os.environ)
    if options.expose_session_environment:
        for name in SESSION_ENV_NAMES:
            env.pop(name, None)
    path = env.get("PATH", "")
    with_rg = _path_with_rg(path)
    if with_rg != path:
        env["PATH"] = with_rg
    return env


@functools.lru_cache(maxsize=8)
def _path_with_rg(path: str) -> str:
    """`path` with the directory of our bundled rg appended, unless an rg is already on it.

    rg ships inside our environment; appending keeps every other command resolving as before. The
    answer only depends on PATH (and on files that do not move during a session), and searching
    PATH for rg costs a stat per directory, so it is worked out once per distinct PATH.
    """
    from pi.tools.rg_binary import locate_rg

    rg = locate_rg()
    if rg is None or shutil.which("rg", path=path) is not None:
        return path
    return f"{path}{os.pathsep}{os.path.dirname(rg)}" if path else os.path.dirname(rg)


def output_text(snapshot: OutputSnapshot) -> str:
    """The model-facing text: the kept tail plus, when cut, where to find everything."""
    truncation = snapshot.truncation
    text = snapshot.text
    if not truncation.truncated:
        return text
    where = f"Full output: {snapshot.full_output_path}"
    end = truncation.total_lines
    start = end - truncation.output_lines + 1
    if truncation.last_line_partial:
        notice = (
            f"[Showing last {format_size(truncation.output_bytes)} of line {end} "
            f"(line is {format_size(snapshot.last_line_bytes)}). {where}]"
        )
    elif truncation.truncated_by == "lines":
        notice = f"[Showing lines {start}-{end} of {end}. {where}]"
    else:
        notice = f"[Showing lines {start}-{end} of {end} ({format_size(DEFAULT_MAX_BYTES)} limit). {where}]"
    return f"{text}\n\n{notice}"


def _details(snapshot: OutputSnapshot) -> BashToolDetails | None:
    if not snapshot.truncation.truncated:
        return None
    return BashToolDetails(truncation=snapshot.truncation, full_output_path=snapshot.full_output_path)


class _UpdateStreamer:
    """At most one partial result per throttle interval: leading edge, then one trailing timer."""

    def __init__(self, capture: OutputCapture, on_update: OnToolUpdate | None) -> None:
        self.capture = capture
        self.on_update = on_update
        self.loop = asyncio.get_running_loop()
        self.last_sent = -math.inf
        self.sent_version = -1
        self.timer: asyncio.TimerHandle | None = None
        self.pending: set[asyncio.Future[None]] = set()
        self.closed = False

    def _deliver(self, result: AgentToolResult) -> None:
        if self.on_update is None:
            return
        outcome = self.on_update(result)
        if inspect.isawaitable(outcome):
            task = asyncio.ensure_future(outcome)
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)

    def start(self) -> None:
        self._deliver(AgentToolResult(content=[], details=None))

    def _send(self) -> None:
        self.timer = None
        if self.closed or self.capture.version == self.sent_version:
            return
        self.sent_version = self.capture.version
        self.last_sent = self.loop.time()
        snapshot = self.capture.snapshot()
        self._deliver(AgentToolResult(content=[TextContent(text=output_text(snapshot))], details=_details(snapshot)))

    def notify(self) -> None:
        if self.on_update is None or self.closed or self.timer is not None:
            return
        wait = self.last_sent + BASH_UPDATE_THROTTLE_S - self.loop.time()
        if wait <= 0:
            self._send()
        else:
            self.timer = self.loop.call_later(wait, self._send)

    def close(self) -> None:
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    async def finish(self, snapshot: OutputSnapshot) -> None:
        self.close()
        self._deliver(AgentToolResult(content=[TextContent(text=output_text(snapshot))], details=_details(snapshot)))
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)


# --- the tool ----------------------------------------------------------------------------------------

DESCRIPTION = (
    "Run a bash command in the current working directory and get its combined stdout and stderr. "
    f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are shown (whichever "
    "comes first); when output is cut, all of it is saved to a file whose path is given, so you can read or "
    "search it. Stdin is closed, so interactive programs get no input. There is no default timeout: pass "
    "`timeout` (seconds) for commands that might hang."
)

SNIPPET = "Execute bash commands (ls, grep, find, etc.)"
SESSION_ENV_GUIDELINE = "You can inspect PI_* environment variables for current model and session details."


def create_bash_tool(cwd: str, options: BashToolOptions | None = None) -> AgentTool[BashParams]:
    opts = options or BashToolOptions()
    operations = opts.operations or LocalBashOperations(opts.shell_path)

    async def execute(
        tool_call_id: str,
        params: BashParams,
        signal: AbortSignal | None,
        on_update: OnToolUpdate | None,
    ) -> AgentToolResult:
        timeout = params.timeout if params.timeout is not None else opts.default_timeout
        validate_timeout(timeout)
        if signal is not None and signal.aborted:
            raise BashError("Command aborted")

        command = f"{opts.command_prefix}\n{params.command}" if opts.command_prefix else params.command
        session_env = dict(opts.session_environment()) if opts.session_environment is not None else {}
        execution = BashExecution(command=command, cwd=cwd, env=session_env if opts.expose_session_environment else {})
        if opts.prepare is not None:
            await opts.prepare(execution, signal)
        if opts.spawn_hook is not None:
            execution = opts.spawn_hook(execution)
        env = _base_environment(opts) if execution.inherit_env else {}
        env.update(execution.env)

        capture = OutputCapture(temp_dir=opts.temp_dir)
        streamer = _UpdateStreamer(capture, on_update)
        streamer.start()

        def on_data(chunk: bytes) -> None:
            capture.feed(chunk)
            streamer.notify()

        outcome: str | None = None
        try:
            result = await operations.exec(
                execution.command, execution.cwd, on_data=on_data, signal=signal, timeout=timeout, env=env
            )
        except CommandAborted:
            outcome = "Command aborted"
        except CommandTimedOut as error:
            outcome = f"Command timed out after {format_seconds(error.seconds)} seconds"
        finally:
            streamer.close()
            capture.finish()

        snapshot = capture.snapshot()
        await streamer.finish(snapshot)
        text = output_text(snapshot)
        details = _details(snapshot)
        if outcome is None:
            if result.signal_name is not None:
                outcome = f"Command terminated by signal {result.signal_name}"
            elif result.exit_code not in (0, None):
                outcome = f"Command exited with code {result.exit_code}"
        if outcome is not None:
            if not text and outcome.startswith("Command exited"):
                text = "(no output)"
            raise BashError(f"{text}\n\n{outcome}" if text else outcome, details)
        return AgentToolResult(content=[TextContent(text=text or "(no output)")], details=details)

    guidelines = [SESSION_ENV_GUIDELINE] if opts.expose_session_environment else []
    return AgentTool(
        name="bash",
        label="bash",
        description=DESCRIPTION,
        parameters=BashParams,
        execute=execute,
        prompt_snippet=SNIPPET,
        prompt_guidelines=guidelines,
    )


__all__ = [
    "BASH_UPDATE_THROTTLE_S",
    "MAX_TIMEOUT_SECONDS",
    "BashError",
    "BashExecution",
    "BashOperations",
    "BashParams",
    "BashPrepare",
    "BashToolDetails",
    "BashToolOptions",
    "LocalBashOperations",
    "SessionEnvironment",
    "SpawnHook",
    "create_bash_tool",
    "create_local_bash_operations",
    "format_seconds",
    "validate_timeout",
]
