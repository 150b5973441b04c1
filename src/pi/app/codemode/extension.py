"""The built-in extension `builtin:codemode`: the `codemode` tool.

Registered inactive (`--tools +codemode`, `defaultTools: ["+codemode"]`, `set_active_tools`, or
the MCP support activates it) and `model-only`, so scripts cannot start scripts. Each call runs
the script in a fresh worker process; the tools it calls go through `ctx.execute_tool`.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi.app.codemode.catalog import callable_infos, tool_entry
from pi.app.codemode.description import build_description
from pi.app.codemode.loadout import Loadout, codemode_settings
from pi.app.codemode.options import CONSTRAINED_SAMPLING, parse_script
from pi.app.codemode.script_result import CallRecord, build_result
from pi.app.codemode.store import CUSTOM_TYPE, branch_values, has_writes
from pi.app.extensions.types import ToolDefinition

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal
    from pi.app.extensions.api import ExtensionAPI

TOOL_NAME = "codemode"
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "Raw JavaScript source."}},
    "required": ["code"],
}
PROMPT_SNIPPET = "Run JavaScript that calls other tools"
GUIDELINE = (
    "Use codemode to batch independent tool calls (Promise.allSettled), chain them, or filter large output, "
    "instead of many separate calls."
)
SEARCH_WORDS = ("searchTools", "describeNamespace", "describeTool", "ALL_TOOLS")


def reaches_tools(params: Any) -> Any:
    """`"all"` when the script looks tools up by itself, else the words of its code."""
    code = params.get("code") if isinstance(params, dict) else getattr(params, "code", None)
    if not isinstance(code, str):
        return []
    if any(word in code for word in SEARCH_WORDS):
        return "all"
    return list(dict.fromkeys(re.findall(r"\w+", code)))


class Codemode:
    """The tool of one loaded instance: its description follows the registered tools."""

    def __init__(self, pi: ExtensionAPI, *, models: bool = True) -> None:
        self.pi = pi
        self.models = models
        self.loadout: Callable[[], None] | None = None
        self.description = build_description([], [], models_docs=self._docs())

    def _docs(self) -> str | None:
        """Where scripts' `models` API is documented (the description points there), or None without models."""
        if not self.models:
            return None
        from pi.app.package_docs import package_docs_dir

        root = package_docs_dir()
        return str(root / "docs" / "codemode.md") if root is not None else "docs/codemode.md"

    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            name=TOOL_NAME,
            label="Codemode",
            description=self.description,
            parameters=PARAMETERS,
            execute=self.execute,
            prompt_snippet=PROMPT_SNIPPET,
            prompt_guidelines=[GUIDELINE],
            exposure="model-only",
            default_active=False,
            reaches_tools=reaches_tools,
            constrained_sampling=CONSTRAINED_SAMPLING,
        )

    def refresh(self, _event: Any = None, _ctx: Any = None) -> None:
        """Re-register when the listed tools changed (the declaration must say what scripts can call)."""
        active = self.pi.get_active_tools()
        if self.loadout is None and TOOL_NAME in active:
            self.loadout = self.pi.on("context_with_system", Loadout(self.pi))
        mode, budget = codemode_settings(self.pi.get_settings())
        description = build_description(self.pi.get_all_tools(), active, budget, mode=mode, models_docs=self._docs())
        if description != self.description:
            self.description = description
            self.pi.register_tool(self.definition())

    async def execute(
        self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> dict[str, Any]:
        from pi.app.codemode.script_runner import ScriptRunner

        source = parse_script((params or {}).get("code"))
        infos = callable_infos(self.pi.get_all_tools(), self.pi.get_active_tools(), TOOL_NAME)
        tools = [tool_entry(info) for info in infos]

        async def call_tool(name: str, args: dict[str, Any], call_signal: AbortSignal) -> Any:
            return await ctx.execute_tool(name, args, signal=call_signal)

        updates: set[asyncio.Future[Any]] = set()

        def progress(calls: list[CallRecord]) -> None:
            if on_update is None:
                return
            update = on_update({"content": [], "details": {"calls": [c.to_json() for c in calls]}})
            if inspect.isawaitable(update):
                task = asyncio.ensure_future(update)
                updates.add(task)
                task.add_done_callback(updates.discard)

        registry = getattr(ctx, "model_registry", None) if self.models else None
        runner = ScriptRunner(
            source,
            tools,
            branch_values(ctx),
            call_tool,
            signal,
            progress,
            model_registry=registry,
            tool_call_id=tool_call_id,
        )
        run = await runner.run()
        if run.ok and has_writes(run.store_writes):
            self.pi.append_entry(CUSTOM_TYPE, run.store_writes)
        return build_result(run, source.max_output_tokens)


def create_codemode_extension() -> Callable[[ExtensionAPI], None]:
    """The `setup(pi)` of `builtin:codemode`."""

    def setup(pi: ExtensionAPI) -> None:
        codemode = Codemode(pi)
        pi.register_tool(codemode.definition())
        for event in ("session_start", "before_agent_start"):
            pi.on(event, codemode.refresh)

    return setup


__all__ = ["Codemode", "create_codemode_extension", "reaches_tools"]
