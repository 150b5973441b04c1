"""Extensions' say in project trust: the `project_trust` event (extension spec §6).

Only user, global and command-line extensions are asked (a project's own extensions cannot vouch
for it), in load order; the first `yes` or `no` decides and `remember: true` saves it to
trust.json. A handler that fails is warned about and the next source of the decision is used.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from msgspec import Struct, field

from pi.app import trust
from pi.app.extensions import errors
from pi.app.extensions.context import ProjectTrustContext
from pi.app.extensions.events import ProjectTrustEvent, ProjectTrustEventResult
from pi.app.extensions.registry import ExtensionRegistry
from pi.app.extensions.results import coerce_result
from pi.app.extensions.types import Diagnostic

MUST_RETURN = 'project_trust handlers must return {"trusted": "yes" | "no" | "undecided"}'


class ProjectTrustOutcome(Struct):
    trusted: bool | None = None
    """The first yes/no, or None when every handler left it undecided."""
    remember: bool = False
    extension_path: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


async def emit_project_trust(registry: ExtensionRegistry, cwd: Path, ctx: ProjectTrustContext) -> ProjectTrustOutcome:
    """Ask the eligible handlers about `cwd`."""
    outcome = ProjectTrustOutcome()
    event = ProjectTrustEvent(cwd=str(cwd))
    for extension, handler in registry.handlers("project_trust"):
        info = extension.source_info
        if info.scope == "project" or info.source == "builtin":
            continue
        try:
            value = handler(event, ctx)
            if inspect.isawaitable(value):
                value = await value
            result = coerce_result(value, ProjectTrustEventResult)
            if result is None:
                raise errors.ExtensionError(
                    'project_trust handlers must return {"trusted": "yes" | "no" | "undecided"}'
                )
        except Exception as error:
            message = errors.project_trust_error(extension.path, errors.error_text(error))
            outcome.diagnostics.append(Diagnostic("warning", message, extension.path))
            continue
        if result.trusted in ("yes", "no"):
            outcome.trusted = result.trusted == "yes"
            outcome.remember = result.remember
            outcome.extension_path = extension.path
            return outcome
    return outcome


async def resolve_trust_with_extensions(
    registry: ExtensionRegistry,
    ctx: ProjectTrustContext,
    cwd: Path,
    agent_dir: Path,
    approve: bool | None = None,
    default_trust: str = "ask",
    ask: trust.AskTrust | None = None,
    home: Path | None = None,
) -> tuple[trust.TrustDecision, list[Diagnostic]]:
    """`pi.app.trust.resolve_project_trust` with the extensions' handlers in their place in the order
    (after `--approve`/`--no-approve`, before saved decisions). Handlers run only when the project
    needs a decision."""
    if approve is not None or not trust.trust_requiring_resources(cwd, home):
        return trust.resolve_project_trust(cwd, agent_dir, approve, default_trust, ask, (), home), []
    outcome = await emit_project_trust(registry, cwd, ctx)
    if outcome.trusted is not None and outcome.remember:
        trust.update_trust_store(agent_dir, {trust.canonical_dir(cwd): outcome.trusted})
    decided = outcome.trusted
    handlers: list[trust.TrustHandler] = [lambda _cwd: decided] if decided is not None else []
    decision = trust.resolve_project_trust(cwd, agent_dir, None, default_trust, ask, handlers, home)
    return decision, outcome.diagnostics


__all__ = ["ProjectTrustOutcome", "emit_project_trust", "resolve_trust_with_extensions"]
