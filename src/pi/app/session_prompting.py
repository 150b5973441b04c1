"""Prompting a session: the input chain, queueing while busy, one run and what follows it, abort.

A prompt goes through the `input` hooks, then skill and template expansion. While the session is
busy it is queued (steer or follow-up, as the caller says); otherwise it starts a run, which lasts
until automatic recovery and every queued message are done, and ends with `agent_settled`.

Abort is an explicit state: `abort()` stops the run, the retry wait and any compaction, and from
then on nothing queued is sent automatically. What was queued stays queued, visible through the
queue properties and `queue_update`, for the user to send (with the next prompt) or clear.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

from pi.ai.types import ImageContent, Model, TextContent, UserMessage
from pi.app.session_compaction import Compactor
from pi.app.session_events import AgentSettledEvent
from pi.app.session_hooks import InputSource
from pi.app.session_recovery import Recovery
from pi.app.session_requests import SystemDeclaration
from pi.app.session_runtime import SessionCore, message_text

if TYPE_CHECKING:
    from pi.agent.messages import AgentMessage
    from pi.session.messages import SystemMessage

StreamingBehavior: TypeAlias = Literal["steer", "followUp"]
Disposition: TypeAlias = Literal["started", "queued", "handled"]

BUSY_WITHOUT_BEHAVIOR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
BUSY_COMPACTING = "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."


def user_message(text: str, images: Sequence[ImageContent] | None) -> UserMessage:
    return UserMessage(content=[TextContent(text=text), *(images or ())])


class Prompting:
    def __init__(
        self,
        core: SessionCore,
        recovery: Recovery,
        compactor: Compactor,
        require_model: Callable[[], Model],
        before_run: Callable[[], None],
    ) -> None:
        self.core = core
        self.recovery = recovery
        self.compactor = compactor
        self._require_model = require_model
        self._before_run = before_run
        self._system = SystemDeclaration()
        self.before_start: Callable[[UserMessage], Awaitable[list[AgentMessage]]] | None = None
        """Called as each run starts with its prompt; returns messages to send after it (extensions)."""
        self.before_settle: Callable[[str], Awaitable[bool]] | None = None
        """Called with the run's outcome before it settles; True asks for one more provider request."""

    @property
    def busy(self) -> bool:
        return self.core.run.busy or self.core.agent.state.is_streaming

    def expand_input(self, text: str) -> str:
        """``/skill:name`` and ``/template`` commands become the text they stand for."""
        from pi.app.prompt_templates import expand_prompt_template
        from pi.app.skills import expand_skill_command

        resources = self.core.resources
        if self.core.settings.get("enableSkillCommands", True):
            text = expand_skill_command(text, resources.skills)
        return expand_prompt_template(text, resources.templates)

    async def preflight(
        self,
        text: str,
        images: Sequence[ImageContent] | None,
        behavior: StreamingBehavior | None,
        expand: bool,
        source: InputSource,
    ) -> tuple[Disposition, UserMessage | None]:
        """Everything before a run starts. On ("started", message) the session is busy: call `run(message)`."""
        busy = self.busy
        outcome = await self.core.chains.input(
            text, list(images) if images else None, source, behavior if busy else None
        )
        if outcome.handled:
            return "handled", None
        text = self.expand_input(outcome.text) if expand else outcome.text
        message = user_message(text, outcome.images)
        if self.busy:
            if behavior == "steer":
                self.core.agent.steer(message)
            elif behavior == "followUp":
                self.core.agent.follow_up(message)
            else:
                raise RuntimeError(BUSY_COMPACTING if self.core.run.compacting else BUSY_WITHOUT_BEHAVIOR)
            return "queued", None
        self._require_model()
        self.core.run.enter()
        self.core.run.aborted = False
        return "started", message

    async def run(self, message: UserMessage) -> None:
        """One prompt's run and all that follows it; the caller made the session busy (`preflight`)."""
        core = self.core
        try:
            self._before_run()
            self.recovery.start_sequence()
            await self.compactor.check_threshold(before_prompt=True)
            if not core.run.aborted:
                extra = await self.before_start(message) if self.before_start is not None else []
                await core.agent.prompt([*self._system_messages(), message, *extra])
                await self._follow_through()
                await self._settle()
        finally:
            core.run.leave()
            await core.events.emit(AgentSettledEvent(aborted=core.run.aborted))

    async def _settle(self) -> None:
        """The `before_settle` boundary: a requested continuation runs (never after an abort)."""
        core = self.core
        while self.before_settle is not None and not core.run.aborted:
            last = core.agent.last_run
            outcome = last.kind if last is not None else "error"
            if not await self.before_settle(outcome) or core.run.aborted:
                return
            await core.agent.continue_run()
            await self._follow_through()

    def _system_messages(self) -> list[SystemMessage]:
        """The system message that goes before this prompt: the full prompt first, later what changed."""
        core = self.core
        declared = self._system.next_message(core.agent, core.manager, core.cwd, core.resources, core.tools)
        return [declared] if declared is not None else []

    async def _follow_through(self) -> None:
        """Recovery, then the messages queued while a retry waited or a compaction ran, until none is left."""
        core = self.core
        while True:
            while await self.recovery.recover():
                pass
            await self.recovery.end_sequence()
            if core.run.aborted:
                return
            await self.compactor.check_threshold()
            outcome = core.agent.last_run
            if core.run.aborted or not core.agent.has_queued_messages():
                return
            if outcome is None or outcome.kind != "completed":
                return
            await core.agent.continue_run()

    async def queue(
        self,
        text: str,
        images: Sequence[ImageContent] | None,
        behavior: StreamingBehavior,
        source: InputSource,
        expand: bool = True,
    ) -> Disposition:
        """Steer or follow up through the input chain; the message waits in its queue even when idle."""
        outcome = await self.core.chains.input(text, list(images) if images else None, source, behavior)
        if outcome.handled:
            return "handled"
        final = self.expand_input(outcome.text) if expand else outcome.text
        if behavior == "steer":
            self.core.agent.steer(user_message(final, outcome.images))
        else:
            self.core.agent.follow_up(user_message(final, outcome.images))
        return "queued"

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Remove every queued message; returns their texts (steering, follow-up)."""
        agent = self.core.agent
        steering = [message_text(m) for m in agent.steering_queue]
        follow_up = [message_text(m) for m in agent.follow_up_queue]
        agent.clear_all_queues()
        return steering, follow_up

    async def abort(self) -> None:
        """Stop the run, any retry wait and any compaction; return once all of them have stopped."""
        core = self.core
        core.run.aborted = True
        self.recovery.abort()
        self.compactor.abort()
        core.agent.abort()
        await self.wait_for_idle()

    async def wait_for_idle(self) -> None:
        await self.core.agent.wait_for_idle()
        await self.core.run.wait_idle()


__all__ = ["BUSY_COMPACTING", "BUSY_WITHOUT_BEHAVIOR", "Disposition", "Prompting", "StreamingBehavior", "user_message"]
