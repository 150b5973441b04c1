"""AgentSession: one coding conversation, as every mode (print, JSON, RPC, TUI) and the SDK drive it.

It wraps the `Agent` with what a coding agent adds around the loop: the session file (every message
appended as it ends), prompt templates and skill commands, the model and thinking level (recorded
as session entries), commands the user runs by hand, automatic retry and compaction, and hook
chains. This class is the facade; each concern lives in its own module:

- `session_prompting`: prompts, queues, abort;       - `session_recovery`: retry and overflow policy;
- `session_compaction`: manual and automatic compaction; - `session_navigation`: new, switch, fork, clone;
- `session_models`: model and thinking level;         - `session_bash`: the user's own commands;
- `session_requests`: key, headers and transcript of each request; `session_hooks`: interception chains;
- `session_events` and `event_hub`: what listeners receive, and how;
- `session_queue_api` and `session_extensions_api`: the queue and extension methods (mixins);
- `session_images`: images sized for the current model as they enter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec.structs

from pi.agent import Agent
from pi.agent.events import AgentEndEvent, AgentEvent, MessageEndEvent
from pi.agent.messages import AgentMessage
from pi.agent.tool import AgentTool
from pi.ai.types import AssistantMessage, ImageContent, ImageResize, Model, TextContent
from pi.app.event_hub import EventHub, Listener
from pi.app.model_registry import ModelRegistry
from pi.app.model_resolver import as_thinking_level
from pi.app.resources import Resources
from pi.app.session_bash import BashResult, UserBash
from pi.app.session_compaction import Compactor
from pi.app.session_events import EntryAppendedEvent, SessionEvent, SessionInfoChangedEvent
from pi.app.session_extensions_api import SessionExtensionMethods
from pi.app.session_extensions_config import ExtensionConfig
from pi.app.session_hooks import HookChains, InputSource, SessionHooks
from pi.app.session_images import ImageFitter
from pi.app.session_models import ModelControl
from pi.app.session_navigation import Navigation
from pi.app.session_prompting import BUSY_WITHOUT_BEHAVIOR, Disposition, Prompting, StreamingBehavior
from pi.app.session_queue_api import SessionQueueMethods
from pi.app.session_recovery import Recovery, is_retryable_error
from pi.app.session_requests import RequestResolver, session_environment
from pi.app.session_runtime import AgentSetup, SessionCore
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager

if TYPE_CHECKING:
    from pi.app.session_extensions import SessionExtensions

SessionListener = Listener[SessionEvent]


class NoApiKeyError(RuntimeError):
    """The session has no model, or no key for its model's provider; the message says how to fix it."""


class AgentSession(SessionQueueMethods, SessionExtensionMethods):
    def __init__(
        self,
        *,
        setup: AgentSetup,
        session: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        resources: Resources,
        cwd: Path,
        tools: Sequence[AgentTool[Any]],
        scoped_models: Sequence[tuple[Model, str | None]] = (),
        hooks: SessionHooks | None = None,
        extension_config: ExtensionConfig | None = None,
    ) -> None:
        self.hooks = hooks or SessionHooks()
        """The interception chains; append handlers to its lists at any time."""
        chains = HookChains(self.hooks)
        requests = RequestResolver(model_registry, settings, lambda: self.session)
        self._images = ImageFitter(lambda: self._core.model, settings)
        agent = self._new_agent(setup, tools, requests, chains)
        self._core = SessionCore(
            agent=agent,
            manager=session,
            settings=settings,
            registry=model_registry,
            resources=resources,
            cwd=cwd,
            tools=list(tools),
            requests=requests,
            chains=chains,
            events=EventHub(),
            scoped_models=list(scoped_models),
        )
        core = self._core
        self._compactor = Compactor(core, self.require_model)
        self._recovery = Recovery(core, self._compactor)
        self._bash = UserBash(core, self.session_environment)
        self._prompting = Prompting(core, self._recovery, self._compactor, self.require_model, self._bash.flush_pending)
        self._models = ModelControl(core)
        self._navigation = Navigation(core, self._models, self.abort, self._compactor)
        agent.subscribe(self._on_agent_event)
        from pi.app.session_cache_warming import attach_cache_warming

        self.cache_warming = attach_cache_warming(self)
        """Prompt-cache refreshes between requests (`cacheWarming`); `.warmer.status` says what it does."""
        self._extension_config = extension_config
        self._extensions: SessionExtensions | None = None
        self._extension_error_listeners: list[Callable[[Any], None]] = []

    def _new_agent(
        self, setup: AgentSetup, tools: Sequence[AgentTool[Any]], requests: RequestResolver, chains: HookChains
    ) -> Agent:
        """The Agent, wired to the session's request resolver, hook chains, image fitting and queue events."""
        return Agent(
            model=setup.model,
            system_prompt=setup.system_prompt,
            thinking_level=as_thinking_level(setup.thinking_level),
            tools=tools,
            messages=setup.messages,
            convert_to_llm=requests.convert_to_llm,
            transform_context=chains.transform_context,
            steering_mode=setup.steering_mode,
            follow_up_mode=setup.follow_up_mode,
            stream_fn=setup.stream_fn,
            get_api_key=requests.api_key,
            get_stream_options=requests.stream_options,
            on_payload=chains.on_payload,
            thinking_budgets=setup.thinking_budgets,
            max_retry_delay_ms=setup.max_retry_delay_ms,
            before_tool_call=chains.before_tool_call,
            after_tool_call=self._images.after_tool_call(chains.after_tool_call),
            on_queue_change=self._queue_changed,
        )

    # -- parts -------------------------------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        return self._core.agent

    @property
    def session(self) -> SessionManager:
        return self._core.manager

    @property
    def settings(self) -> SettingsManager:
        return self._core.settings

    @property
    def model_registry(self) -> ModelRegistry:
        return self._core.registry

    @property
    def resources(self) -> Resources:
        return self._core.resources

    @property
    def cwd(self) -> Path:
        return self._core.cwd

    @property
    def tools(self) -> list[AgentTool[Any]]:
        return self._core.tools

    @property
    def scoped_models(self) -> list[tuple[Model, str | None]]:
        return self._core.scoped_models

    # -- events ------------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener, *, awaited: bool = False) -> Callable[[], None]:
        """Call `listener` with every session event, in order; returns the function that unsubscribes it.

        By default each listener gets its own queue and is called from its own task: a slow listener
        (a UI that redraws, a sleep per event) falls behind on its own and never slows the model's
        stream or the other listeners. `prompt()` returns only after every listener has seen the
        run's events. With `awaited=True` the listener is called inline and awaited before the
        session goes on: for effects that must happen in step with the run (protocol output that
        interleaves with command responses). A listener that raises is logged and keeps receiving.
        """
        return self._core.events.subscribe(listener, awaited=awaited)

    async def drain_events(self) -> None:
        """Return once every listener has been given every event emitted so far."""
        await self._core.events.drain()

    async def _on_agent_event(self, event: AgentEvent) -> None:
        core = self._core
        if isinstance(event, MessageEndEvent):
            if core.message_end is not None:
                event = msgspec.structs.replace(event, message=await core.message_end(event.message))
            core.persist(event.message)
            await core.events.emit(event)
            if isinstance(event.message, AssistantMessage):
                await self._recovery.on_reply_end(event.message)
            return
        if isinstance(event, AgentEndEvent):
            aborted = core.run.aborted or (core.agent.signal is not None and core.agent.signal.aborted)
            event = msgspec.structs.replace(event, will_retry=self._recovery.on_agent_end(event, aborted))
        await core.events.emit(event)

    def _queue_changed(self) -> None:
        self._core.events.emit_nowait(self._core.queue_event())

    # -- state -------------------------------------------------------------------------------------

    @property
    def model(self) -> Model | None:
        return self._core.model

    @property
    def thinking_level(self) -> str:
        return self._core.agent.state.thinking_level

    @property
    def messages(self) -> list[AgentMessage]:
        return self._core.agent.state.messages

    @property
    def message_count(self) -> int:
        """`len(messages)` without building a resumed transcript that nothing has read yet."""
        return self._core.agent.state.message_count

    @property
    def is_streaming(self) -> bool:
        """True from a prompt until its run and any retry, compaction or queued message after it are over."""
        return self._prompting.busy

    @property
    def is_compacting(self) -> bool:
        return self._core.run.compacting

    @property
    def is_aborted(self) -> bool:
        """True after `abort()` until the next prompt: nothing queued is sent automatically meanwhile."""
        return self._core.run.aborted

    @property
    def session_id(self) -> str:
        return self._core.manager.get_session_id()

    @property
    def session_file(self) -> str | None:
        path = self._core.manager.get_session_file()
        return str(path) if path is not None else None

    @property
    def session_name(self) -> str | None:
        return self._core.manager.get_session_name()

    @property
    def auto_retry_enabled(self) -> bool:
        return self._recovery.enabled

    @auto_retry_enabled.setter
    def auto_retry_enabled(self, enabled: bool) -> None:
        self._recovery.enabled = enabled

    @property
    def auto_compaction_enabled(self) -> bool:
        return self._compactor.enabled

    @auto_compaction_enabled.setter
    def auto_compaction_enabled(self, enabled: bool) -> None:
        self._compactor.enabled = enabled

    @property
    def retry_attempt(self) -> int:
        return self._recovery.attempt

    def image_resize_profile(self) -> ImageResize | None:
        """The current model's `inputLimits.images.resize` (None: the defaults), for the `read` tool."""
        return self._images.read_profile()

    def session_environment(self) -> Mapping[str, str]:
        """PI_SESSION_ID, PI_SESSION_FILE, PI_PROVIDER, PI_MODEL, PI_REASONING_LEVEL as they are now."""
        return session_environment(self._core.manager, self.model, self.thinking_level)

    def require_model(self) -> Model:
        """The model, when it can be used; raises NoApiKeyError saying what to do otherwise."""
        model = self.model
        if model is None:
            raise NoApiKeyError(
                "No model selected. Use --model, or set an API key (for example ANTHROPIC_API_KEY, "
                "OPENAI_API_KEY or GEMINI_API_KEY), or add a provider to ~/.pi/agent/models.json."
            )
        registry = self._core.registry
        if not registry.get_api_key(model.provider):
            from pi.app.oauth.provider_names import missing_key_hint

            if registry.auth.has_expired_login(model.provider):
                raise NoApiKeyError(
                    f'Authentication failed for "{model.provider}": the login stored in auth.json has expired. '
                    f"Sign in again with /login or `pi auth login {model.provider}`, or set an API key."
                )
            raise NoApiKeyError(
                f"No API key found for {model.provider} (model {model.id}).\n\n"
                f"To fix it, {missing_key_hint(model.provider)}, or pass --api-key."
            )
        return model

    # -- prompting ---------------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        expand: bool = True,
        source: InputSource = "sdk",
    ) -> Disposition:
        """Send a prompt; return when its run (retries, compactions, queued messages included) has ended.

        While the session is busy the text is queued as steering or follow-up, as `streaming_behavior`
        says. Returns "started", "queued", or "handled" (an `input` hook consumed the text).
        """
        if self._extensions is not None and await self._extensions.run_command(text):
            return "handled"
        text, images = await self._images.fit_prompt(text, images)
        disposition, message = await self._prompting.preflight(text, images, streaming_behavior, expand, source)
        if message is not None:
            await self._prompting.run(message)
            await self.drain_events()
        return disposition

    async def start_prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: InputSource = "sdk",
    ) -> tuple[Disposition, Callable[[], Any] | None]:
        """Preflight only: the disposition, and (when "started") the coroutine function that runs it.

        For callers that answer before the run (RPC's `prompt` response comes after preflight).
        """
        if self._extensions is not None and await self._extensions.run_command(text):
            return "handled", None
        text, images = await self._images.fit_prompt(text, images)
        disposition, message = await self._prompting.preflight(text, images, streaming_behavior, True, source)
        if message is None:
            return disposition, None
        return disposition, lambda: self._prompting.run(message)

    async def abort(self) -> None:
        """Stop the current run, any retry wait and any compaction, and return once all have ended.

        Queued messages are kept (see `steering_queue`, `follow_up_queue`, `clear_queue`).
        """
        await self._prompting.abort()

    def abort_retry(self) -> None:
        self._recovery.abort()

    async def wait_for_idle(self) -> None:
        """Return once no prompt is running, counting the retries and compactions that follow a run."""
        await self._prompting.wait_for_idle()

    # -- compaction --------------------------------------------------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Summarize older history into a compaction entry and continue from the summary.

        A run going on (a reply, a retry wait, another compaction) is aborted first, as in pi, so that
        the summary and the run's own replies never race to rewrite the same history; every caller
        (RPC, the SDK, an extension's ``ctx.compact``, ``/compact``) gets that. Returns pi's
        CompactionResult JSON; raises CompactionError when there is nothing to compact or the summary
        fails (the session is then unchanged).
        """
        if self.is_streaming or self.is_compacting:
            await self.abort()
        return await self._compactor.compact(custom_instructions)

    def abort_compaction(self) -> None:
        self._compactor.abort()

    # -- sessions ----------------------------------------------------------------------------------

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        """Start a new session file; `{"cancelled": True}` when an extension's `session_before_switch` said no."""
        if self._extensions is not None and await self._extensions.before_switch("new"):
            return {"cancelled": True}
        await self._navigation.new_session(parent_session)
        return {"cancelled": False}

    async def switch_session(self, path: str) -> dict[str, Any]:
        """Continue the session file at `path`; `{"cancelled": True}` when an extension said no."""
        if self._extensions is not None and await self._extensions.before_switch("resume", path):
            return {"cancelled": True}
        await self._navigation.switch_session(path)
        return {"cancelled": False}

    def fork_messages(self) -> list[dict[str, str]]:
        return self._navigation.fork_messages()

    async def fork(self, entry_id: str) -> dict[str, Any]:
        if self._extensions is not None and await self._extensions.before_fork(entry_id, "before"):
            return {"cancelled": True}
        return await self._navigation.fork(entry_id)

    async def clone(self) -> dict[str, Any]:
        leaf = self._core.manager.get_leaf_id()
        if self._extensions is not None and leaf is not None and await self._extensions.before_fork(leaf, "at"):
            return {"cancelled": True}
        return await self._navigation.clone()

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
    ) -> str | None:
        """Move to another point of the session tree; a user message's text comes back for the editor.

        With `summarize`, the branch left behind is summarized into a `branch_summary` entry first.
        """
        old_leaf = self._core.manager.get_leaf_id()
        text = await self._navigation.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
        )
        if self._extensions is not None:
            self._extensions.virtual.branch_moved()
            summary = self._navigation.last_summary
            await self._extensions.tree_moved(self._core.manager.get_leaf_id(), old_leaf, summary)
        return text

    def set_scoped_models(self, models: Sequence[tuple[Model, str | None]]) -> None:
        """The models Ctrl+P and `cycle_model` go through (empty: every available model)."""
        self._core.scoped_models = list(models)

    def export_html(self, output_path: str | None = None) -> str:
        from pi.session.export_html import export_session_html

        target = output_path
        if target is not None and not Path(target).is_absolute():
            target = str(self.cwd / target)
        return str(export_session_html(self.session, target))

    def set_session_name(self, name: str) -> None:
        manager = self._core.manager
        manager.append_session_info(name)
        self._core.events.emit_nowait(SessionInfoChangedEvent(manager.get_session_name()))

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Store an application's own entry in the session (never sent to the model)."""
        manager = self._core.manager
        entry_id = manager.append_custom_entry(custom_type, data)
        self._core.events.emit_nowait(EntryAppendedEvent(manager.get_entry(entry_id)))
        return entry_id

    # -- model and thinking ------------------------------------------------------------------------

    def set_model(self, model: Model) -> None:
        self._models.set_model(model)

    def set_thinking_level(self, level: str) -> None:
        self._models.set_thinking_level(level)

    def available_thinking_levels(self) -> list[str]:
        return self._models.available_thinking_levels()

    def cycle_thinking_level(self) -> str | None:
        return self._models.cycle_thinking_level()

    def cycle_model(self) -> tuple[Model, str] | None:
        return self._models.cycle_model()

    # -- user bash ---------------------------------------------------------------------------------

    async def execute_bash(
        self, command: str, exclude_from_context: bool = False, update_id: str | None = None
    ) -> BashResult:
        """Run a command for the user; its output streams as `bash_execution_update` events."""
        return await self._bash.execute(command, exclude_from_context, update_id)

    def abort_bash(self) -> None:
        self._bash.abort()

    # -- queries -----------------------------------------------------------------------------------

    def last_assistant_text(self) -> str | None:
        """The text of the latest assistant reply that has any (aborted or tool-only replies are skipped)."""
        from pi.ai.types import AssistantMessage

        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                text = "".join(block.text for block in message.content if isinstance(block, TextContent))
                if text:
                    return text
        return None


__all__ = [
    "BUSY_WITHOUT_BEHAVIOR",
    "AgentSession",
    "BashResult",
    "NoApiKeyError",
    "StreamingBehavior",
    "is_retryable_error",
]
