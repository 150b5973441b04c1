"""Validate (and coerce) tool-call arguments, with errors written for the model to act on.

The error text has pi's exact frame: ``Validation failed for tool "<name>":``, one ``  - path: problem``
line per problem, a blank line, ``Received arguments:`` and the arguments as 2-space-indented JSON.
Models read it and resend a corrected call, so it must name every problem at once.

Paths are dotted (``edits.0.old_text``), the newer pi's style; a missing property is reported at its
own path (``options.mode: must have required property 'mode'``), so the model sees where it belongs.

Two validators share that frame. `validate_model_arguments` serves tools whose parameters are a
pydantic model (every built-in tool): pydantic's lax mode already turns "5" into 5. `validate_tool_arguments`
serves tools that only have a JSON schema (extensions, MCP servers): a compact validator for the
subset of JSON Schema that tool definitions use, coercing scalars the way AJV's ``coerceTypes`` does,
because models routinely send ``"5"`` for 5 and ``"true"`` for true. ``format`` is not checked.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from pi.ai.types import Tool, ToolCall

Problem = tuple[str, str]
"""(dotted path, or "" for the arguments object itself; message)."""

_MISSING = object()


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


# --- entry points ---------------------------------------------------------------------------------


def validate_tool_call(tools: Sequence[Tool], tool_call: ToolCall) -> dict[str, Any]:
    """Find the called tool by exact name and validate the call's arguments against it."""
    for tool in tools:
        if tool.name == tool_call.name:
            return validate_tool_arguments(tool, tool_call)
    raise ToolValidationError(f'Tool "{tool_call.name}" not found')


def validate_tool_arguments(tool: Tool, tool_call: ToolCall) -> dict[str, Any]:
    """The call's arguments, coerced to `tool.parameters`; raises ToolValidationError listing every problem.

    Works on a deep copy: the tool call (and the session that stores it) keeps what the model sent.
    """
    arguments = copy.deepcopy(tool_call.arguments)
    checker = _Checker(tool.parameters)
    value, problems = checker.check(tool.parameters, arguments, "", coerce=True)
    if problems:
        raise ToolValidationError(format_validation_failure(tool.name, problems, tool_call.arguments))
    return value if isinstance(value, dict) else arguments


def validate_model_arguments(tool_name: str, params_model: type[BaseModel], arguments: dict[str, Any]) -> BaseModel:
    """`arguments` as an instance of `params_model`; raises ToolValidationError in pi's frame.

    Validation runs on a deep copy so that the params a tool receives (and may mutate) share nothing
    with the arguments stored in the conversation.
    """
    try:
        return params_model.model_validate(copy.deepcopy(arguments))
    except ValidationError as error:
        problems: list[Problem] = []
        for item in error.errors(include_url=False):
            path = ".".join(str(part) for part in item["loc"])
            if item["type"] == "missing" and item["loc"]:
                problems.append((path, f"must have required property '{item['loc'][-1]}'"))
            else:
                problems.append((path, item["msg"]))
        raise ToolValidationError(format_validation_failure(tool_name, problems, arguments)) from None


# --- the JSON Schema subset -----------------------------------------------------------------------


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _has_type(value: Any, wanted: str) -> bool:
    actual = _json_type(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


def _parse_number(text: str) -> int | float | None:
    text = text.strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    if number.is_integer() and re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return number


def _to_text(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _coerce(value: Any, wanted: str) -> Any:
    """AJV's scalar coercion of `value` to JSON type `wanted`, or _MISSING when there is none."""
    if wanted in ("number", "integer"):
        if isinstance(value, bool):
            return int(value)
        if value is None:
            return 0
        if isinstance(value, str):
            number = _parse_number(value)
            if number is None:
                return _MISSING
            if wanted == "integer":
                if isinstance(number, float) and not number.is_integer():
                    return _MISSING
                return int(number)
            return number
        return _MISSING
    if wanted == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return _to_text(value)
        if value is None:
            return ""
        return _MISSING
    if wanted == "boolean":
        if value in ("true", "false"):
            return value == "true"
        if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
            return value == 1
        if value is None:
            return False
        return _MISSING
    if wanted == "null":
        if value == "" or (value == 0 and not isinstance(value, str)) or value is False:
            return None
        return _MISSING
    return _MISSING


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _format_limit(limit: Any) -> str:
    return _to_text(limit) if isinstance(limit, int | float) and not isinstance(limit, bool) else str(limit)


class _Checker:
    """Walks a schema and a value together, returning the (coerced) value and every problem found."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
            ref: str = schema["$ref"]
            if not ref.startswith("#"):
                return {}
            target: Any = self.root
            for part in ref[1:].split("/"):
                if not part:
                    continue
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **extra} if isinstance(target, dict) else {}
            seen += 1
        return schema

    def check(self, schema: Any, value: Any, path: str, *, coerce: bool) -> tuple[Any, list[Problem]]:
        schema = self.resolve(schema)
        if schema is False:
            return value, [(path, "must NOT be valid")]
        if not isinstance(schema, dict):
            return value, []
        problems: list[Problem] = []

        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_has_type(value, t) for t in types):
                converted = _MISSING
                if coerce:
                    for wanted in types:
                        converted = _coerce(value, wanted)
                        if converted is not _MISSING:
                            break
                if converted is _MISSING:
                    return value, [(path, f"must be {','.join(types)}")]
                value = converted
            if "integer" in types and isinstance(value, float) and value.is_integer():
                value = int(value)

        if "enum" in schema and not any(_json_equal(value, option) for option in schema["enum"]):
            allowed = ", ".join(json.dumps(option, ensure_ascii=False) for option in schema["enum"])
            problems.append((path, f"must be equal to one of the allowed values: {allowed}"))
        if "const" in schema and not _json_equal(value, schema["const"]):
            problems.append((path, f"must be equal to constant {json.dumps(schema['const'], ensure_ascii=False)}"))

        if isinstance(value, int | float) and not isinstance(value, bool):
            problems.extend(self.check_number(schema, value, path))
        elif isinstance(value, str):
            problems.extend(self.check_string(schema, value, path))
        elif isinstance(value, list):
            value, found = self.check_array(schema, value, path, coerce=coerce)
            problems.extend(found)
        elif isinstance(value, dict):
            value, found = self.check_object(schema, value, path, coerce=coerce)
            problems.extend(found)

        for sub in schema.get("allOf", ()):
            value, found = self.check(sub, value, path, coerce=coerce)
            problems.extend(found)
        if "anyOf" in schema:
            value, found = self.check_union(schema["anyOf"], value, path, coerce=coerce, exactly_one=False)
            problems.extend(found)
        if "oneOf" in schema:
            value, found = self.check_union(schema["oneOf"], value, path, coerce=coerce, exactly_one=True)
            problems.extend(found)
        if "not" in schema:
            _, found = self.check(schema["not"], copy.deepcopy(value), path, coerce=False)
            if not found:
                problems.append((path, "must NOT be valid"))
        return value, problems

    def check_union(
        self, options: list[Any], value: Any, path: str, *, coerce: bool, exactly_one: bool
    ) -> tuple[Any, list[Problem]]:
        """A member the value already fits wins; only if none does is coercion tried, in order.

        Trying exact fits first keeps ``null`` null under ``anyOf: [string, null]`` instead of
        coercing it to ``""`` through the first member. A bare ``null`` member takes only null:
        coercing ``0`` or ``""`` to null would silently discard what the model meant. When the value
        fails every member but has the type of exactly one, that member's own problems are reported
        (``must be >= 1``), which tells the model more than "must match a schema in anyOf".
        """
        exact = [
            index
            for index, option in enumerate(options)
            if not self.check(option, copy.deepcopy(value), path, coerce=False)[1]
        ]
        message = "must match exactly one schema in oneOf" if exactly_one else "must match a schema in anyOf"
        if exactly_one and len(exact) > 1:
            return value, [(path, message + self.union_hints(options))]
        if exact:
            # Re-run the winner with coercion so nested fields it allows are normalised as well.
            return self.check(options[exact[0]], value, path, coerce=coerce)[0], []
        if coerce:
            for option in options:
                if self.resolve(option) == {"type": "null"}:
                    continue
                candidate, found = self.check(option, copy.deepcopy(value), path, coerce=True)
                if not found:
                    return candidate, []
        typed = [option for option in options if self.type_fits(option, value, coerce=coerce)]
        if len(typed) == 1:
            return value, self.check(typed[0], copy.deepcopy(value), path, coerce=coerce)[1]
        return value, [(path, message + self.union_hints(options))]

    def type_fits(self, option: Any, value: Any, *, coerce: bool) -> bool:
        """Whether `option` declares a type that `value` has (or can be coerced to, null aside)."""
        option = self.resolve(option)
        if not isinstance(option, dict) or "type" not in option:
            return False
        types = option["type"] if isinstance(option["type"], list) else [option["type"]]
        if any(_has_type(value, t) for t in types):
            return True
        return coerce and any(t != "null" and _coerce(value, t) is not _MISSING for t in types)

    def union_hints(self, options: list[Any]) -> str:
        """Name the member types so the model knows what would be accepted."""
        kinds: list[str] = []
        for option in options:
            option = self.resolve(option)
            if not isinstance(option, dict):
                continue
            kind = option.get("type")
            if "const" in option:
                kind = json.dumps(option["const"], ensure_ascii=False)
            if isinstance(kind, list):
                kind = ",".join(str(k) for k in kind)
            if isinstance(kind, str) and kind not in kinds:
                kinds.append(kind)
        return f" ({' | '.join(kinds)})" if kinds else ""

    def check_number(self, schema: dict[str, Any], value: float, path: str) -> list[Problem]:
        problems: list[Problem] = []
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if isinstance(minimum, int | float):
            if low is True and value <= minimum:  # draft-4 form
                problems.append((path, f"must be > {_format_limit(minimum)}"))
            elif value < minimum:
                problems.append((path, f"must be >= {_format_limit(minimum)}"))
        if isinstance(maximum, int | float):
            if high is True and value >= maximum:
                problems.append((path, f"must be < {_format_limit(maximum)}"))
            elif value > maximum:
                problems.append((path, f"must be <= {_format_limit(maximum)}"))
        if isinstance(low, int | float) and not isinstance(low, bool) and value <= low:
            problems.append((path, f"must be > {_format_limit(low)}"))
        if isinstance(high, int | float) and not isinstance(high, bool) and value >= high:
            problems.append((path, f"must be < {_format_limit(high)}"))
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            quotient = value / step
            if abs(quotient - round(quotient)) > 1e-9:
                problems.append((path, f"must be multiple of {_format_limit(step)}"))
        return problems

    def check_string(self, schema: dict[str, Any], value: str, path: str) -> list[Problem]:
        problems: list[Problem] = []
        length = len(value)
        if isinstance(schema.get("minLength"), int) and length < schema["minLength"]:
            problems.append((path, f"must NOT have fewer than {schema['minLength']} characters"))
        if isinstance(schema.get("maxLength"), int) and length > schema["maxLength"]:
            problems.append((path, f"must NOT have more than {schema['maxLength']} characters"))
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            try:
                matched = re.search(pattern, value) is not None
            except re.error:
                matched = True  # a pattern Python cannot read is not the model's fault
            if not matched:
                problems.append((path, f'must match pattern "{pattern}"'))
        return problems

    def check_array(
        self, schema: dict[str, Any], value: list[Any], path: str, *, coerce: bool
    ) -> tuple[list[Any], list[Problem]]:
        problems: list[Problem] = []
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            problems.append((path, f"must NOT have fewer than {schema['minItems']} items"))
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            problems.append((path, f"must NOT have more than {schema['maxItems']} items"))
        positional = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list):  # the draft-7 tuple form
            positional, items = items, schema.get("additionalItems")
        out = list(value)
        for index, item in enumerate(out):
            if isinstance(positional, list) and index < len(positional):
                sub = positional[index]
            elif items is not None:
                sub = items
            else:
                continue
            out[index], found = self.check(sub, item, _join(path, index), coerce=coerce)
            problems.extend(found)
        if schema.get("uniqueItems") is True:
            for i in range(len(out)):
                if any(_json_equal(out[i], out[j]) for j in range(i)):
                    problems.append((path, "must NOT have duplicate items"))
                    break
        return out, problems

    def check_object(
        self, schema: dict[str, Any], value: dict[str, Any], path: str, *, coerce: bool
    ) -> tuple[dict[str, Any], list[Problem]]:
        problems: list[Problem] = []
        properties: dict[str, Any] = schema.get("properties") or {}
        patterns: dict[str, Any] = schema.get("patternProperties") or {}
        out = dict(value)
        for name in schema.get("required") or ():
            if name not in out:
                problems.append((_join(path, name), f"must have required property '{name}'"))
        additional = schema.get("additionalProperties", True)
        for name in list(out):
            known = False
            if name in properties:
                known = True
                out[name], found = self.check(properties[name], out[name], _join(path, name), coerce=coerce)
                problems.extend(found)
            for pattern, sub in patterns.items():
                if re.search(pattern, name):
                    known = True
                    out[name], found = self.check(sub, out[name], _join(path, name), coerce=coerce)
                    problems.extend(found)
            if known:
                continue
            if additional is False:
                problems.append((path, f"must NOT have additional property '{name}'"))
            elif isinstance(additional, dict):
                out[name], found = self.check(additional, out[name], _join(path, name), coerce=coerce)
                problems.extend(found)
        if isinstance(schema.get("minProperties"), int) and len(out) < schema["minProperties"]:
            problems.append((path, f"must NOT have fewer than {schema['minProperties']} properties"))
        if isinstance(schema.get("maxProperties"), int) and len(out) > schema["maxProperties"]:
            problems.append((path, f"must NOT have more than {schema['maxProperties']} properties"))
        return out, problems


__all__ = [
    "ToolValidationError",
    "format_validation_failure",
    "validate_model_arguments",
    "validate_tool_arguments",
    "validate_tool_call",
]
