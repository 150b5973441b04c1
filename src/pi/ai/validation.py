"""Validate (and coerce) tool-call arguments, with errors written for the model to act on.

The error text has pi's exact frame: ``Validation failed for tool "<name>":``, one ``  - path: problem``
line per problem, a blank line, ``Received arguments:`` and the arguments as 2-space-indented JSON.
Models read it and resend a corrected call, so it must name every problem at once, in pi's short
words: ``path: missing``, ``limit: expected integer, got string``, ``mode: expected one of ["a","b"]``.
Paths are dotted (``edits.0.oldText``); the arguments object itself is ``root``.

Before validation the arguments are coerced the way models most often get them wrong, guided by
the tool's JSON schema: a ``null`` for an optional property is dropped as if omitted, a number or
boolean where a string belongs becomes that string (``{"path": 5}`` reads ``"5"``), and a single
value where an array belongs becomes a one-item array. pydantic's lax mode does the rest (``"5"``
for 5, ``"true"`` for true).
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

Problem = tuple[str, str]
"""(dotted path, or "" for the arguments object itself; message)."""

_TYPE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_parsing",
        "int_from_float",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
        "list_type",
        "tuple_type",
        "set_type",
        "dict_type",
        "model_type",
        "model_attributes_type",
        "dataclass_type",
        "none_required",
    }
)


class ToolValidationError(ValueError):
    """The arguments did not fit the tool's schema; `str()` is the text for the model."""


def format_validation_failure(tool_name: str, problems: Sequence[tuple[str, str]], arguments: Any) -> str:
    """pi's error frame; `problems` are (path or "root", message) pairs."""
    lines = [f'Validation failed for tool "{tool_name}":']
    lines.extend(f"  - {path or 'root'}: {message}" for path, message in problems)
    lines.append("")
    lines.append("Received arguments:")
    lines.append(json.dumps(arguments, indent=2, ensure_ascii=False, default=str))
    return "\n".join(lines)


@functools.lru_cache(maxsize=512)
def _schema_of(params_model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema (by alias, as the model is sent it), computed once per class."""
    schema: dict[str, Any] = params_model.model_json_schema()
    return schema


def _resolve(node: Any, definitions: dict[str, Any]) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/$defs/"):
        node = definitions.get(node["$ref"].removeprefix("#/$defs/"), {})
    return node


def _types(node: Any, definitions: dict[str, Any]) -> list[str]:
    """The JSON types `node` allows (through `anyOf`/`oneOf`), in declaration order."""
    node = _resolve(node, definitions)
    if not isinstance(node, dict):
        return []
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for branch in node.get(key) or []:
            found.extend(t for t in _types(branch, definitions) if t not in found)
    if not found and "enum" in node:
        found = [json_type_name(value) for value in node["enum"][:1]]
    return found


def _object_node(node: Any, definitions: dict[str, Any]) -> dict[str, Any] | None:
    """`node` when it describes an object with properties, or its single object branch."""
    node = _resolve(node, definitions)
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("properties"), dict):
        return node
    branches = [_object_node(b, definitions) for b in node.get("anyOf") or node.get("oneOf") or []]
    objects = [b for b in branches if b is not None]
    return objects[0] if len(objects) == 1 else None


def _array_items(node: Any, definitions: dict[str, Any]) -> Any:
    node = _resolve(node, definitions)
    if isinstance(node, dict) and node.get("type") == "array":
        return node.get("items", {})
    for branch in (node.get("anyOf") or node.get("oneOf") or []) if isinstance(node, dict) else []:
        items = _array_items(branch, definitions)
        if items is not None:
            return items
    return None


def _json_scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _coerce(value: Any, node: Any, definitions: dict[str, Any]) -> Any:
    """`value` adjusted towards `node` where the intent is plain; anything else is left for validation."""
    types = _types(node, definitions)
    if _stringify(value, types):
        return _json_scalar_text(value)
    if "array" in types and value is not None and not isinstance(value, list) and not _satisfies(value, types):
        value = [value]
    if isinstance(value, list):
        items = _array_items(node, definitions)
        return [_coerce(entry, items, definitions) for entry in value] if items is not None else value
    if isinstance(value, dict):
        obj = _object_node(node, definitions)
        if obj is None:
            return value
        properties: dict[str, Any] = obj["properties"]
        required = set(obj.get("required") or [])
        out: dict[str, Any] = {}
        for key, item in value.items():
            schema = properties.get(key)
            if schema is None:
                out[key] = item
            elif item is None and key not in required and "null" not in _types(schema, definitions):
                continue
            else:
                out[key] = _coerce(item, schema, definitions)
        return out
    return value


def _satisfies(value: Any, types: list[str]) -> bool:
    """Whether the value is already of one of the schema types (an integer is a number too)."""
    kind = json_type_name(value)
    return kind in types or (kind == "integer" and "number" in types)


def _stringify(value: Any, types: list[str]) -> bool:
    """Whether a number or boolean stands where only a string (of the scalar types) belongs."""
    if "string" not in types or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    own = "boolean" if isinstance(value, bool) else "number"
    return not set(types) & {own, "integer"} if own == "number" else own not in types


def coerce_arguments(params_model: type[BaseModel], arguments: Any) -> Any:
    """A copy of `arguments` with the plain mistakes of models repaired (see the module text)."""
    schema = _schema_of(params_model)
    return _coerce(copy.deepcopy(arguments), schema, schema.get("$defs") or {})


def json_type_name(value: Any) -> str:
    """The JSON type name of a value, as pi names it in ``got …``.

    An integral float is an ``integer``: JSON (and the JavaScript reference) cannot tell 5.0 from 5,
    and the checks accept it where an integer belongs, so the message names it the same way.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _walk(loc: Sequence[Any], schema: dict[str, Any], definitions: dict[str, Any]) -> tuple[list[str], Any]:
    """The dotted path parts of a pydantic error location and the schema node there.

    pydantic adds the member of a union it tried (``str``, ``list[int]``) to the location; those
    parts name no property or index and are left out.
    """
    parts: list[str] = []
    node: Any = schema
    for part in loc:
        obj = _object_node(node, definitions)
        if isinstance(part, int):
            items = _array_items(node, definitions)
            if items is not None:
                parts.append(str(part))
                node = items
            continue
        resolved = _resolve(node, definitions)
        if obj is not None and part in obj["properties"]:
            parts.append(str(part))
            node = obj["properties"][part]
        elif isinstance(resolved, dict) and "object" in _types(resolved, definitions):
            parts.append(str(part))
            extra = resolved.get("additionalProperties")
            node = extra if isinstance(extra, dict) else {}
    return parts, _resolve(node, definitions)


def _message(item: Any, node: Any, definitions: dict[str, Any]) -> str:
    """pi's wording of one pydantic error."""
    kind = item["type"]
    ctx = item.get("ctx") or {}
    value = item.get("input")
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("literal_error", "enum") and isinstance(node, dict) and isinstance(node.get("enum"), list):
        return f"expected one of {json.dumps(node['enum'], separators=(',', ':'), ensure_ascii=False)}"
    if kind in _TYPE_ERRORS:
        types = [t for t in _types(node, definitions) if t != "null"] or ["valid value"]
        return f"expected {' or '.join(types)}, got {json_type_name(value)}"
    bounds = {
        "greater_than_equal": (">=", "ge"),
        "greater_than": (">", "gt"),
        "less_than_equal": ("<=", "le"),
        "less_than": ("<", "lt"),
    }
    if kind in bounds:
        sign, key = bounds[kind]
        return f"expected {sign} {ctx.get(key)}"
    if kind == "multiple_of":
        return f"expected a multiple of {ctx.get('multiple_of')}"
    unit = "characters" if isinstance(value, str) else "items"
    if kind in ("too_short", "string_too_short"):
        return f"expected at least {ctx.get('min_length')} {unit}"
    if kind in ("too_long", "string_too_long"):
        return f"expected at most {ctx.get('max_length')} {unit}"
    if kind == "string_pattern_mismatch":
        return f"expected to match {ctx.get('pattern')}"
    return str(item["msg"])


def validate_model_arguments(tool_name: str, params_model: type[BaseModel], arguments: dict[str, Any]) -> BaseModel:
    """`arguments` as an instance of `params_model`; raises ToolValidationError in pi's frame.

    Validation runs on a coerced deep copy so that the params a tool receives (and may mutate)
    share nothing with the arguments stored in the conversation; the error quotes what was sent.
    """
    try:
        return params_model.model_validate(coerce_arguments(params_model, arguments))
    except ValidationError as error:
        schema = _schema_of(params_model)
        definitions = schema.get("$defs") or {}
        problems: list[Problem] = []
        for item in error.errors(include_url=False):
            parts, node = _walk(item["loc"], schema, definitions)
            problem = (".".join(parts), _message(item, node, definitions))
            if problem not in problems:
                problems.append(problem)
        raise ToolValidationError(format_validation_failure(tool_name, problems, arguments)) from None


def check_tool_call_arguments(tool_name: str, arguments_error: str | None) -> None:
    """Raise ToolValidationError when the model's arguments text could not be read at all.

    Called before `validate_model_arguments` with the call's `arguments_error`; the text says
    ``Invalid arguments for tool "<name>": <parse error>`` and quotes what the model sent.
    """
    if arguments_error:
        raise ToolValidationError(f'Invalid arguments for tool "{tool_name}": {arguments_error}')


__all__ = [
    "ToolValidationError",
    "check_tool_call_arguments",
    "coerce_arguments",
    "format_validation_failure",
    "json_type_name",
    "validate_model_arguments",
]
