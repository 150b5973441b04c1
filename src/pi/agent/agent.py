"""A stateful agent: the transcript, the tools and the queues around the stateless loop.

Everything a UI needs to draw follows from the events: the Agent folds each event into its `state`
first (so a listener reads the state as of that event), then awaits every listener in the order they
subscribed. A listener that raises is reported and skipped; it never stops the run, because a broken
renderer must not lose the user's conversation.

Messages typed while the agent works go to one of two queues: steering messages reach the model
right after the current turn (tool calls already made still run), follow-up messages only when it
would otherwise stop. An aborted run takes nothing more from either queue: what was queued stays
there, readable through `steering_queue` / `follow_up_queue`, for the caller to send or clear.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, TypeAlias, cast

from msgspec import Struct, field

from pi.agent.config import (
    AgentLoopConfig,
    AgentStreamFn,
    ConvertToLlm,
    GetApiKey,
    GetStreamOptions,
    ToolExecutionMode,
    TransformContext,
)
from pi.agent.context import AgentContext
from pi.agent.events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pi.agent.hooks import AfterToolCall, BeforeToolCall
from pi.agent.loop import agent_loop, agent_loop_continue, failure_message
from pi.agent.messages import AgentMessage, DeferredMessages
from pi.agent.tool import AgentTool
from pi.agent.tool_execution import error_text
from pi.ai.abort import AbortController, AbortSignal
from pi.ai.options import OnPayload, StreamOptions, ThinkingBudgets
from pi.ai.types import AssistantMessage, ImageContent, Model, TextContent, ThinkingLevel, UserMessage

AgentThinkingLevel: TypeAlias = Literal["off"] | ThinkingLevel
"""The provider levels of `pi.ai.types.THINKING_LEVELS`, plus "off" (no reasoning requested)."""
QueueMode: TypeAlias = Literal["all", "one-at-a-time"]

AgentListener: TypeAlias = Callable[[AgentEvent], "Awaitable[None] | None"]
ListenerErrorHandler: TypeAlias = Callable[[BaseException, AgentEvent], None]
QueueChanged: TypeAlias = Callable[[], None]
RunOutcomeKind: TypeAlias = Literal["completed", "aborted", "error"]

logger = logging.getLogger(__name__)

BUSY_PROMPT = (
    "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, or wait for completion."
)
BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing."
NO_MODEL = "No model configured"
NO_MESSAGES = "No messages to continue from"
CANNOT_CONTINUE_ASSISTANT = "Cannot continue from message role: assistant"
RESET_WHILE_RUNNING = "Agent is already processing. Wait for completion before resetting."


class AgentState(Struct):
    """What a UI draws from. Replace `tools`/`messages` through the Agent's setters.

    The transcript may start out deferred (`DeferredMessages`): `messages` builds it on first read
    and from then on is a plain list; `message_count` answers without building it.
    """

    system_prompt: str = ""
    model: Model | None = None
    thinking_level: AgentThinkingLevel = "off"
    tools: list[AgentTool[Any]] = field(default_factory=list)
    is_streaming: bool = False
    streaming_message: AgentMessage | None = None
    """The message being streamed right now (the provider's live partial), else None."""
    pending_tool_calls: frozenset[str] = frozenset()
    """Ids of tool calls started and not yet ended; replaced, never mutated, on each change."""
    error_message: str | None = None
    _messages: list[AgentMessage] | DeferredMessages = field(default_factory=list)

    @property
    def messages(self) -> list[AgentMessage]:
        """The transcript (built now if it was deferred)."""
        current = self._messages
        if isinstance(current, DeferredMessages):
            current = self._messages = current.build()
        return current

    @messages.setter
    def messages(self, messages: list[AgentMessage] | DeferredMessages) -> None:
        self._messages = messages

    @property
    def message_count(self) -> int:
        """`len(messages)`, without building a deferred transcript."""
        return len(self._messages)


class RunOutcome(Struct, frozen=True):
    """How the last run ended, recorded as it happened (not read back from the transcript later)."""

    kind: RunOutcomeKind
    final_message: AssistantMessage | None
    """The run's last assistant message (None if the run produced none)."""

    @property
    def aborted(self) -> bool:
        return self.kind == "aborted"


def _report_listener_error(error: BaseException, event: AgentEvent) -> None:
    logger.error("an event listener failed on %s: %s", event.type, error_text(error), exc_info=error)


class Agent:
    def __init__(
        self,
        *,
        model: Model | None = None,
        system_prompt: str = "",
        thinking_level: AgentThinkingLevel = "off",
        tools: Sequence[AgentTool[Any]] = (),
        messages: Sequence[AgentMessage] | DeferredMessages = (),
        convert_to_llm: ConvertToLlm | None = None,
        transform_context: TransformContext | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        stream_fn: AgentStreamFn | None = None,
        session_id: str | None = None,
        api_key: str | None = None,
        get_api_key: GetApiKey | None = None,
        on_payload: OnPayload | None = None,
        thinking_budgets: ThinkingBudgets | None = None,
        max_retry_delay_ms: int | None = None,
        tool_execution: ToolExecutionMode = "parallel",
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        stream_options: StreamOptions | None = None,
        get_stream_options: GetStreamOptions | None = None,
        on_listener_error: ListenerErrorHandler | None = None,
        on_queue_change: QueueChanged | None = None,
    ) -> None:
        """Every callback is given here, once; `get_api_key` and `get_stream_options` are asked per request."""
        self.state = AgentState(
            system_prompt=system_prompt,
            model=model,
            thinking_level=thinking_level,
            tools=list(tools),
            _messages=messages if isinstance(messages, DeferredMessages) else list(messages),
        )
        self.convert_to_llm = convert_to_llm
        self.transform_context = transform_context
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.stream_fn = stream_fn
        self.session_id = session_id
        self.api_key = api_key
        self.get_api_key = get_api_key
        self.on_payload = on_payload
        self.thinking_budgets = thinking_budgets
        self.max_retry_delay_ms = max_retry_delay_ms
        self.tool_execution: ToolExecutionMode = tool_execution
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.stream_options = stream_options
        self.get_stream_options = get_stream_options
        self.on_queue_change = on_queue_change
        self.last_run: RunOutcome | None = None
        self.on_listener_error: ListenerErrorHandler = on_listener_error or _report_listener_error
        self._listeners: list[AgentListener] = []
        self._steering: list[AgentMessage] = []
        self._follow_up: list[AgentMessage] = []
        self._taken: list[AgentMessage] = []
        """Messages taken from a queue whose `message_start` has not been seen yet (see `_take`)."""
        self._controller: AbortController | None = None
        self._idle: asyncio.Future[None] | None = None
        self._final: AssistantMessage | None = None

    # -- subscription ----------------------------------------------------------------------------

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Call `listener` with every event (awaited if it is a coroutine); returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # -- state setters ---------------------------------------------------------------------------

    def set_system_prompt(self, prompt: str) -> None:
        self.state.system_prompt = prompt

    def set_model(self, model: Model) -> None:
        self.state.model = model

    def set_thinking_level(self, level: AgentThinkingLevel) -> None:
        self.state.thinking_level = level

    def set_tools(self, tools: Sequence[AgentTool[Any]]) -> None:
        self.state.tools = list(tools)

    def replace_messages(self, messages: Sequence[AgentMessage] | DeferredMessages) -> None:
        """The new transcript; a `DeferredMessages` is built when the messages are first read."""
        self.state.messages = messages if isinstance(messages, DeferredMessages) else list(messages)

    def append_message(self, message: AgentMessage) -> None:
        self.state.messages.append(message)

    def clear_messages(self) -> None:
        self.state.messages = []

    @property
    def signal(self) -> AbortSignal | None:
        """The abort signal of the running prompt, if one runs."""
        return self._controller.signal if self._controller is not None else None

    # -- queues ----------------------------------------------------------------------------------

    def steer(self, message: AgentMessage) -> None:
        """Queue a message for the model to read right after the current turn."""
        self._steering.append(message)
        self._queue_changed()

    def follow_up(self, message: AgentMessage) -> None:
        """Queue a message for when the model would otherwise stop."""
        self._follow_up.append(message)
        self._queue_changed()

    @property
    def steering_queue(self) -> tuple[AgentMessage, ...]:
        """Steering messages waiting, oldest first."""
        return tuple(self._steering)

    @property
    def follow_up_queue(self) -> tuple[AgentMessage, ...]:
        """Follow-up messages waiting, oldest first."""
        return tuple(self._follow_up)

    def clear_steering_queue(self) -> None:
        self._steering = []
        self._queue_changed()

    def clear_follow_up_queue(self) -> None:
        self._follow_up = []
        self._queue_changed()

    def clear_all_queues(self) -> None:
        self._steering = []
        self._follow_up = []
        self._queue_changed()

    @property
    def queued_message_count(self) -> int:
        """Steering plus follow-up messages waiting to be sent."""
        return len(self._steering) + len(self._follow_up)

    def has_queued_messages(self) -> bool:
        return bool(self._steering or self._follow_up)

    def _queue_changed(self) -> None:
        if self.on_queue_change is not None:
            self.on_queue_change()

    def _take(self, queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
        if not queue or (self._controller is not None and self._controller.signal.aborted):
            return []
        if mode == "one-at-a-time":
            taken = [queue.pop(0)]
        else:
            taken = list(queue)
            queue.clear()
        # The queue's change is announced with the first taken message's `message_start`, as pi does
        # (after the `turn_start` of the turn that sends it), not here when the loop asks for it.
        self._taken.extend(taken)
        return taken

    def _announce_taken(self, event: AgentEvent) -> None:
        """Announce the queue once a message taken from it starts (the loop starts every message it takes)."""
        if self._taken and isinstance(event, MessageStartEvent) and any(m is event.message for m in self._taken):
            self._taken = []
            self._queue_changed()

    def _take_steering(self) -> list[AgentMessage]:
        return self._take(self._steering, self.steering_mode)

    def _take_follow_up(self) -> list[AgentMessage]:
        return self._take(self._follow_up, self.follow_up_mode)

    # -- running ---------------------------------------------------------------------------------

    async def prompt(
        self,
        message: str | AgentMessage | Sequence[AgentMessage],
        images: Sequence[ImageContent] | None = None,
    ) -> None:
        """Send a message (text, one message, or several) and return when the run has ended."""
        if self.state.is_streaming:
            raise RuntimeError(BUSY_PROMPT)
        if self.state.model is None:
            raise RuntimeError(NO_MODEL)
        if isinstance(message, str):
            content: list[TextContent | ImageContent] = [TextContent(text=message), *(images or ())]
            prompts: list[AgentMessage] = [UserMessage(content=content)]
        elif isinstance(message, list | tuple):
            prompts = list(message)
        else:
            prompts = [cast(AgentMessage, message)]
        await self._run(prompts)

    async def continue_run(self) -> None:
        """Run again from the transcript as it is: after an error, or with queued messages.

        When the transcript ends with an assistant message, a queued steering message (else a
        follow-up) is sent as the prompt; with nothing queued there is nothing to answer.
        """
        if self.state.is_streaming:
            raise RuntimeError(BUSY_CONTINUE)
        if self.state.model is None:
            raise RuntimeError(NO_MODEL)
        messages = self.state.messages
        if not messages:
            raise RuntimeError(NO_MESSAGES)
        if getattr(messages[-1], "role", None) == "assistant":
            steering = self._take_steering()
            if steering:
                await self._run(steering, skip_initial_steering=True)
                return
            follow_ups = self._take_follow_up()
            if follow_ups:
                await self._run(follow_ups)
                return
            raise RuntimeError(CANNOT_CONTINUE_ASSISTANT)
        await self._run(None)

    def abort(self) -> None:
        """Stop the running prompt: the provider request and every running tool see the signal."""
        if self._controller is not None:
            self._controller.abort()

    async def wait_for_idle(self) -> None:
        """Return once no prompt is running (at once if none is)."""
        idle = self._idle
        if idle is not None:
            await asyncio.shield(idle)

    def reset(self) -> None:
        """Forget the conversation, queues and error.

        Refused while a prompt runs: its remaining events would land in the emptied transcript.
        Abort it and wait for idle first.
        """
        if self._idle is not None:
            raise RuntimeError(RESET_WHILE_RUNNING)
        state = self.state
        state.messages = []
        state.is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        state.error_message = None
        self.last_run = None
        self._taken = []
        if self._steering or self._follow_up:  # empty queues stay as they were: nothing to announce
            self.clear_all_queues()

    def _config(self, model: Model, skip_initial_steering: bool) -> AgentLoopConfig:
        skip = [skip_initial_steering]

        def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._take_steering()

        level = self.state.thinking_level
        return AgentLoopConfig(
            model=model,
            reasoning=None if level == "off" else level,
            session_id=self.session_id,
            api_key=self.api_key,
            get_api_key=self.get_api_key,
            transform_context=self.transform_context,
            convert_to_llm=self.convert_to_llm,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            tool_execution=self.tool_execution,
            get_steering_messages=steering,
            get_follow_up_messages=self._take_follow_up,
            on_payload=self.on_payload,
            thinking_budgets=self.thinking_budgets,
            max_retry_delay_ms=self.max_retry_delay_ms,
            stream_options=self.stream_options,
            get_stream_options=self.get_stream_options,
            get_tools=lambda: self.state.tools,
        )

    async def _run(self, prompts: list[AgentMessage] | None, *, skip_initial_steering: bool = False) -> None:
        model = self.state.model
        assert model is not None
        controller = AbortController()
        self._controller = controller
        self._idle = asyncio.get_running_loop().create_future()
        self.last_run = None
        self._final = None
        state = self.state
        state.is_streaming = True
        state.streaming_message = None
        state.error_message = None
        context = AgentContext(state.system_prompt, list(state.messages), list(state.tools))
        config = self._config(model, skip_initial_steering)
        signal = controller.signal
        try:
            if prompts is None:
                events = agent_loop_continue(context, config, signal, self.stream_fn)
            else:
                events = agent_loop(prompts, context, config, signal, self.stream_fn)
            async for event in events:
                await self._process(event)
        except Exception as exc:
            await self._fail(model, signal, exc)
        finally:
            self.last_run = self._outcome(signal)
            state.is_streaming = False
            state.streaming_message = None
            state.pending_tool_calls = frozenset()
            self._controller = None
            idle, self._idle = self._idle, None
            if idle is not None and not idle.done():
                idle.set_result(None)

    def _outcome(self, signal: AbortSignal) -> RunOutcome:
        final = self._final
        if signal.aborted or (final is not None and final.stop_reason == "aborted"):
            return RunOutcome("aborted", final)
        if final is not None and final.stop_reason == "error":
            return RunOutcome("error", final)
        return RunOutcome("completed", final)

    async def _fail(self, model: Model, signal: AbortSignal, exc: Exception) -> None:
        """The loop broke its contract (it raised); record that as a failed assistant turn."""
        reason: Literal["error", "aborted"] = "aborted" if signal.aborted else "error"
        message = failure_message(model, reason, error_text(exc))
        for event in (
            MessageStartEvent(message),
            MessageEndEvent(message),
            TurnEndEvent(message, []),
            AgentEndEvent([message]),
        ):
            await self._process(event)

    async def _process(self, event: AgentEvent) -> None:
        self._announce_taken(event)
        self._reduce(event)
        for listener in list(self._listeners):
            try:
                outcome = listener(event)
                if outcome is not None:
                    await outcome
            except Exception as error:
                try:
                    self.on_listener_error(error, event)
                except Exception:
                    _report_listener_error(error, event)

    def _reduce(self, event: AgentEvent) -> None:
        state = self.state
        if isinstance(event, MessageUpdateEvent | MessageStartEvent):
            state.streaming_message = event.message
        elif isinstance(event, MessageEndEvent):
            state.streaming_message = None
            state.messages.append(event.message)
            if isinstance(event.message, AssistantMessage):
                self._final = event.message
        elif isinstance(event, ToolExecutionStartEvent):
            state.pending_tool_calls = state.pending_tool_calls | {event.tool_call_id}
        elif isinstance(event, ToolExecutionEndEvent):
            state.pending_tool_calls = state.pending_tool_calls - {event.tool_call_id}
        elif isinstance(event, TurnEndEvent) and event.message.error_message:
            state.error_message = event.message.error_message


__all__ = [
    "BUSY_CONTINUE",
    "BUSY_PROMPT",
    "CANNOT_CONTINUE_ASSISTANT",
    "NO_MESSAGES",
    "NO_MODEL",
    "RESET_WHILE_RUNNING",
    "Agent",
    "AgentListener",
    "AgentState",
    "AgentThinkingLevel",
    "ListenerErrorHandler",
    "QueueChanged",
    "QueueMode",
    "RunOutcome",
    "RunOutcomeKind",
]
