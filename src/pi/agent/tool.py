"""What the agent loop needs to know about a tool, and what a tool gives back.

A tool's parameters are a pydantic model: its JSON schema is what the model sees, and lax
validation turns what the model sent ("5" for 5) into typed params before `execute` runs. Tools
raise to report failure; the loop turns the exception text into an error result for the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, Literal, Protocol, TypeAlias, TypeVar

from msgspec import Struct, field
from pydantic import BaseModel

from pi.ai.abort import AbortSignal
from pi.ai.types import ImageContent, TextContent, Tool, Usage

ParamsT = TypeVar("ParamsT", bound=BaseModel)
ParamsT_contra = TypeVar("ParamsT_contra", bound=BaseModel, contravariant=True)

ToolContent: TypeAlias = TextContent | ImageContent


class AgentToolResult(Struct):
    """`content` goes to the model; `details` is for the UI and logs only and is never sent."""

    content: list[ToolContent]
    details: Any = None
    terminate: bool = False
    """When every result of a batch sets this, the run ends after the turn instead of asking the model again."""
    is_error: bool = False
    """A failure returned rather than raised (a command's non-zero exit), so that `details` are kept."""
    structured_content: Any = None
    """Machine-readable form of the result for programs driving the agent; never sent to the model."""
    usage: Usage | None = None
    """Model usage of the tool's own work (e.g. models a script ran); kept on the result message."""


OnToolUpdate: TypeAlias = Callable[[AgentToolResult], "Awaitable[None] | None"]
"""Streams a partial result (e.g. bash output so far) to the UI; it never reaches the model."""


class ToolExecute(Protocol[ParamsT_contra]):
    def __call__(
        self,
        tool_call_id: str,
        params: ParamsT_contra,
        signal: AbortSignal | None,
        on_update: OnToolUpdate | None,
    ) -> Awaitable[AgentToolResult]: ...


PrepareArguments: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]
"""Repairs raw arguments before validation (old argument names, JSON sent as a string, ...)."""

ExecutionMode: TypeAlias = Literal["parallel", "sequential"]


class AgentTool(Struct, Generic[ParamsT]):
    """A tool the agent may offer the model: its definition, its parameter model and the code that runs it.

    `label` is the human-readable name for displays; the model is sent `to_tool()`, which leaves it out.
    """

    name: str
    label: str
    description: str
    parameters: type[ParamsT]
    execute: ToolExecute[ParamsT]
    prepare_arguments: PrepareArguments | None = None
    execution_mode: ExecutionMode | None = None
    """"sequential" makes any batch that calls this tool run one call at a time."""
    prompt_snippet: str | None = None
    """One line for the system prompt's list of tools."""
    prompt_guidelines: list[str] = field(default_factory=list)
    """Bullets for the system prompt's guidelines when this tool is active."""
    constrained_sampling: dict[str, Any] | None = None
    """How strictly a provider may hold the model to the schema, e.g. ``{"type": "json_schema",
    "strict": "prefer"}``; part of the definition stored in a session's system messages."""

    def to_tool(self) -> Tool:
        """The definition a model sees (``constrainedSampling`` rides along when declared)."""
        definition: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": tool_schema(self.parameters),
        }
        if self.constrained_sampling is not None:
            definition["constrainedSampling"] = dict(self.constrained_sampling)
        return Tool.model_validate(definition)


_schema_cache: dict[type[BaseModel], dict[str, Any]] = {}


JSON_SCHEMA_PREFERRED: dict[str, Any] = {"type": "json_schema", "strict": "prefer"}
"""The constrained sampling pi's own file and shell tools declare."""


def tool_schema(params: type[BaseModel]) -> dict[str, Any]:
    """JSON schema of a parameter model, with pydantic's `title` noise removed (cached per class)."""
    cached = _schema_cache.get(params)
    if cached is None:
        cached = _strip_titles(params.model_json_schema())
        _schema_cache[params] = cached
    return cached


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: (_strip_titles(value) if key != "properties" else {k: _strip_titles(v) for k, v in value.items()})
            for key, value in node.items()
            if key != "title"
        }
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node


__all__ = [
    "JSON_SCHEMA_PREFERRED",
    "AgentTool",
    "AgentToolResult",
    "ExecutionMode",
    "OnToolUpdate",
    "PrepareArguments",
    "ToolContent",
    "ToolExecute",
    "tool_schema",
]
