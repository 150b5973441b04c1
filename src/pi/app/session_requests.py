"""What each model request of a session carries: the key, the headers, the session id, the transcript.

All of it is worked out per request from the model the request goes to, never kept from an earlier
one: after a switch to another provider's model (set_model, switch_session, fork) the next request
must carry only that provider's credentials and headers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pi.agent.messages import AgentMessage
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Message, Model
from pi.app.model_registry import ModelRegistry
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager


class RequestResolver:
    def __init__(
        self,
        registry: ModelRegistry,
        settings: SettingsManager,
        manager: Callable[[], SessionManager],
    ) -> None:
        self.registry = registry
        self.settings = settings
        self._manager = manager

    def api_key(self, provider: str) -> str | None:
        return self.registry.get_api_key(provider)

    def stream_options(self, model: Model) -> StreamOptions:
        """Headers models.json asks for this model (resolved now), and the current session id."""
        headers = self.registry.request_headers(model, self.registry.get_api_key(model.provider))
        return StreamOptions(headers=headers, session_id=self._manager().get_session_id())

    def convert_to_llm(self, messages: list[AgentMessage]) -> list[Message]:
        from pi.session.messages import convert_to_llm

        images = self.settings.get("images")
        block = bool(images.get("blockImages", False)) if isinstance(images, dict) else False
        return list(convert_to_llm(messages, block_images=block))

    def complete_fn(self, stream_fn: Any) -> Any:
        """A one-shot request function (for summaries) that carries the same per-model headers."""

        async def complete(model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
            extra = self.stream_options(model)
            merged = replace(
                options,
                headers={**(extra.headers or {}), **(options.headers or {})} or None,
                session_id=options.session_id or extra.session_id,
            )
            if stream_fn is None:
                from pi.ai.stream import complete_simple

                return await complete_simple(model, context, merged)
            events = stream_fn(model, context, merged)
            if not isinstance(events, AssistantMessageEventStream):
                events = await events
            reply: AssistantMessage = await events.result()
            return reply

        return complete


def session_environment(manager: SessionManager, model: Model | None, thinking_level: str) -> Mapping[str, str]:
    """PI_* variables a command the model runs can read: the session, the model, the thinking level."""
    env = {"PI_SESSION_ID": manager.get_session_id()}
    path = manager.get_session_file()
    if path is not None:
        env["PI_SESSION_FILE"] = str(path)
    if model is not None:
        env["PI_PROVIDER"] = model.provider
        env["PI_MODEL"] = model.id
    env["PI_REASONING_LEVEL"] = thinking_level
    return env


__all__ = ["RequestResolver", "session_environment"]
