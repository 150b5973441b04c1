"""The message queue side of `AgentSession`: steering and follow-up messages, their modes and display.

A mixin so the session's facade stays readable. Messages queued while a run is busy live in the
Agent's queues (the one owner of that state); this reads them as texts for display and puts new
ones in, through the `input` hooks and extension commands when the caller asks for that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi.app.session_runtime import message_text

if TYPE_CHECKING:
    from pi.ai.types import ImageContent
    from pi.app.session_extensions import SessionExtensions
    from pi.app.session_hooks import InputSource
    from pi.app.session_images import ImageFitter
    from pi.app.session_prompting import Disposition, Prompting, StreamingBehavior
    from pi.app.session_runtime import SessionCore


class SessionQueueMethods:
    _extensions: SessionExtensions | None
    _core: SessionCore
    _prompting: Prompting
    _images: ImageFitter

    def expand_input(self, text: str) -> str:
        """`/skill:name` and `/template` commands become the text they stand for."""
        return self._prompting.expand_input(text)

    @property
    def steering_queue(self) -> list[str]:
        """Texts of the steering messages waiting, oldest first."""
        return [message_text(m) for m in self._core.agent.steering_queue]

    @property
    def follow_up_queue(self) -> list[str]:
        """Texts of the follow-up messages waiting, oldest first."""
        return [message_text(m) for m in self._core.agent.follow_up_queue]

    @property
    def pending_message_count(self) -> int:
        return self._core.agent.queued_message_count

    @property
    def steering_mode(self) -> str:
        return self._core.agent.steering_mode

    @property
    def follow_up_mode(self) -> str:
        return self._core.agent.follow_up_mode

    def set_steering_mode(self, mode: str) -> None:
        self._core.agent.steering_mode = "all" if mode == "all" else "one-at-a-time"

    def set_follow_up_mode(self, mode: str) -> None:
        self._core.agent.follow_up_mode = "all" if mode == "all" else "one-at-a-time"

    def steer(self, text: str, images: Sequence[ImageContent] | None = None, expand: bool = True) -> None:
        """Queue a message for right after the current turn (no input hooks: see `queue_message`)."""
        from pi.app.session_prompting import user_message

        text, fitted = self._images.fit_prompt_now(self.expand_input(text) if expand else text, images)
        self._core.agent.steer(user_message(text, fitted))

    def follow_up(self, text: str, images: Sequence[ImageContent] | None = None, expand: bool = True) -> None:
        """Queue a message for when the agent would otherwise stop."""
        from pi.app.session_prompting import user_message

        text, fitted = self._images.fit_prompt_now(self.expand_input(text) if expand else text, images)
        self._core.agent.follow_up(user_message(text, fitted))

    async def queue_message(
        self,
        text: str,
        images: Sequence[ImageContent] | None,
        behavior: StreamingBehavior,
        source: InputSource = "sdk",
    ) -> Disposition:
        """Steer or follow up through the `input` hooks; returns "queued" or "handled"."""
        if self._extensions is not None and await self._extensions.run_command(text):
            return "handled"
        text, fitted = await self._images.fit_prompt(text, images)
        return await self._prompting.queue(text, fitted, behavior, source)

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Remove every queued message; returns the texts removed (steering, follow-up)."""
        return self._prompting.clear_queue()


__all__ = ["SessionQueueMethods"]
