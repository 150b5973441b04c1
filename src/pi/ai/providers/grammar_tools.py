"""Grammar-constrained ("custom") tools of OpenAI's Responses and Chat Completions APIs.

A tool whose definition carries ``constrainedSampling: {type: "grammar", variants: {openai_lark: ...}}``
asks the server to hold the model to a grammar instead of a JSON schema. Models whose compat says
``supportsOpenAIGrammarTools`` get such a tool as a ``custom`` tool with a grammar format, and the
model answers with a call whose ``input`` is the raw text the grammar allows:

- Responses: ``{"type": "custom", "name", "format": {"type": "grammar", "syntax", "definition"}}``;
  the call is a ``custom_tool_call`` and its result goes back as ``custom_tool_call_output``.
- Chat Completions: ``{"type": "custom", "custom": {"name", "format": {"type": "grammar", "grammar":
  {"syntax", "definition"}}}}``; calls stream as ``tool_calls`` entries with ``custom.input`` text,
  are replayed as ``{"type": "custom", "custom": {"name", "input"}}``, and results are ordinary
  ``tool`` messages.

Everywhere else in pi the call is an ordinary tool call with JSON arguments, so the raw input is
carried as the one required string property of the tool's schema (``{"code": "<input>"}`` for
codemode). This module decides which tools are sent that way and turns the streamed raw input into
JSON argument text piece by piece, so a long input costs time in proportion to its length.
Every other model gets the plain JSON-schema function.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from pi.ai.types import Context, Model, SystemMessage, Tool

COMPAT_KEY = "supportsOpenAIGrammarTools"
"""The model compat flag that turns grammar tools on (off when absent)."""


def supports_grammar_tools(model: Model) -> bool:
    """Whether `model` accepts ``custom`` tools with a grammar format."""
    compat = model.compat
    if compat is None:
        return False
    return (compat.model_extra or {}).get(COMPAT_KEY) is True


class GrammarFormat(Struct, frozen=True):
    """How one tool is sent: grammar syntax and text, and the property its raw input fills."""

    syntax: str
    definition: str
    input_property: str


def _constrained_sampling(tool: Tool) -> Any:
    extra = tool.model_extra or {}
    return extra.get("constrainedSampling", extra.get("constrained_sampling"))


def _input_property(tool: Tool) -> str:
    """The single required string property that carries the raw input; a clear error otherwise."""
    schema = tool.parameters
    if schema.get("type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = schema.get("required")
    if not isinstance(required, list) or len(required) != 1 or not isinstance(required[0], str):
        raise ValueError("grammar constrained sampling requires exactly one required string property")
    name = required[0]
    properties = schema.get("properties")
    prop = properties.get(name) if isinstance(properties, dict) else None
    if not isinstance(prop, dict):
        raise ValueError(f"grammar constrained sampling requires a properties entry for {name}")
    if prop.get("type") != "string":
        raise ValueError(f"grammar constrained sampling property {name} must have type string")
    return name


def _variant(variants: Mapping[str, Any], key: str) -> str | None:
    value = variants.get(key)
    return value if isinstance(value, str) and value.strip() else None


def grammar_format(tool: Tool, supported: bool) -> GrammarFormat | None:
    """The grammar `tool` is sent with, or None for a plain function tool.

    A grammar tool that cannot be sent as one (no usable variant, a schema without exactly one
    required string property) raises ValueError naming the tool, as the request would be wrong.
    """
    config = _constrained_sampling(tool)
    if not supported or not isinstance(config, Mapping) or config.get("type") != "grammar":
        return None
    raw_variants = config.get("variants")
    variants: Mapping[str, Any] = raw_variants if isinstance(raw_variants, Mapping) else {}
    lark = _variant(variants, "openai_lark")
    regex = _variant(variants, "openai_regex")
    prefix = f'Tool "{tool.name}" cannot use grammar constrained sampling'
    if lark is None and regex is None:
        raise ValueError(f"{prefix}: no supported grammar variant was provided.")
    try:
        prop = _input_property(tool)
    except ValueError as exc:
        raise ValueError(f"{prefix}: {exc}.") from None
    if lark is not None:
        return GrammarFormat("lark", lark, prop)
    return GrammarFormat("regex", regex or "", prop)


def declared_tools(context: Context) -> list[Tool]:
    """Every tool the conversation declared: the context's tools and each system message's additions.

    Tools removed later still count, so their earlier calls are replayed the way they were made.
    """
    tools: dict[str, Tool] = {tool.name: tool for tool in context.tools or []}
    for message in context.messages:
        if isinstance(message, SystemMessage):
            for added in message.tools_added or []:
                tools[added.name] = added
    return list(tools.values())


def grammar_inputs(context: Context, supported: bool) -> dict[str, str]:
    """Tool name -> the property its raw input fills, for every grammar tool `context` declared."""
    if not supported:
        return {}
    inputs: dict[str, str] = {}
    for tool in declared_tools(context):
        found = grammar_format(tool, supported)
        if found is not None:
            inputs[tool.name] = found.input_property
    return inputs


def custom_tool(tool: Tool, found: GrammarFormat) -> dict[str, Any]:
    """The ``custom`` tool definition of a grammar tool."""
    return {
        "type": "custom",
        "name": tool.name,
        "description": tool.description,
        "format": {"type": "grammar", "syntax": found.syntax, "definition": found.definition},
    }


def chat_custom_tool(tool: Tool, found: GrammarFormat) -> dict[str, Any]:
    """The Chat Completions ``custom`` tool definition of a grammar tool."""
    grammar = {"syntax": found.syntax, "definition": found.definition}
    return {
        "type": "custom",
        "custom": {
            "name": tool.name,
            "description": tool.description,
            "format": {"type": "grammar", "grammar": grammar},
        },
    }


def grammar_input(tool_name: str, arguments: Mapping[str, Any], prop: str) -> str:
    """The raw input of a stored grammar tool call (its one string argument)."""
    value = arguments.get(prop)
    if not isinstance(value, str):
        raise ValueError(f'Grammar tool call "{tool_name}" requires argument "{prop}" to be a string.')
    return value


def _escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


class GrammarInputStream:
    """The raw input of one streamed custom tool call, re-expressed as JSON argument text.

    `append` and `close` return the next piece of ``{"<property>":"<input>"}`` (or None when there
    is nothing new), so the concatenated pieces are the whole arguments text.
    """

    def __init__(self, prop: str) -> None:
        self.prop = prop
        self.text = ""
        self.closed = False
        self._opened = False

    @property
    def arguments(self) -> dict[str, Any]:
        return {self.prop: self.text}

    def _opening(self) -> str:
        if self._opened:
            return ""
        self._opened = True
        return "{" + json.dumps(self.prop, ensure_ascii=False) + ':"'

    def append(self, delta: str) -> str | None:
        if self.closed:
            raise ValueError(f'grammar tool input for property "{self.prop}" changed after it was closed')
        if not delta:
            return None
        self.text += delta
        return self._opening() + _escaped(delta)

    def close(self, final: str | None) -> str | None:
        """End the input; `final` is the complete input when the server sent one (it must extend what streamed)."""
        if self.closed:
            if final is None or final == self.text:
                return None
            raise ValueError(f'grammar tool input for property "{self.prop}" changed after it was closed')
        if final is not None and not final.startswith(self.text):
            raise ValueError(f'grammar tool input for property "{self.prop}" changed non-monotonically')
        rest = "" if final is None else final[len(self.text) :]
        if final is not None:
            self.text = final
        self.closed = True
        return self._opening() + _escaped(rest) + '"}'


__all__ = [
    "COMPAT_KEY",
    "GrammarFormat",
    "GrammarInputStream",
    "chat_custom_tool",
    "custom_tool",
    "declared_tools",
    "grammar_format",
    "grammar_input",
    "grammar_inputs",
    "supports_grammar_tools",
]
