"""TypeScript declarations of tools, written from their JSON schemas, for `describeTool` and the description.

Models read TypeScript signatures well; the declaration says what `tools.<id>(args)` takes and what
its promise resolves to. Only the common schema shapes are rendered; anything else is `unknown`.
"""

from __future__ import annotations

import json
import re
from typing import Any

IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
MAX_DEPTH = 4


def _key(name: str) -> str:
    return name if IDENTIFIER.match(name) else json.dumps(name)


def schema_type(schema: Any, depth: int = 0) -> str:
    """The TypeScript type of one JSON schema."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return "unknown"
    if "const" in schema:
        return json.dumps(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return " | ".join(dict.fromkeys(schema_type(s, depth + 1) for s in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(dict.fromkeys(schema_type({**schema, "type": k}, depth) for k in kind))
    if kind in ("string", "boolean"):
        return str(kind)
    if kind in ("number", "integer"):
        return "number"
    if kind == "null":
        return "null"
    if kind == "array":
        item = schema_type(schema.get("items"), depth + 1)
        return f"Array<{item}>"
    if kind == "object" or isinstance(schema.get("properties"), dict):
        return object_type(schema, depth)
    return "unknown"


def object_type(schema: dict[str, Any], depth: int = 0) -> str:
    """`{ a: string; b?: number }` for an object schema (`Record<string, unknown>` without properties)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "Record<string, unknown>"
    required = set(schema.get("required") or [])
    fields = []
    for name, sub in properties.items():
        optional = "" if name in required else "?"
        fields.append(f"{_key(str(name))}{optional}: {schema_type(sub, depth + 1)}")
    return "{ " + "; ".join(fields) + " }"


def _doc_lines(schema: Any) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    lines = []
    for name, sub in properties.items():
        described = sub.get("description") if isinstance(sub, dict) else None
        if isinstance(described, str) and described.strip():
            lines.append(f" * @param args.{name} {described.strip().splitlines()[0]}")
    return lines


def declaration(identifier: str, parameters: Any, result_type: str) -> str:
    """`declare function tools.<id>(args: {...}): Promise<...>;` with parameter notes as a doc comment."""
    notes = _doc_lines(parameters)
    head = ["/**", *notes, " */"] if notes else []
    args = object_type(parameters) if isinstance(parameters, dict) else "Record<string, unknown>"
    return "\n".join([*head, f"declare function {identifier}(args: {args}): Promise<{result_type}>;"])


__all__ = ["declaration", "object_type", "schema_type"]
