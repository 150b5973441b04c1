"""Turning an extension's `ToolDefinition` into the `AgentTool` the agent loop runs.

The loop knows pydantic parameter models and `AgentToolResult`s; extensions give JSON Schema dicts
(or a model class) and return plain dicts `{content, details, isError?, structuredContent?,
terminate?}`. This module bridges the two: JSON-Schema arguments are coerced and checked before
the call (`tool_params`), `execute` gets the extra `ctx` argument (an `ExtensionToolContext`), and
results, partial ones from `on_update` included, are converted back. A raising `execute` is left
to the loop, which turns it into an error result for the model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from pi.agent.tool import AgentTool, AgentToolResult, ToolContent
from pi.ai.types import ImageContent, TextContent
from pi.app.extensions.tool_params import SchemaParams, schema_params_model, validate_schema_arguments
from pi.app.extensions.types import ToolDefinition
from pi.app.tool_usage import usage_from

ToolContextFactory = Callable[[str], Any]
"""Builds the `ctx` for one call from its tool call id."""


def _field(value: Any, *names: str) -> Any:
    for name in names:
        if isinstance(value, Mapping):
            if name in value:
                return value[name]
        elif hasattr(value, name):
            return getattr(value, name)
    return None


def content_blocks(raw: Any) -> list[ToolContent]:
    """Text and image blocks from what an extension returned (dicts, models or bare strings)."""
    if raw is None:
        return []
    if isinstance(raw, str):
        return [TextContent(text=raw)]
    blocks: list[ToolContent] = []
    for item in raw:
        if isinstance(item, (TextContent, ImageContent)):
            blocks.append(item)
        elif isinstance(item, str):
            blocks.append(TextContent(text=item))
        elif isinstance(item, Mapping) and item.get("type") == "image":
            blocks.append(ImageContent.model_validate(dict(item)))
        elif isinstance(item, Mapping):
            blocks.append(TextContent(text=str(item.get("text", ""))))
        else:
            blocks.append(TextContent(text=str(getattr(item, "text", item))))
    return blocks


def to_tool_result(value: Any) -> AgentToolResult:
    """An `AgentToolResult` from an extension's result (a dict with pi's or snake_case keys, or an object)."""
    if isinstance(value, AgentToolResult):
        return value
    if value is None:
        return AgentToolResult(content=[])
    if isinstance(value, str):
        return AgentToolResult(content=[TextContent(text=value)])
    return AgentToolResult(
        content=content_blocks(_field(value, "content")),
        details=_field(value, "details"),
        terminate=bool(_field(value, "terminate")),
        is_error=bool(_field(value, "is_error", "isError")),
        structured_content=_field(value, "structured_content", "structuredContent"),
        usage=usage_from(_field(value, "usage")),
    )


def to_agent_tool(definition: ToolDefinition, tool_context: ToolContextFactory) -> AgentTool[Any]:
    """The agent's view of `definition`; `tool_context(call_id)` builds the `ctx` passed to each `execute`."""
    model = definition.parameter_model()
    schema = definition.parameter_schema() or {"type": "object"}
    params_class: type[Any] = model if model is not None else schema_params_model(definition.name, schema)
    user_prepare = definition.prepare_arguments
    name = definition.name

    def prepare(args: dict[str, Any]) -> dict[str, Any]:
        prepared = user_prepare(args) if user_prepare is not None else args
        if model is None and isinstance(prepared, dict):
            return validate_schema_arguments(name, schema, prepared)
        result: dict[str, Any] = prepared
        return result

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any) -> AgentToolResult:
        args = params.model_dump() if isinstance(params, SchemaParams) else params

        async def update(partial: Any) -> None:
            if on_update is not None:
                outcome = on_update(to_tool_result(partial))
                if inspect.isawaitable(outcome):
                    await outcome

        run = definition.execute
        assert run is not None
        result = run(tool_call_id, args, signal, update, tool_context(tool_call_id))
        if inspect.isawaitable(result):
            result = await result
        return to_tool_result(result)

    return AgentTool(
        name=name,
        label=definition.label or name,
        description=definition.description,
        parameters=params_class,
        execute=execute,
        prepare_arguments=prepare,
        execution_mode=definition.execution_mode,
        prompt_snippet=definition.prompt_snippet,
        prompt_guidelines=list(definition.prompt_guidelines or []),
        constrained_sampling=(
            dict(definition.constrained_sampling) if isinstance(definition.constrained_sampling, Mapping) else None
        ),
    )


__all__ = ["content_blocks", "to_agent_tool", "to_tool_result"]
