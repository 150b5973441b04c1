"""`create_agent_session`: the one place that assembles a coding session from its parts.

Print, JSON and RPC modes, the interactive UI and SDK users all start here, so a session behaves the
same however it is driven. Every part can be passed in (a scripted model, an in-memory session, a
custom tool set, hook chains); whatever is not passed is built the way `pi` builds it from the user's
files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec.structs
from msgspec import Struct, field

from pi.agent.config import AgentStreamFn
from pi.agent.tool import AgentTool
from pi.ai.options import ThinkingBudgets
from pi.ai.types import ImageResize, Model
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.model_resolver import DEFAULT_THINKING_LEVEL, clamp_thinking_level, default_model
from pi.app.paths import agent_dir as default_agent_dir
from pi.app.paths import auth_path, models_path
from pi.app.resources import ResourceOptions, Resources, load_resources
from pi.app.session_extensions_config import ExtensionConfig
from pi.app.session_hooks import SessionHooks
from pi.app.session_requests import prompt_inputs
from pi.app.session_runtime import AgentSetup
from pi.app.settings import SettingsManager
from pi.app.system_prompt import build_system_prompt
from pi.session.manager import SessionManager


class CreateSessionOptions(Struct):
    """What `create_agent_session` should use or choose; a part left None is built the way `pi` builds it."""

    cwd: Path | None = None
    agent_dir: Path | None = None
    model: Model | None = None
    thinking_level: str | None = None
    tools: Sequence[AgentTool[Any]] | None = None
    """The active tools, ready built; default: `tool_names` built with `tool_options`."""
    tool_names: Sequence[str] | None = None
    """Built-in tools to build when `tools` is not given (default read, bash, edit, write)."""
    tool_options: Any = None
    """`pi.tools.ToolsOptions` for the built tools; bash always gets the session's PI_* variables."""
    custom_tools: Sequence[AgentTool[Any]] = ()
    settings: SettingsManager | None = None
    auth: AuthStorage | None = None
    model_registry: ModelRegistry | None = None
    resources: Resources | None = None
    resource_options: ResourceOptions | None = None
    session_manager: SessionManager | None = None
    scoped_models: Sequence[tuple[Model, str | None]] = ()
    stream_fn: AgentStreamFn | None = None
    """How the agent asks the model; `pi.ai.stream_simple` by default (tests pass a faux provider's)."""
    hooks: SessionHooks | None = None
    """Interception chains (tool calls, results, input, context, provider payload, compaction)."""
    warnings: list[str] = field(default_factory=list)
    """Filled with non-fatal problems found while assembling (restored model unavailable, ...)."""
    extension_paths: Sequence[str] = ()
    """Extensions to load first, in order (`-e`): files, directories, `builtin:<name>`."""
    no_extensions: bool = False
    """Load only `extension_paths` and `extension_factories` (`-ne`)."""
    extension_factories: Sequence[Any] = ()
    """Inline extensions: `setup(pi)` callables or `{"name", "factory", "hidden"?, "replaceable"?}` dicts."""
    builtin_extensions: bool = False
    """Load pi's built-in extensions (`builtin:mcp`, `builtin:tool-search`) by default, as the CLI does."""
    builtin_extension_factories: Mapping[str, Any] = field(default_factory=dict)
    """Code for `builtin:<name>` supplied by the caller (replaces the shipped built-in of that name)."""
    disabled_builtins: Sequence[str] = ()
    """Built-ins switched off for this session (`("mcp",)` for `--no-mcp`)."""
    discover_extensions: bool = True
    """Look for extensions in the agent dir, settings, the trusted project and configured packages."""
    project_trusted: bool = False
    """Whether the project's own extensions (`.pi/extensions`, project settings) may load."""
    extension_flags: Mapping[str, bool | str] = field(default_factory=dict)
    """Values for flags extensions register (`--name value` on the command line)."""
    admits_late_tool: Callable[[str], bool] | None = None
    """Whether a tool registered after start-up (by an extension or an MCP server) may become active:
    the command line's `--tools`/`--exclude-tools` choice applied to tools it could not see yet."""
    tool_selection: Any = None
    """The command line's `pi.app.tool_patterns.ToolSelection`: turns on inactive extension tools it names."""


def thinking_budgets_from(settings: SettingsManager) -> ThinkingBudgets | None:
    budgets = settings.thinking_budgets
    if not budgets:
        return None
    return ThinkingBudgets(
        minimal=budgets.get("minimal"), low=budgets.get("low"), medium=budgets.get("medium"), high=budgets.get("high")
    )


class _LateEnvironment:
    """The session's PI_* variables for tools built before the session exists (read per command)."""

    def __init__(self, session: AgentSession | None = None) -> None:
        self.session = session

    def __call__(self) -> Mapping[str, str]:
        return self.session.session_environment() if self.session is not None else {}

    def image_resize(self) -> ImageResize | None:
        """The session model's image resize profile, for `read` (None: the defaults)."""
        return self.session.image_resize_profile() if self.session is not None else None

    def unsupported_image_model(self) -> str | None:
        """The session model's id when it takes no images, for `read` to note in its details.

        Asked at each read, so a switch to or from a vision model applies at once.
        """
        model = self.session.model if self.session is not None else None
        if model is None or "image" in model.input:
            return None
        return model.id


def wire_tool_options(options: Any, environment: _LateEnvironment, names: Sequence[str]) -> Any:
    """`options` (a `ToolsOptions` or None) with the session's wiring for the built-in tools in `names`.

    bash reads the session's PI_* variables at each command; read sizes images for the session's model
    and notes a model that takes none. Both the tools a session starts with and those an extension
    activates later are built from this, so a tool behaves the same whenever it was built. Read's
    options are only touched when read is among `names`: its module is not imported otherwise.
    """
    from pi.tools import BashToolOptions, ToolsOptions

    options = options or ToolsOptions()
    bash = options.bash or BashToolOptions()
    options = msgspec.structs.replace(options, bash=msgspec.structs.replace(bash, env=environment))
    if "read" in names:
        from pi.tools import ReadToolOptions

        read = options.read or ReadToolOptions()
        read = msgspec.structs.replace(
            read,
            image_resize=read.image_resize or environment.image_resize,
            unsupported_image_model=read.unsupported_image_model or environment.unsupported_image_model,
        )
        options = msgspec.structs.replace(options, read=read)
    return options


def session_tool_options(session: AgentSession, options: Any, names: Sequence[str]) -> Any:
    """`wire_tool_options` for a session that already exists (tools built after start-up)."""
    return wire_tool_options(options, _LateEnvironment(session), names)


def _build_tools(opts: CreateSessionOptions, cwd: Path, environment: _LateEnvironment) -> list[AgentTool[Any]]:
    if opts.tools is not None:
        return [*opts.tools, *opts.custom_tools]
    from pi.tools import DEFAULT_ACTIVE_TOOL_NAMES, create_tool

    names = list(opts.tool_names) if opts.tool_names is not None else list(DEFAULT_ACTIVE_TOOL_NAMES)
    options = wire_tool_options(opts.tool_options, environment, names)
    return [*(create_tool(name, str(cwd), options) for name in names), *opts.custom_tools]  # type: ignore[arg-type]


def _choose_model(
    opts: CreateSessionOptions, registry: ModelRegistry, settings: SettingsManager, restored: Any
) -> Model | None:
    model = opts.model
    lost: str | None = None
    if model is None and restored.model is not None:
        provider, model_id = restored.model
        candidate = registry.find(provider, model_id)
        if candidate is not None and registry.has_auth(candidate):
            model = candidate
        else:
            lost = f"{provider}/{model_id}"
    if model is None:
        model = default_model(
            registry.available_models(), settings.get("defaultProvider"), settings.get("defaultModel")
        )
    if lost is not None:
        instead = f"Using {model.provider}/{model.id}" if model is not None else "No other model is available"
        opts.warnings.append(f"Could not restore model {lost}. {instead}")
    return model


def _extension_config(opts: CreateSessionOptions, agent_dir: Path) -> ExtensionConfig:
    return ExtensionConfig(
        agent_dir=agent_dir,
        paths=list(opts.extension_paths),
        no_extensions=opts.no_extensions,
        factories=list(opts.extension_factories),
        builtins=opts.builtin_extensions,
        builtin_overrides=dict(opts.builtin_extension_factories),
        disabled_builtins=list(opts.disabled_builtins),
        discover=opts.discover_extensions,
        project_trusted=opts.project_trusted,
        flags=dict(opts.extension_flags),
        tool_options=opts.tool_options,
        admits_late_tool=opts.admits_late_tool,
        tool_selection=opts.tool_selection,
        startup_provider=opts.model.provider if opts.model is not None else None,
    )


def create_agent_session(options: CreateSessionOptions | None = None) -> AgentSession:
    """Assemble a session. Extensions are loaded by `await session.load_extensions()` (or, with the
    mode's UI, `await session.bind_extensions(...)`), since their `setup` may be asynchronous."""
    opts = options or CreateSessionOptions()
    cwd = (opts.cwd or Path(os.getcwd())).resolve()
    agent_dir = opts.agent_dir or default_agent_dir()
    settings = opts.settings or SettingsManager.create(cwd, agent_dir)
    auth = opts.auth or AuthStorage(auth_path(agent_dir))
    registry = opts.model_registry or ModelRegistry(auth, models_path(agent_dir))
    resources = opts.resources or load_resources(cwd, agent_dir, opts.resource_options)
    session = opts.session_manager or SessionManager.create(str(cwd), agent_dir=agent_dir)

    restored = session.build_deferred_context()
    model = _choose_model(opts, registry, settings, restored)
    # A session is resumed when its branch holds messages, as pi decides it: entries alone (the
    # session_info `--name` writes before the first prompt) do not make a conversation to restore,
    # and the new session must still record its model and thinking level.
    resumed = len(restored.messages) > 0
    # A level other than "off" was chosen on the branch; "off" may be a choice or mean none was made
    # (an older session), and only then is the branch looked through. None made: the settings' default.
    has_level_entry = resumed and (
        restored.thinking_level != "off" or any(entry.type == "thinking_level_change" for entry in session.get_branch())
    )
    level = (
        opts.thinking_level
        or (restored.thinking_level if has_level_entry else None)
        or settings.get("defaultThinkingLevel")
        or DEFAULT_THINKING_LEVEL
    )
    if model is not None:
        level = clamp_thinking_level(level, model)

    environment = _LateEnvironment()
    tools = _build_tools(opts, cwd, environment)
    system_prompt = build_system_prompt(prompt_inputs(cwd, tools, resources))
    setup = AgentSetup(
        model=model,
        system_prompt=system_prompt,
        thinking_level=level,
        messages=restored.messages,
        stream_fn=opts.stream_fn,
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        thinking_budgets=thinking_budgets_from(settings),
        max_retry_delay_ms=settings.retry.max_delay_ms,
    )
    agent_session = AgentSession(
        setup=setup,
        session=session,
        settings=settings,
        model_registry=registry,
        resources=resources,
        cwd=cwd,
        tools=tools,
        scoped_models=opts.scoped_models,
        hooks=opts.hooks,
        extension_config=_extension_config(opts, agent_dir),
    )
    environment.session = agent_session
    if not resumed:
        if model is not None:
            session.append_model_change(model.provider, model.id)
        session.append_thinking_level_change(level)
    # A resumed session's file is left as it is: opening one (and perhaps declining it, as when its
    # folder is gone) must not write to it; a level chosen later is recorded when it is chosen.
    return agent_session


__all__ = [
    "CreateSessionOptions",
    "create_agent_session",
    "session_tool_options",
    "thinking_budgets_from",
    "wire_tool_options",
]
