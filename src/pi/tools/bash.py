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
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from msgspec import Struct, field
from pydantic import ConfigDict, Field

from pi.agent.tool import JSON_SCHEMA_PREFERRED, AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import PiModel, TextContent
from pi.tools.output_capture import OutputCapture, OutputSnapshot
from pi.tools.schema import ToolParams
from pi.tools.shell import CommandAborted, CommandTimedOut, ExecResult, OnData, run_shell_command
from pi.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult, format_size

MAX_TIMEOUT_SECONDS = 2_147_483_647 / 1000
"""The longest timer Node allows; kept so that limits match pi's."""

BASH_UPDATE_THROTTLE_S = 0.1

SESSION_ENV_NAMES = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")


class BashParams(ToolParams):
    command: str = Field(description="Bash command line to run")
    timeout: float | None = Field(
        default=None, description="Seconds until it and its children are killed (default: never)"
    )


class BashToolDetails(PiModel):
    """Present only when the output was cut: what was kept, and where the whole output is."""

    model_config = ConfigDict(defer_build=True)  # validator built on first use: most runs never cut output

    truncation: TruncationResult | None = None
    full_output_path: str | None = None


class BashError(Exception):
    """The command could not run to an outcome (aborted, bad timeout); the message carries its output."""

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


class LocalBashOperations(Struct, frozen=True):
    """The default `BashOperations`: runs commands as local processes with `run_shell_command`.

    `shell_path` is the configured shell (settings ``shellPath``); None picks bash, else ``sh``.
    """

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


class BashExecution(Struct):
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
CommandEnvironment = Callable[[], Mapping[str, str]]


class BashToolOptions(Struct):
    """How `create_bash_tool` runs commands; fields left None mean local processes, no hooks and no default timeout."""

    operations: BashOperations | None = None
    command_prefix: str | None = None
    """Run before every command in the same shell, e.g. ``shopt -s expand_aliases``; its output is kept."""
    shell_path: str | None = None
    prepare: BashPrepare | None = None
    spawn_hook: SpawnHook | None = None
    default_timeout: float | None = None
    """Applied when the model gives no timeout (none by default)."""
    env: CommandEnvironment | None = None
    """Extra variables, read as each command starts and set over the inherited environment.

    A session passes its PI_SESSION_ID, PI_SESSION_FILE, PI_PROVIDER, PI_MODEL and PI_REASONING_LEVEL
    here, so a command sees the current values; those inherited from a parent process are dropped.
    """
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
        raise BashError(
            "Invalid timeout: must be a finite number of seconds\n"
            "Pass a number of seconds above 0, or leave timeout out for none."
        )
    if timeout > MAX_TIMEOUT_SECONDS:
        raise BashError(
            f"Invalid timeout: maximum is {format_seconds(MAX_TIMEOUT_SECONDS)} seconds\n"
            "Pass a smaller number of seconds, or leave timeout out for none."
        )


def _base_environment() -> dict[str, str]:
    env = dict(os.environ)
    for name in SESSION_ENV_NAMES:  # they would describe the session of a parent process
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
        self.sent_version = 0  # the capture's version before any output: nothing to send yet
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
        self._deliver_output(self.capture.snapshot())

    def _deliver_output(self, snapshot: OutputSnapshot) -> None:
        # Unlike the opening update, an output update always carries details, empty until the output is
        # cut: pi's clients tell the two apart that way. Its text is the kept tail alone, as in pi: the
        # note on where the full output is belongs to the result the model reads, and `details` says
        # whether (and how) the output was cut.
        details = _details(snapshot) or BashToolDetails()
        self._deliver(AgentToolResult(content=[TextContent(text=snapshot.text)], details=details))

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
        """Send what the throttle still held back (nothing when every byte was already sent), then settle."""
        self.close()
        if self.capture.version != self.sent_version:
            self.sent_version = self.capture.version
            self._deliver_output(snapshot)
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)


# --- the tool ----------------------------------------------------------------------------------------

DESCRIPTION = (
    "Run a bash command in the working directory; stdout and stderr come back combined. Only the last "
    f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB are shown; the full output is then saved to a "
    "file whose path is given. Stdin is closed."
)

SNIPPET = "Execute bash commands (ls, grep, find, etc.)"
SESSION_ENV_GUIDELINE = "You can inspect PI_* environment variables for current model and session details."


def _outcome_text(text: str, outcome: str) -> str:
    if not text and outcome.startswith("Command exited"):
        text = "(no output)"
    return f"{text}\n\n{outcome}" if text else outcome


def _timeout_message(error: CommandTimedOut) -> str:
    message = f"Command timed out after {format_seconds(error.seconds)} seconds"
    if error.shell_exit_code is None or error.shell_exit_seconds is None:
        return message
    return (
        f"{message}. The shell exited with code {error.shell_exit_code} after {error.shell_exit_seconds:.1f} "
        "seconds, but background processes it started kept writing output until the timeout."
    )


def _exit_outcome(result: ExecResult) -> tuple[str | None, int | None]:
    """The failure line for a finished command (None on success) and the exit code to report."""
    if result.signal_name is not None:
        return f"Command terminated by signal {result.signal_name}", result.shell_status()
    if result.exit_code is None:
        return "Command terminated without an exit code", None
    if result.exit_code != 0:
        return f"Command exited with code {result.exit_code}", result.exit_code
    return None, 0


async def _execution(opts: BashToolOptions, command: str, cwd: str, signal: AbortSignal | None) -> BashExecution:
    """The command as it will run, after the prefix, the extra variables and the integrator's hooks."""
    command = f"{opts.command_prefix}\n{command}" if opts.command_prefix else command
    extra = dict(opts.env()) if opts.env is not None else {}
    execution = BashExecution(command=command, cwd=cwd, env=extra)
    if opts.prepare is not None:
        await opts.prepare(execution, signal)
    if opts.spawn_hook is not None:
        execution = opts.spawn_hook(execution)
    return execution


def _tenths(seconds: float) -> float | int:
    """Seconds to a tenth, as pi reports wall time; a whole number stays one (``0``, not ``0.0``)."""
    tenths = math.floor(seconds * 10 + 0.5) / 10
    return int(tenths) if tenths.is_integer() else tenths


def _final_result(
    capture: OutputCapture, snapshot: OutputSnapshot, outcome: str | None, exit_code: int | None, seconds: float
) -> AgentToolResult:
    """The model's text (output tail, notices, failure line) plus the structured form for programs.

    A failed command is an error result rather than an exception, so its details survive; only an
    abort raises, as every tool does when the user stops it.
    """
    text = output_text(snapshot)
    details = _details(snapshot)
    if outcome == "Command aborted":
        raise BashError(_outcome_text(text, outcome), details)
    structured: dict[str, Any] = {
        "output": capture.excerpt(),
        "truncated": snapshot.truncation.truncated,
        "exit_code": exit_code,
        "wall_time_seconds": _tenths(seconds),
    }
    if snapshot.full_output_path is not None:
        structured["full_output_path"] = snapshot.full_output_path
    if outcome is not None:
        return AgentToolResult(
            content=[TextContent(text=_outcome_text(text, outcome))],
            details=details,
            is_error=True,
            structured_content=structured,
        )
    return AgentToolResult(
        content=[TextContent(text=text or "(no output)")], details=details, structured_content=structured
    )


def create_bash_tool(cwd: str, options: BashToolOptions | None = None) -> AgentTool[BashParams]:
    """The bash tool; a failed command comes back as an error result that keeps its output and details."""
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
        execution = await _execution(opts, params.command, cwd, signal)
        env = _base_environment() if execution.inherit_env else {}
        env.update(execution.env)

        capture = OutputCapture(temp_dir=opts.temp_dir)
        streamer = _UpdateStreamer(capture, on_update)
        streamer.start()

        def on_data(chunk: bytes) -> None:
            capture.feed(chunk)
            streamer.notify()

        started = time.monotonic()
        outcome: str | None = None
        exit_code: int | None = None
        try:
            result = await operations.exec(
                execution.command, execution.cwd, on_data=on_data, signal=signal, timeout=timeout, env=env
            )
            outcome, exit_code = _exit_outcome(result)
        except CommandAborted:
            outcome = "Command aborted"
        except CommandTimedOut as error:
            outcome = _timeout_message(error)
        finally:
            streamer.close()
            capture.finish()

        snapshot = capture.snapshot()
        await streamer.finish(snapshot)
        return _final_result(capture, snapshot, outcome, exit_code, time.monotonic() - started)

    return AgentTool(
        name="bash",
        label="bash",
        description=DESCRIPTION,
        parameters=BashParams,
        execute=execute,
        prompt_snippet=SNIPPET,
        prompt_guidelines=[SESSION_ENV_GUIDELINE],
        constrained_sampling=JSON_SCHEMA_PREFERRED,
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
    "CommandEnvironment",
    "LocalBashOperations",
    "SpawnHook",
    "create_bash_tool",
    "create_local_bash_operations",
    "format_seconds",
    "validate_timeout",
]
