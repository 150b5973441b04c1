"""AgentSession: one coding conversation, as every mode (print, JSON, RPC, TUI) and the SDK drive it.

It wraps the `Agent` with what a coding agent adds around the loop: the session file (every message
appended as it ends), prompt templates and skill commands, the model and thinking level (persisted
as session entries), commands the user runs by hand, automatic retry of transient provider errors,
and statistics. Modes only call its methods and render its events.
"""

from __future__ import annotations

import asyncio
import re
import sys
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pi.agent import Agent
from pi.agent.events import AgentEvent, MessageEndEvent
from pi.agent.messages import AgentMessage
from pi.agent.tool import AgentTool
from pi.ai.abort import AbortController
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.http import abortable_sleep
from pi.ai.options import StreamOptions, ThinkingBudgets
from pi.ai.overflow import is_context_overflow
from pi.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi.app.model_registry import ModelRegistry
from pi.app.model_resolver import as_thinking_level, clamp_thinking_level
from pi.app.prompt_templates import expand_prompt_template
from pi.app.resources import Resources
from pi.app.session_events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    SessionEvent,
)
from pi.app.settings import SettingsManager
from pi.app.skills import expand_skill_command
from pi.session.entries import CompactionEntry, MessageEntry, iso_to_ms
from pi.session.manager import SessionManager
from pi.session.messages import BashExecutionMessage, CustomMessage, convert_to_llm
from pi.session.tokens import calculate_context_tokens, estimate_context_tokens, should_compact

if TYPE_CHECKING:
    from pi.session.compaction import CompleteFn

StreamingBehavior: TypeAlias = Literal["steer", "followUp"]
SessionListener: TypeAlias = Callable[[SessionEvent], "Awaitable[None] | None"]

THINKING_CYCLE = ("off", "minimal", "low", "medium", "high", "xhigh")
OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
BUSY_WITHOUT_BEHAVIOR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
_RETRYABLE = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|"
    r"reset before headers|terminated|retry delay",
    re.IGNORECASE,
)


class NoApiKeyError(RuntimeError):
    pass


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


def _report_listener_error(error: BaseException, event: SessionEvent) -> None:
    print(f"pi: a session listener failed on {event.type}: {str(error) or type(error).__name__}", file=sys.stderr)
    traceback.print_exception(error, file=sys.stderr)


def _user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(block.text for block in message.content if isinstance(block, TextContent))


def is_retryable_error(message: AssistantMessage, context_window: int | None = None) -> bool:
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return bool(_RETRYABLE.search(message.error_message))


class AgentSession:
    def __init__(
        self,
        *,
        agent: Agent,
        session: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        resources: Resources,
        cwd: Path,
        tools: Sequence[AgentTool[Any]],
        scoped_models: Sequence[tuple[Model, str | None]] = (),
    ) -> None:
        self.agent = agent
        self.session = session
        self.settings = settings
        self.model_registry = model_registry
        self.resources = resources
        self.cwd = cwd
        self.tools = list(tools)
        self.scoped_models = list(scoped_models)
        self._listeners: list[SessionListener] = []
        self._retry_controller: AbortController | None = None
        self._bash_controller: AbortController | None = None
        self._pending_bash: list[BashExecutionMessage] = []
        self.auto_retry_enabled = settings.retry.enabled
        self.auto_compaction_enabled = settings.compaction.enabled
        self.retry_attempt = 0
        self.is_compacting = False
        self._busy = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._compaction_controller: AbortController | None = None
        agent.convert_to_llm = self._convert_to_llm
        agent.get_api_key = self._api_key_for
        agent.subscribe(self._on_agent_event)

    # -- events ------------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def _emit(self, event: SessionEvent) -> None:
        """Each listener gets every event; one that raises is reported and skipped, as in the Agent.

        A broken renderer must neither hide events from the others (an RPC client, the session file)
        nor stop what the session does next (a retry, a compaction).
        """
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if result is not None:
                    await result
            except Exception as error:
                _report_listener_error(error, event)

    async def _on_agent_event(self, event: AgentEvent) -> None:
        if isinstance(event, MessageEndEvent):
            self._persist(event.message)
        await self._emit(event)

    def _persist(self, message: AgentMessage) -> None:
        if isinstance(message, CustomMessage):
            self.session.append_custom_message_entry(
                message.custom_type, message.content, message.display, message.details
            )
        else:
            self.session.append_message(message)

    # -- state -------------------------------------------------------------------------------------

    @property
    def model(self) -> Model | None:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[AgentMessage]:
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        """True from a prompt until its run and any retry or compaction after it are over."""
        return self._busy or self.agent.state.is_streaming

    @property
    def session_id(self) -> str:
        return self.session.get_session_id()

    @property
    def session_file(self) -> str | None:
        path = self.session.get_session_file()
        return str(path) if path is not None else None

    @property
    def pending_message_count(self) -> int:
        return self.agent.queued_message_count

    def _convert_to_llm(self, messages: list[AgentMessage]) -> list[Any]:
        block = bool((self.settings.get("images") or {}).get("blockImages", False))
        return list(convert_to_llm(messages, block_images=block))

    def _api_key_for(self, provider: str) -> str | None:
        return self.model_registry.get_api_key(provider)

    # -- prompting ---------------------------------------------------------------------------------

    def expand_input(self, text: str) -> str:
        """``/skill:name`` and ``/template`` commands become the text they stand for."""
        if self.settings.get("enableSkillCommands", True):
            text = expand_skill_command(text, self.resources.skills)
        return expand_prompt_template(text, self.resources.templates)

    def _user_message(self, text: str, images: Sequence[ImageContent] | None) -> UserMessage:
        return UserMessage(content=[TextContent(text=text), *(images or ())])

    def _require_model(self) -> Model:
        model = self.model
        if model is None:
            raise NoApiKeyError(
                "No model selected. Use --model, or set an API key (for example ANTHROPIC_API_KEY, "
                "OPENAI_API_KEY or GEMINI_API_KEY), or add a provider to ~/.pi/agent/models.json."
            )
        if not self.model_registry.get_api_key(model.provider):
            from pi.ai.env_api_keys import env_var_names

            if self.model_registry.auth.has_expired_login(model.provider):
                raise NoApiKeyError(
                    f'Authentication failed for "{model.provider}": the login stored in auth.json has expired. '
                    "Log in again with the TypeScript pi's /login, or set an API key."
                )
            names = env_var_names(model.provider)
            hint = f"set {' or '.join(names)}" if names else "add an apiKey for it in models.json or auth.json"
            raise NoApiKeyError(
                f"No API key found for {model.provider} (model {model.id}).\n\nTo fix it, {hint}, or pass --api-key."
            )
        return model

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        expand: bool = True,
    ) -> None:
        """Send a prompt and return when the run (including automatic retries) has ended.

        While a run is going, the text is queued as steering or follow-up, as `streaming_behavior` says.
        """
        if expand:
            text = self.expand_input(text)
        if self.is_streaming:
            if streaming_behavior == "steer":
                self.steer(text, images, expand=False)
                return
            if streaming_behavior == "followUp":
                self.follow_up(text, images, expand=False)
                return
            raise RuntimeError(BUSY_WITHOUT_BEHAVIOR)
        self._require_model()
        self._flush_pending_bash()
        self.retry_attempt = 0
        self._busy = True
        self._idle.clear()
        try:
            await self._check_threshold(before_prompt=True)
            await self.agent.prompt(self._user_message(text, images))
            await self._after_run()
            # Messages queued while a retry waited or a compaction ran still get their turn.
            while self.agent.has_queued_messages() and not self._last_run_failed():
                await self.agent.continue_run()
                await self._after_run()
        finally:
            self._busy = False
            self._idle.set()

    def _last_run_failed(self) -> bool:
        last = self._last_assistant()
        return last is not None and last.stop_reason in ("error", "aborted")

    def steer(self, text: str, images: Sequence[ImageContent] | None = None, expand: bool = True) -> None:
        self.agent.steer(self._user_message(self.expand_input(text) if expand else text, images))

    def follow_up(self, text: str, images: Sequence[ImageContent] | None = None, expand: bool = True) -> None:
        self.agent.follow_up(self._user_message(self.expand_input(text) if expand else text, images))

    async def abort(self) -> None:
        """Stop the current run, any retry wait and any compaction, and return once all have ended."""
        self.abort_retry()
        self.abort_compaction()
        self.agent.abort()
        await self.wait_for_idle()

    def abort_retry(self) -> None:
        if self._retry_controller is not None:
            self._retry_controller.abort()

    async def wait_for_idle(self) -> None:
        """Return once no prompt is running, counting the retries and compactions that follow a run."""
        await self.agent.wait_for_idle()
        await self._idle.wait()

    # -- automatic retry ---------------------------------------------------------------------------

    def _last_assistant(self) -> AssistantMessage | None:
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                return message
        return None

    def _drop_last_from_context(self, message: AssistantMessage) -> None:
        """The failed reply stays in the session file but leaves the context, so the next request is clean."""
        messages = list(self.messages)
        if messages and messages[-1] is message:
            messages.pop()
            self.agent.replace_messages(messages)

    async def _after_run(self) -> None:
        """Recover from what the run ended with: overflow (compact, retry once), transient errors (retry)."""
        overflow_attempted = False
        while True:
            last = self._last_assistant()
            model = self.model
            if last is None or model is None:
                break
            same_model = last.provider == model.provider and last.model == model.id
            if (
                last.stop_reason in ("error", "stop")  # "stop": a server that cut the input silently
                and same_model
                and self.auto_compaction_enabled
                and is_context_overflow(last, model.context_window)
            ):
                if overflow_attempted:
                    await self._emit(AutoCompactionStartEvent(reason="overflow"))
                    await self._emit(
                        AutoCompactionEndEvent(
                            result=None, aborted=False, will_retry=False, error_message=OVERFLOW_RECOVERY_FAILED
                        )
                    )
                    break
                overflow_attempted = True
                if not await self._auto_compact("overflow", will_retry=True):
                    break  # the error stays the last message, so the caller reports it
                # The rebuilt context comes from the session file, which keeps the failed reply.
                rebuilt = self._last_assistant()
                if rebuilt is not None and rebuilt.stop_reason in ("error", "stop") and self.messages[-1] is rebuilt:
                    self._drop_last_from_context(rebuilt)
                await self.agent.continue_run()
                continue
            if await self._maybe_retry(last, model):
                continue
            break
        await self._end_retry_sequence()
        await self._check_threshold()

    async def _maybe_retry(self, last: AssistantMessage, model: Model) -> bool:
        """Wait and run again after a transient error; False when there is nothing (more) to retry."""
        retry = self.settings.retry
        if not self.auto_retry_enabled or not is_retryable_error(last, model.context_window):
            return False
        if self.retry_attempt >= retry.max_retries:
            return False
        self.retry_attempt += 1
        delay_ms = retry.base_delay_ms * 2 ** (self.retry_attempt - 1)
        await self._emit(
            AutoRetryStartEvent(
                attempt=self.retry_attempt,
                max_attempts=retry.max_retries,
                delay_ms=delay_ms,
                error_message=last.error_message or "",
            )
        )
        self._drop_last_from_context(last)
        controller = AbortController()
        self._retry_controller = controller
        try:
            completed = await abortable_sleep(delay_ms / 1000, controller.signal)
        finally:
            self._retry_controller = None
        if not completed:
            await self._emit(
                AutoRetryEndEvent(success=False, attempt=self.retry_attempt, final_error="Retry cancelled")
            )
            self.retry_attempt = 0
            return False
        await self.agent.continue_run()
        return True

    async def _end_retry_sequence(self) -> None:
        if not self.retry_attempt:
            return
        last = self._last_assistant()
        failed = last is None or last.stop_reason in ("error", "aborted")
        await self._emit(
            AutoRetryEndEvent(
                success=not failed,
                attempt=self.retry_attempt,
                final_error=(last.error_message if last is not None else None) if failed else None,
            )
        )
        self.retry_attempt = 0

    # -- compaction --------------------------------------------------------------------------------

    async def _check_threshold(self, before_prompt: bool = False) -> None:
        """Compact when the context is over the threshold: after each run, and before a new prompt.

        After a run an aborted reply is skipped; before a prompt it counts (its usage is the best
        measure of the context the prompt would be added to). After an error the size is estimated
        from the last usable reply. A reply older than the latest compaction measured the context
        before it and is ignored.
        """
        model = self.model
        last = self._last_assistant()
        if not self.auto_compaction_enabled or model is None or last is None:
            return
        if last.stop_reason == "aborted" and not before_prompt:
            return
        if last.timestamp <= self._latest_compaction_ms():
            return
        if last.stop_reason in ("error", "stop") and is_context_overflow(last, model.context_window):
            return  # the overflow path has dealt with it (compacted and retried, or reported why not)
        if last.stop_reason in ("error", "aborted"):
            estimate = estimate_context_tokens(self.messages)
            if last.stop_reason == "aborted" and calculate_context_tokens(last.usage):
                tokens = calculate_context_tokens(last.usage)
            elif estimate.last_usage_index is None:
                return
            else:
                tokens = estimate.tokens
        else:
            tokens = estimate_context_tokens(self.messages).tokens
        if should_compact(tokens, model.context_window, self.settings.compaction):
            await self._auto_compact("threshold", will_retry=False)

    def _latest_compaction_ms(self) -> int:
        for entry in reversed(self.session.get_branch()):
            if isinstance(entry, CompactionEntry):
                return iso_to_ms(entry.timestamp)
        return 0

    async def _auto_compact(self, reason: Literal["threshold", "overflow"], will_retry: bool) -> bool:
        from pi.session.compaction import CompactionCancelledError

        await self._emit(AutoCompactionStartEvent(reason=reason))
        try:
            result = await self.compact()
        except CompactionCancelledError:
            await self._emit(AutoCompactionEndEvent(result=None, aborted=True, will_retry=False))
            return False
        except Exception as exc:  # a failed summary must not lose the conversation: report and go on
            await self._emit(
                AutoCompactionEndEvent(result=None, aborted=False, will_retry=False, error_message=str(exc))
            )
            return False
        await self._emit(AutoCompactionEndEvent(result=result, aborted=False, will_retry=will_retry))
        return True

    def _complete_fn(self) -> CompleteFn:
        stream_fn = self.agent.stream_fn
        if stream_fn is None:
            from pi.ai.stream import complete_simple

            return complete_simple

        async def complete(model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
            events = stream_fn(model, context, options)
            if not isinstance(events, AssistantMessageEventStream):
                events = await events
            return await events.result()

        return complete

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Summarize older history into a compaction entry and continue from the summary.

        Returns pi's CompactionResult JSON; raises CompactionError when there is nothing to compact
        or the summary fails (the session is then unchanged).
        """
        from pi.session.compaction import CompactionCancelledError, CompactionError, prepare_compaction
        from pi.session.compaction import compact as run_compaction

        model = self._require_model()
        preparation = prepare_compaction(self.session.get_branch(), self.settings.compaction)
        if preparation is None:
            raise CompactionError("Nothing to compact yet: the conversation is shorter than what is kept verbatim.")
        controller = AbortController()
        self._compaction_controller = controller
        self.is_compacting = True
        # A compaction asked for between runs makes the session busy, so a prompt queues behind it
        # instead of running on the history that is being replaced.
        owns_busy = not self._busy
        if owns_busy:
            self._busy = True
            self._idle.clear()
        try:
            result = await run_compaction(
                preparation,
                model,
                self.model_registry.get_api_key(model.provider),
                self._complete_fn(),
                custom_instructions,
                controller.signal,
            )
        finally:
            self.is_compacting = False
            self._compaction_controller = None
            if owns_busy:
                self._busy = False
                self._idle.set()
        if controller.signal.aborted:
            raise CompactionCancelledError()
        self.session.append_compaction(result.summary, result.first_kept_entry_id, result.tokens_before, result.details)
        self.agent.replace_messages(self.session.build_session_context().messages)
        out: dict[str, Any] = {
            "summary": result.summary,
            "firstKeptEntryId": result.first_kept_entry_id,
            "tokensBefore": result.tokens_before,
        }
        if result.details:
            out["details"] = result.details
        return out

    def abort_compaction(self) -> None:
        if self._compaction_controller is not None:
            self._compaction_controller.abort()

    # -- sessions ----------------------------------------------------------------------------------

    def _reload_from_session(self) -> None:
        """Make the agent's context, model and thinking level those of the session's current branch."""
        context = self.session.build_session_context()
        self.agent.reset()
        self.agent.replace_messages(context.messages)
        if context.model is not None:
            model = self.model_registry.find(context.model.provider, context.model.model_id)
            if model is not None and self.model_registry.has_auth(model):
                self.agent.set_model(model)
        if self.session.get_entries():
            model = self.model
            level = context.thinking_level
            self.agent.set_thinking_level(clamp_thinking_level(level, model) if model else as_thinking_level(level))

    def _start_entries(self) -> None:
        model = self.model
        if model is not None:
            self.session.append_model_change(model.provider, model.id)
        self.session.append_thinking_level_change(self.thinking_level)

    async def new_session(self, parent_session: str | None = None) -> None:
        """Start an empty conversation in a new session file."""
        await self.abort()
        self.session.new_session(parent_session=parent_session)
        self.agent.reset()
        self.agent.session_id = self.session.get_session_id()
        self._start_entries()

    async def switch_session(self, path: str) -> None:
        """Continue the session stored at `path`."""
        await self.abort()
        self.session.set_session_file(path)
        self.agent.session_id = self.session.get_session_id()
        self._reload_from_session()

    def fork_messages(self) -> list[dict[str, str]]:
        """The user messages of the current branch, which a fork can start from."""
        out: list[dict[str, str]] = []
        for entry in self.session.get_branch():
            message = entry.message if isinstance(entry, MessageEntry) else None
            if isinstance(message, UserMessage):
                out.append({"entryId": entry.id, "text": _user_text(message)})
        return out

    async def fork(self, entry_id: str) -> dict[str, Any]:
        """Continue in a new session file holding the branch up to (not including) user message `entry_id`.

        Returns the text of that message, so a UI can put it back in the editor for the user to edit.
        """
        entry = self.session.get_entry(entry_id)
        message = entry.message if isinstance(entry, MessageEntry) else None
        if entry is None or not isinstance(message, UserMessage):
            raise ValueError(f"Entry {entry_id} is not a user message of this session; use get_fork_messages")
        await self.abort()
        previous = self.session.get_session_file()
        if entry.parent_id is None:
            self.session.new_session(parent_session=str(previous) if previous else None)
            self.agent.reset()
            self._start_entries()
        else:
            self.session.create_branched_session(entry.parent_id)
            self._reload_from_session()
        self.agent.session_id = self.session.get_session_id()
        return {"text": _user_text(message), "cancelled": False}

    def export_html(self, output_path: str | None = None) -> str:
        from pi.session.export_html import export_session_html

        target = output_path
        if target is not None and not Path(target).is_absolute():
            target = str(self.cwd / target)
        return str(export_session_html(self.session, target))

    def set_session_name(self, name: str) -> None:
        self.session.append_session_info(name)

    # -- model and thinking ------------------------------------------------------------------------

    def set_model(self, model: Model) -> None:
        self.agent.set_model(model)
        self.agent.stream_options = stream_options_for(
            self.model_registry, model, self.model_registry.get_api_key(model.provider)
        )
        self.session.append_model_change(model.provider, model.id)
        self.settings.set("defaultProvider", model.provider)
        self.settings.set("defaultModel", model.id)
        self.set_thinking_level(self.thinking_level)

    def set_thinking_level(self, level: str) -> None:
        model = self.model
        clamped = clamp_thinking_level(level, model) if model is not None else as_thinking_level(level)
        if clamped != self.agent.state.thinking_level:
            self.agent.set_thinking_level(clamped)
            self.session.append_thinking_level_change(clamped)

    def available_thinking_levels(self) -> list[str]:
        model = self.model
        if model is None or not model.reasoning:
            return ["off"]
        levels = list(THINKING_CYCLE)
        if clamp_thinking_level("xhigh", model) != "xhigh":
            levels.remove("xhigh")
        return levels

    def cycle_thinking_level(self) -> str | None:
        model = self.model
        if model is None or not model.reasoning:
            return None
        levels = self.available_thinking_levels()
        current = self.thinking_level
        index = levels.index(current) if current in levels else 0
        self.set_thinking_level(levels[(index + 1) % len(levels)])
        return self.thinking_level

    def cycle_model(self) -> tuple[Model, str] | None:
        candidates = [m for m, _ in self.scoped_models] or self.model_registry.available_models()
        if len(candidates) < 2:
            return None
        current = self.model
        index = next(
            (i for i, m in enumerate(candidates) if current and m.provider == current.provider and m.id == current.id),
            -1,
        )
        model = candidates[(index + 1) % len(candidates)]
        self.set_model(model)
        scoped_level = next((lvl for m, lvl in self.scoped_models if m is model), None)
        if scoped_level:
            self.set_thinking_level(scoped_level)
        return model, self.thinking_level

    # -- user bash ---------------------------------------------------------------------------------

    async def execute_bash(self, command: str, exclude_from_context: bool = False) -> BashResult:
        """Run a command for the user; its output reaches the model with the next prompt."""
        from pi.tools.shell import CommandAborted, OutputCapture, run_shell_command

        capture = OutputCapture()
        controller = AbortController()
        self._bash_controller = controller
        cancelled = False
        exit_code: int | None = None
        try:
            result = await run_shell_command(
                command,
                str(self.cwd),
                on_data=capture.feed,
                signal=controller.signal,
                shell_path=self.settings.get("shellPath"),
            )
            exit_code = result.exit_code
        except CommandAborted:
            cancelled = True
        finally:
            self._bash_controller = None
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
        if self.is_streaming:
            self._pending_bash.append(message)
        else:
            self.agent.append_message(message)
            self.session.append_message(message)
        return bash

    def abort_bash(self) -> None:
        if self._bash_controller is not None:
            self._bash_controller.abort()

    def _flush_pending_bash(self) -> None:
        for message in self._pending_bash:
            self.agent.append_message(message)
            self.session.append_message(message)
        self._pending_bash.clear()

    # -- queries -----------------------------------------------------------------------------------

    def last_assistant_text(self) -> str | None:
        last = self._last_assistant()
        if last is None:
            return None
        text = "".join(block.text for block in last.content if isinstance(block, TextContent))
        return text or None

    def session_stats(self) -> dict[str, Any]:
        user = assistant = tool_calls = tool_results = 0
        tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        cost = 0.0
        for message in self.messages:
            if isinstance(message, UserMessage):
                user += 1
            elif isinstance(message, AssistantMessage):
                assistant += 1
                tool_calls += sum(1 for b in message.content if b.type == "toolCall")
                usage = message.usage
                tokens["input"] += usage.input
                tokens["output"] += usage.output
                tokens["cacheRead"] += usage.cache_read
                tokens["cacheWrite"] += usage.cache_write
                cost += usage.cost.total
            elif isinstance(message, ToolResultMessage):
                tool_results += 1
        return {
            "sessionFile": self.session_file,
            "sessionId": self.session_id,
            "userMessages": user,
            "assistantMessages": assistant,
            "toolCalls": tool_calls,
            "toolResults": tool_results,
            "totalMessages": len(self.messages),
            "tokens": {**tokens, "total": sum(tokens.values())},
            "cost": cost,
        }

    def state_json(self) -> dict[str, Any]:
        model = self.model
        out: dict[str, Any] = {
            "thinkingLevel": self.thinking_level,
            "isStreaming": self.is_streaming,
            "isCompacting": self.is_compacting,
            "steeringMode": self.agent.steering_mode,
            "followUpMode": self.agent.follow_up_mode,
            "sessionId": self.session_id,
            "autoCompactionEnabled": self.auto_compaction_enabled,
            "messageCount": len(self.messages),
            "pendingMessageCount": self.pending_message_count,
        }
        if model is not None:
            out["model"] = model.to_json_dict()
        if self.session_file:
            out["sessionFile"] = self.session_file
        name = self.session.get_session_name()
        if name:
            out["sessionName"] = name
        return out


def stream_options_for(registry: ModelRegistry, model: Model, api_key: str | None) -> StreamOptions:
    """Request options models.json asks for (resolved headers, Authorization when authHeader is set)."""
    return StreamOptions(headers=registry.request_headers(model, api_key))


def thinking_budgets_from(settings: SettingsManager) -> ThinkingBudgets | None:
    budgets = settings.thinking_budgets
    if not budgets:
        return None
    return ThinkingBudgets(
        minimal=budgets.get("minimal"), low=budgets.get("low"), medium=budgets.get("medium"), high=budgets.get("high")
    )


__all__ = [
    "BUSY_WITHOUT_BEHAVIOR",
    "AgentSession",
    "BashResult",
    "NoApiKeyError",
    "StreamingBehavior",
    "is_retryable_error",
    "stream_options_for",
    "thinking_budgets_from",
]
