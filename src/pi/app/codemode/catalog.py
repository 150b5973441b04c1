"""The tools a script may call, as the worker needs them, and `searchTools` over them.

Callable from a script: the active `direct` tools plus every registered `codemode`/`deferred`
tool, never `codemode` itself or another `model-only` tool (scripts cannot start scripts). Each
gets a JavaScript identifier (`mcp__dev-radius__search` → `mcp__dev_radius__search`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pi.app.codemode.ts_types import declaration

REACHABLE_EXPOSURES = ("codemode", "deferred")
BASH_RESULT = (
    "{ output: string; truncated: boolean; full_output_path?: string; exit_code: number | null; "
    "wall_time_seconds: number }"
)
READ_RESULT = 'string | { type: "image"; data: string; mimeType: string; note: string }'
RESULT_TYPES = {"bash": BASH_RESULT, "read": READ_RESULT}


def identifier(name: str) -> str:
    """The name as a JavaScript identifier: characters outside `[A-Za-z0-9_$]` become `_`."""
    out = re.sub(r"[^A-Za-z0-9_$]", "_", name)
    return "_" + out if out[:1].isdigit() else out


def field(item: Any, key: str) -> Any:
    """A field of a `ToolInfo`, a namespace model or a plain dict alike."""
    return item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)


def callable_infos(infos: Iterable[Any], active: Sequence[str], own_name: str = "codemode") -> list[Any]:
    """The registered tools a script may call, in registration order."""
    declared = set(active)
    out = []
    for info in infos:
        name, exposure = field(info, "name"), field(info, "exposure")
        if name == own_name or exposure in ("model-only", "hidden"):
            continue
        if exposure in REACHABLE_EXPOSURES or (name in declared and exposure in (None, "direct")):
            out.append(info)
    return out


def result_type(name: str) -> str:
    return RESULT_TYPES.get(name, "string | Record<string, unknown>")


def namespace_name(info: Any) -> str | None:
    namespace = field(info, "namespace")
    name = field(namespace, "name") if namespace is not None else None
    return str(name) if name else None


def tool_entry(info: Any) -> dict[str, Any]:
    """One tool as the worker sees it (JSON)."""
    name = str(field(info, "name"))
    ident = identifier(name)
    description = str(field(info, "description") or "")
    return {
        "name": name,
        "identifier": ident,
        "description": description,
        "parameters": field(info, "parameters") or {},
        "namespace": namespace_name(info),
        "namespaceInfo": _namespace_json(field(info, "namespace")),
        "declaration": description.strip() + "\n\n" + declaration(ident, field(info, "parameters"), result_type(name)),
    }


def _namespace_json(namespace: Any) -> dict[str, Any] | None:
    if namespace is None or not field(namespace, "name"):
        return None
    out: dict[str, Any] = {
        "name": str(field(namespace, "name")),
        "identifier": identifier(str(field(namespace, "name"))),
    }
    for key in ("aliases", "description", "instructions"):
        value = field(namespace, key)
        if value:
            out[key] = list(value) if key == "aliases" else str(value)
    return out


def namespaces(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each namespace once, in first-seen order."""
    seen: dict[str, dict[str, Any]] = {}
    for entry in entries:
        info = entry.get("namespaceInfo")
        if isinstance(info, dict) and info["name"] not in seen:
            seen[info["name"]] = info
    return list(seen.values())


def search(tools: Sequence[Mapping[str, Any]], payload: Mapping[str, Any]) -> list[dict[str, str]]:
    """`searchTools(query, {limit, namespace})`: BM25 as `tool_search` ranks, best first."""
    from pi.app.mcp.tool_search import DEFAULT_LIMIT, rank_tools

    query = str(payload.get("query") or "")
    limit = payload.get("limit")
    if limit is None:
        limit = DEFAULT_LIMIT
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError("searchTools() limit must be a positive integer")
    wanted = payload.get("namespace")
    pool = list(tools)
    if isinstance(wanted, str) and wanted:
        key = identifier(wanted)
        pool = [
            t
            for t in pool
            if (info := t.get("namespaceInfo"))
            and (wanted == info["name"] or key == info["identifier"] or wanted in info.get("aliases", []))
        ]
    docs = [
        {
            "name": t["name"],
            "description": t["description"],
            "parameters": t["parameters"],
            "namespace": t.get("namespaceInfo"),
        }
        for t in pool
    ]
    by_name = {t["name"]: t for t in pool}
    return [
        {"name": by_name[n]["identifier"], "description": by_name[n]["description"]}
        for n in rank_tools(query, docs, limit)
    ]


__all__ = ["callable_infos", "field", "identifier", "namespaces", "search", "tool_entry"]
