"""`create_agent_session`: the one place that assembles a coding session from its parts.

Print, JSON and RPC modes, the interactive UI and SDK users all start here, so a session behaves the
same however it is driven. Every part can be passed in (a scripted model, an in-memory session, a
custom tool set); whatever is not passed is built the way `pi` builds it from the user's files.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi.agent import Agent
from pi.agent.config import AgentStreamFn
from pi.agent.tool import AgentTool
from pi.ai.types import Model
from pi.app.agent_session import AgentSession, stream_options_for, thinking_budgets_from
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.model_resolver import DEFAULT_THINKING_LEVEL, as_thinking_level, clamp_thinking_level, default_model
from pi.app.paths import agent_dir as default_agent_dir
from pi.app.paths import auth_path, models_path
from pi.app.resources import ResourceOptions, Resources, load_resources
from pi.app.settings import SettingsManager
from pi.app.system_prompt import SystemPromptInputs, build_system_prompt
from pi.session.manager import SessionManager

_DOCS_DIR = Path(__file__).resolve().parents[3]


@dataclass(slots=True)
class CreateSessionOptions:
    cwd: Path | None = None
    agent_dir: Path | None = None
    model: Model | None = None
    thinking_level: str | None = None
    tools: Sequence[AgentTool[Any]] | None = None
    """The active built-in tools; default read, bash, edit, write."""
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
    warnings: list[str] = field(default_factory=list)
    """Filled with non-fatal problems found while assembling (restored model unavailable, ...)."""


def create_agent_session(options: CreateSessionOptions | None = None) -> AgentSession:
    opts = options or CreateSessionOptions()
    cwd = (opts.cwd or Path(os.getcwd())).resolve()
    agent_dir = opts.agent_dir or default_agent_dir()
    settings = opts.settings or SettingsManager.create(cwd, agent_dir)
    auth = opts.auth or AuthStorage(auth_path(agent_dir))
    registry = opts.model_registry or ModelRegistry(auth, models_path(agent_dir))
    resources = opts.resources or load_resources(cwd, agent_dir, opts.resource_options)
    session = opts.session_manager or SessionManager.create(str(cwd), agent_dir=agent_dir)

    restored = session.build_session_context()
    model = opts.model
    if model is None and restored.model is not None:
        provider, model_id = restored.model
        candidate = registry.find(provider, model_id)
        if candidate is not None and registry.has_auth(candidate):
            model = candidate
        else:
            opts.warnings.append(f"Could not restore model {provider}/{model_id}. Using the default model instead.")
    if model is None:
        model = default_model(
            registry.available_models(), settings.get("defaultProvider"), settings.get("defaultModel")
        )

    resumed = bool(session.get_entries())
    level = (
        opts.thinking_level
        or (restored.thinking_level if resumed else None)
        or settings.get("defaultThinkingLevel")
        or DEFAULT_THINKING_LEVEL
    )
    if model is not None:
        level = clamp_thinking_level(level, model)

    if opts.tools is None:
        from pi.tools import create_coding_tools

        tools: list[AgentTool[Any]] = list(create_coding_tools(str(cwd)))
    else:
        tools = list(opts.tools)
    tools.extend(opts.custom_tools)

    system_prompt = build_system_prompt(
        SystemPromptInputs(
            cwd=cwd,
            tools=tools,
            custom_prompt=resources.custom_system_prompt,
            append=resources.append_system_prompt,
            context_files=resources.context_files,
            skills=resources.skills,
            docs_dir=_DOCS_DIR,
        )
    )
    agent = Agent(
        model=model,
        system_prompt=system_prompt,
        thinking_level=as_thinking_level(level),
        tools=tools,
        messages=restored.messages,
        stream_fn=opts.stream_fn,
        session_id=session.get_session_id(),
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        thinking_budgets=thinking_budgets_from(settings),
        max_retry_delay_ms=settings.retry.max_delay_ms,
        stream_options=stream_options_for(registry, model, registry.get_api_key(model.provider)) if model else None,
    )
    agent_session = AgentSession(
        agent=agent,
        session=session,
        settings=settings,
        model_registry=registry,
        resources=resources,
        cwd=cwd,
        tools=tools,
        scoped_models=opts.scoped_models,
    )
    if not resumed and model is not None:
        session.append_model_change(model.provider, model.id)
        session.append_thinking_level_change(level)
    return agent_session


__all__ = ["CreateSessionOptions", "create_agent_session"]
