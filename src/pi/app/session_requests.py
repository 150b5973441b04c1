"""What each model request of a session carries: the key, the headers, the session id, the transcript.

All of it is worked out per request from the model the request goes to, never kept from an earlier
one: after a switch to another provider's model (set_model, switch_session, fork) the next request
must carry only that provider's credentials and headers.

The system prompt and the tool declarations are sent whole with every request, and the session file
records them as ``role:"system"`` messages: the full set before the first user message, then only
what changed (`SystemDeclaration`), so that the file says which prompt and tools each reply had.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from pi.agent.messages import AgentMessage
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.options import StreamOptions
from pi.ai.types import AssistantMessage, Context, Message, Model
from pi.app.model_registry import ModelRegistry
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager

if TYPE_CHECKING:
    from pi.agent import Agent
    from pi.agent.tool import AgentTool
    from pi.app.auth import AuthStorage
    from pi.app.oauth.credentials import RequestAuth
    from pi.app.oauth.session_auth import SessionCredentials
    from pi.app.resources import Resources
    from pi.app.system_prompt import PromptSection, SystemPromptInputs
    from pi.session.messages import SystemMessage


class RequestResolver:
    """Credentials, headers and options of each model request, worked out for the model it goes to.

    An API key comes from the model registry (``--api-key``, auth.json, models.json, environment).
    An OAuth login stored in auth.json is resolved per request by `stream_options`, which may have
    to refresh it under the auth.json lock first; `api_key` therefore gives None for such a
    provider, and the loop takes the fresh token from the options instead of a stale one.
    """

    def __init__(
        self,
        registry: ModelRegistry,
        settings: SettingsManager,
        manager: Callable[[], SessionManager],
    ) -> None:
        self.registry = registry
        self.settings = settings
        self._manager = manager
        self._credentials: SessionCredentials | None = None
        self._shaping = _model_shaping(registry.auth)

    def _uses_oauth(self, provider: str) -> bool:
        auth = self.registry.auth
        self._reshape_models()
        return not auth.runtime_api_key(provider) and auth.stored_type(provider) == "oauth"

    def _reshape_models(self) -> None:
        auth = self.registry.auth
        if auth.reload_if_changed() or auth.oauth_providers():
            shaping = _model_shaping(auth)
            if shaping != self._shaping:
                self._shaping = shaping
                self.registry.reload()  # a login or logout elsewhere changes which models exist and where

    def _moved_base_url(self, model: Model) -> str | None:
        """Where `model` is served now, when the credential just resolved (and maybe refreshed) moved it.

        A Copilot token names its endpoint (`proxy-ep`); a refresh that changes it applies to this
        very request, not only once the model is picked again.
        """
        self._reshape_models()
        current = self.registry.find(model.provider, model.id)
        return current.base_url if current is not None and current.base_url != model.base_url else None

    def api_key(self, provider: str) -> str | None:
        """The API key for `provider`; None when its key is an OAuth token (`stream_options` carries that)."""
        if self._uses_oauth(provider):
            return None
        return self.registry.get_api_key(provider)

    async def request_auth(self, provider: str) -> RequestAuth | None:
        """The stored OAuth credential for `provider` as of now (refreshed when about to expire), if any."""
        if not self._uses_oauth(provider):
            return None
        if self._credentials is None:
            from pi.app.oauth.session_auth import SessionCredentials

            self._credentials = SessionCredentials(self.registry.auth)
        return await self._credentials.resolve(provider)

    async def stream_options(self, model: Model, caller: StreamOptions | None = None) -> StreamOptions:
        """What a request to `model` carries: an OAuth login's key, the configured headers, the session id.

        The one place credentials and headers meet: the loop asks for each request with no `caller`;
        a one-shot request (`complete_fn`) passes its own options, whose headers and session id win
        while an OAuth token replaces its key (a stored login is the only credential that works).
        Headers are resolved now, for this model only, so none from another model can come along.
        """
        auth = await self.request_auth(model.provider)
        key = auth.api_key if auth is not None else self.registry.get_api_key(model.provider)
        base = caller if caller is not None else StreamOptions()
        headers = {
            **(auth.headers if auth is not None else {}),
            **(self.registry.request_headers(model, key) or {}),
            **(base.headers or {}),
        }
        extra = dict(base.extra)
        moved = self._moved_base_url(model) if auth is not None and auth.base_url else None
        if moved is not None:
            extra.setdefault("base_url", moved)
        transport = self.settings.get("transport")
        if model.api == "openai-codex-responses" and isinstance(transport, str):
            extra.setdefault("transport", transport)
        connect_timeout = self.settings.get("websocketConnectTimeoutMs")
        if model.api == "openai-codex-responses" and isinstance(connect_timeout, int):
            extra.setdefault("websocket_connect_timeout_ms", connect_timeout)
        return replace(
            base,
            api_key=(auth.api_key if auth is not None else None) or base.api_key,
            headers=headers or None,
            session_id=base.session_id or self._manager().get_session_id(),
            max_retries=self.settings.retry.provider.max_retries if caller is None else base.max_retries,
            timeout_s=base.timeout_s if base.timeout_s is not None else self.settings.response_timeout_s,
            extra=extra,
        )

    def convert_to_llm(self, messages: list[AgentMessage]) -> list[Message]:
        from pi.session.messages import convert_to_llm

        images = self.settings.get("images")
        block = bool(images.get("blockImages", False)) if isinstance(images, dict) else False
        return list(convert_to_llm(messages, block_images=block))

    def complete_fn(self, stream_fn: Any) -> Any:
        """A one-shot request function (for summaries) that carries the same per-model credentials and headers."""

        async def complete(model: Model, context: Context, options: StreamOptions, /) -> AssistantMessage:
            merged = await self.stream_options(model, options)
            if stream_fn is None:
                from pi.ai.stream import complete_simple

                return await complete_simple(model, context, merged)
            events = stream_fn(model, context, merged)
            if not isinstance(events, AssistantMessageEventStream):
                events = await events
            reply: AssistantMessage = await events.result()
            return reply

        return complete


def _model_shaping(auth: AuthStorage) -> tuple[list[str], dict[str, Any] | None]:
    """What of auth.json the model list depends on: which logins exist, and Copilot's."""
    from pi.app.oauth.model_overrides import copilot_shaping

    return auth.oauth_providers(), copilot_shaping(auth.raw_entry("github-copilot"))


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


def prompt_inputs(cwd: Path, tools: Sequence[AgentTool[Any]], resources: Resources) -> SystemPromptInputs:
    """What the system prompt is built from: the tools, the user's prompt files, context files, skills."""
    from pi.app.package_docs import package_docs_dir
    from pi.app.system_prompt import SystemPromptInputs

    return SystemPromptInputs(
        cwd=cwd,
        tools=tools,
        custom_prompt=resources.custom_system_prompt,
        append=resources.append_system_prompt,
        context_files=resources.context_files,
        skills=resources.skills,
        docs_dir=package_docs_dir(),
    )


def tool_definition(tool: AgentTool[Any]) -> dict[str, Any]:
    """A tool as a system message declares it: ``{name, description, parameters}``, as the model is sent it."""
    return tool.to_tool().to_json_dict()


class SystemDeclaration:
    """Keeps the agent's system prompt in step with its tools, and says what the session file must record.

    The prompt is rebuilt from the tools active at each prompt (its tools and rules sections follow
    them). A prompt someone set on the agent by hand is left alone and recorded whole, as its
    preamble. What is recorded is the difference to the state the branch's system messages declare.
    """

    def __init__(self) -> None:
        self._built: str | None = None
        """The prompt text last built here (None until the first prompt)."""

    def next_message(
        self,
        agent: Agent,
        manager: SessionManager,
        cwd: Path,
        resources: Resources,
        initial_tools: Sequence[AgentTool[Any]],
    ) -> SystemMessage | None:
        """The system message to store before the next user message, or None when nothing changed."""
        from pi.app.system_prompt import build_prompt_sections, render_prompt_sections
        from pi.session.system_state import system_message_patch

        previous = manager.get_system_state()
        tools = list(agent.state.tools)
        if previous is not None and {t.name for t in tools} == set(previous.tools):
            order = list(previous.tools)
            tools.sort(key=lambda t: order.index(t.name))  # a reorder of the same tools is no change
        parts = build_prompt_sections(prompt_inputs(cwd, tools, resources))
        rendered = render_prompt_sections(parts)
        if self._built is None:
            same_tools = [t.name for t in tools] == [t.name for t in initial_tools]
            self._built = rendered if same_tools else _render(cwd, initial_tools, resources)
        sections: dict[str, str]
        if agent.state.system_prompt == self._built:
            sections = {part.name: part.render() for part in parts}
            self._built = rendered
            agent.set_system_prompt(rendered)
        else:
            sections = {"preamble": agent.state.system_prompt}
        return system_message_patch(previous, sections, [tool_definition(t) for t in tools])


def _render(cwd: Path, tools: Sequence[AgentTool[Any]], resources: Resources) -> str:
    from pi.app.system_prompt import build_prompt_sections, render_prompt_sections

    parts: list[PromptSection] = build_prompt_sections(prompt_inputs(cwd, tools, resources))
    return render_prompt_sections(parts)


__all__ = ["RequestResolver", "SystemDeclaration", "prompt_inputs", "session_environment", "tool_definition"]
