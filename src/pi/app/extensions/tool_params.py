"""Arguments of extension tools whose parameters are a JSON Schema dict: loose coercion, then checks.

Models often send `"5"` for 5, `"true"` for true, one value where a list belongs, or `null` for an
optional property. Those are repaired first (as for the built-in tools); what still does not fit
is reported in pi's validation frame, one line per problem, so the model can resend the call.
Only the common keywords are checked (`type`, `required`, `properties`, `items`, `enum`): a
schema is a contract with the model, not a full validator.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict

from pi.ai.validation import ToolValidationError, format_validation_failure, json_type_name

_JSON_TYPES = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
}


def _coerce(value: Any, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if kind == "integer" and number.is_integer() else number
    if kind == "boolean" and isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if kind == "array" and not isinstance(value, list):
        return [value]
    return value


def _check(value: Any, schema: dict[str, Any], path: str, problems: list[tuple[str, str]]) -> Any:
    """The coerced value; problems found are appended as (dotted path, message)."""
    value = _coerce(value, schema)
    kind = schema.get("type")
    if isinstance(kind, str):
        if kind in ("number", "integer"):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and (kind == "number" or float(value).is_integer())
        else:
            expected = _JSON_TYPES.get(kind)
            ok = expected is None or isinstance(value, expected)
        if not ok:
            problems.append((path, f"expected {kind}, got {json_type_name(value)}"))
            return value
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        import json

        problems.append((path, f"expected one of {json.dumps(enum, separators=(',', ':'))}"))
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        for key in list(value):
            if value[key] is None and key not in required:
                del value[key]
        for name in required:
            if name not in value:
                problems.append((f"{path}.{name}" if path else name, "missing"))
        for name, sub in properties.items():
            if name in value and isinstance(sub, dict):
                value[name] = _check(value[name], sub, f"{path}.{name}" if path else name, problems)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value = [
            _check(item, schema["items"], f"{path}.{i}" if path else str(i), problems) for i, item in enumerate(value)
        ]
    return value


def validate_schema_arguments(tool_name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """The coerced arguments; raises ToolValidationError with pi's frame when they do not fit."""
    problems: list[tuple[str, str]] = []
    coerced = _check(copy.deepcopy(arguments), schema, "", problems)
    if problems:
        raise ToolValidationError(format_validation_failure(tool_name, problems, arguments))
    result: dict[str, Any] = coerced
    return result


class SchemaParams(BaseModel):
    """Parameter model of a JSON-Schema tool: accepts any object; the schema is what the model sees."""

    model_config = ConfigDict(extra="allow")


def schema_params_model(tool_name: str, schema: dict[str, Any]) -> type[SchemaParams]:
    """A parameter class whose JSON schema is exactly `schema` (arguments are checked separately)."""
    frozen = copy.deepcopy(schema)

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(frozen)

    namespace: dict[str, Any] = {"model_json_schema": classmethod(model_json_schema), "__module__": __name__}
    model: type[SchemaParams] = type(f"Params_{tool_name}", (SchemaParams,), namespace)
    return model


__all__ = ["SchemaParams", "schema_params_model", "validate_schema_arguments"]
