"""The parameter schemas the model sees, written as small as their meaning allows.

Every tool definition is sent with every request, so each character is paid for on every turn.
pydantic spells an optional field as ``anyOf: [{type}, {type: null}]`` with ``default: null``;
for a model, leaving the field out of ``required`` says the same. Nested models are written inline
because some providers reject ``$ref`` in tool parameters.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _inline(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(definitions[ref.removeprefix("#/$defs/")], definitions)
        return {key: _inline(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node


def _compact_property(schema: dict[str, Any]) -> dict[str, Any]:
    variants = schema.get("anyOf")
    if isinstance(variants, list) and schema.get("default", 0) is None:
        kept = [variant for variant in variants if variant != {"type": "null"}]
        if len(kept) == 1:
            schema = {**{k: v for k, v in schema.items() if k not in ("anyOf", "default")}, **kept[0]}
    return schema


def _compact(node: Any) -> Any:
    if isinstance(node, dict):
        out = {key: _compact(value) for key, value in node.items() if key != "title"}
        properties = node.get("properties")
        if isinstance(properties, dict):
            out["properties"] = {name: _compact_property(_compact(value)) for name, value in properties.items()}
        return out
    if isinstance(node, list):
        return [_compact(item) for item in node]
    return node


class ToolParams(BaseModel):
    """Base of the built-in tools' parameter models: validation as usual, a compact JSON schema.

    Each model's validator is built when the model is first used (its schema sent, or a call
    validated), not at import: this base is never used itself, and a run that never offers a tool
    never pays for its model.
    """

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        schema = super().model_json_schema(*args, **kwargs)
        definitions = schema.pop("$defs", {})
        compact: dict[str, Any] = _compact(_inline(schema, definitions))
        return compact


def _floor_number(value: Any) -> Any:
    """A finite number (or numeric string, as the argument coercion allows) floored to an int;
    anything else is left to the integer validation and its error message.

    Models often send counts as ``1.5`` or ``"10.0"``; pi floors them, and refusing would only cost a retry.
    """
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return math.floor(number) if math.isfinite(number) else value
    if isinstance(value, float) and math.isfinite(value):
        return math.floor(value)
    return value


FlooredInt = Annotated[int, BeforeValidator(_floor_number)]
"""An integer parameter that also takes a number and floors it. Its JSON schema stays ``integer``:
a whole number is what the model should send, and the schema says no more than that."""


__all__ = ["FlooredInt", "ToolParams"]
