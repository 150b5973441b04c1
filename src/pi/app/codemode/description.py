"""The `codemode` tool's description: what a script can use, and the tools it may call.

Listed in mode `on` (the default): callable tools with exposure `codemode` that are not declared;
in mode `only`: every callable tool but the `deferred` ones, the declared `direct` tools included
(their declarations are then left out of requests). `deferred` tools are never listed, so the
description does not change while MCP servers, whose tools are `deferred`, connect. Tools without a namespace come
first, then namespaces by name. Within `codemode.inlineBudget` estimated tokens (chars/4, default
3000) tools are added round-robin over the groups, cheapest first; a group with tools left out
says so, and a budget of 0 lists only the namespaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pi.app.codemode.catalog import callable_infos, field, identifier, result_type
from pi.app.codemode.ts_types import declaration

DEFAULT_INLINE_BUDGET = 3000
MODES = ("on", "only")
MODELS_LINE = (
    "- `models`: list models by type (`getModelsOfType`, `getAvailableOfType`, `getModelOfType`), run "
    "classifiers (`classify`) and image models (`generateImages`); see {docs} first."
)
INTRO = (
    "Run JavaScript (the body of an async function: top-level await and return) in a sandbox without Node, "
    "file system, network or timers. Use it to batch independent tool calls (Promise.allSettled), chain "
    "them, or filter large output before it reaches you."
)
GLOBALS = [
    "- `tools.<name>(args)`: call a tool; resolves to its result (text, or structured data where the tool has "
    "it), rejects with an Error carrying the tool's error text.",
    "- `text(value)`, `console.log/info/warn/error/debug(...)`, `return value`: output (non-strings as JSON).",
    '- `image(value)`: show an image (base64 data: URL, {image_url}, or {type: "image", data, mimeType}).',
    "- `store(key, value)` / `load(key)`: keep JSON values for later scripts on this branch.",
    "- `ALL_TOOLS`, `searchTools(query, {limit, namespace})`, `describeTool(name)`, `describeNamespace(name)`: "
    "find callable tools that are not listed here.",
    "- `exit()`: end the script successfully.",
    '- First line `// @options: {"timeout_ms": N, "max_output_tokens": N}` changes the limits '
    "(default 120000 ms and 10000 tokens).",
]


def _tool_text(info: Any) -> str:
    name = str(field(info, "name"))
    ident = identifier(name)
    title = f"### `{ident}`" + (f" (`{name}`)" if ident != name else "")
    parts = [title, str(field(info, "description") or "").strip()]
    guidelines = [g for g in field(info, "prompt_guidelines") or [] if isinstance(g, str) and g.strip()]
    parts += [f"- {g.strip()}" for g in guidelines]
    parts.append("```ts\n" + declaration(ident, field(info, "parameters"), result_type(name)) + "\n```")
    return "\n".join(p for p in parts if p)


def _groups(infos: Iterable[Any]) -> list[tuple[Any, list[Any]]]:
    plain: list[Any] = []
    spaced: dict[str, tuple[Any, list[Any]]] = {}
    for info in infos:
        namespace = field(info, "namespace")
        name = field(namespace, "name") if namespace is not None else None
        if not name:
            plain.append(info)
        else:
            spaced.setdefault(str(name), (namespace, []))[1].append(info)
    out: list[tuple[Any, list[Any]]] = [(None, plain)] if plain else []
    return out + [spaced[k] for k in sorted(spaced)]


def _cost_of(tools: list[Any]) -> Callable[[int], int]:
    return lambda index: len(_tool_text(tools[index]))


def _chosen(groups: list[tuple[Any, list[Any]]], budget_chars: float) -> list[set[int]]:
    """Round-robin over groups, cheapest tool of each group first, while the budget lasts."""
    queues = [sorted(range(len(tools)), key=_cost_of(tools)) for _, tools in groups]
    chosen: list[set[int]] = [set() for _ in groups]
    used = 0
    progress = True
    while progress:
        progress = False
        for g, queue in enumerate(queues):
            if not queue:
                continue
            cost = len(_tool_text(groups[g][1][queue[0]]))
            if used + cost > budget_chars:
                queue.clear()
                continue
            used += cost
            chosen[g].add(queue.pop(0))
            progress = True
    return chosen


def listed_tools(infos: Iterable[Any], active: Sequence[str], mode: str = "on") -> list[Any]:
    """The callable tools the description lists (see the module docstring)."""
    declared = set(active)
    callable_tools = callable_infos(infos, active)
    if mode == "only":
        return [i for i in callable_tools if field(i, "exposure") != "deferred"]
    return [i for i in callable_tools if field(i, "exposure") == "codemode" and field(i, "name") not in declared]


def hidden_declarations(infos: Iterable[Any], active: Sequence[str], mode: str) -> list[str]:
    """In mode `only`: the declared `direct` tools scripts can call, whose declarations requests leave out."""
    if mode != "only":
        return []
    return [str(field(i, "name")) for i in callable_infos(infos, active) if field(i, "exposure") in (None, "direct")]


def build_description(
    infos: Iterable[Any],
    active: Sequence[str],
    budget_tokens: float = DEFAULT_INLINE_BUDGET,
    *,
    mode: str = "on",
    models_docs: str | None = None,
) -> str:
    """The whole description for the current tools; `models_docs` (the docs path) turns the models line on."""
    globals_lines = list(GLOBALS)
    if models_docs is not None:
        globals_lines.append(MODELS_LINE.format(docs=models_docs))
    lines = [INTRO, "", "Globals:", *globals_lines]
    groups = _groups(listed_tools(infos, active, mode))
    if not groups:
        return "\n".join(lines)
    chosen = _chosen(groups, budget_tokens * 4) if budget_tokens > 0 else [set() for _ in groups]
    lines += ["", "Tools you can call from scripts (not declared to you):"]
    for (namespace, tools), picked in zip(groups, chosen, strict=True):
        if namespace is not None:
            note = (
                "" if len(picked) == len(tools) else " (tools not listed)" if not picked else " (some tools not listed)"
            )
            lines += ["", f"## {field(namespace, 'name')}{note}"]
            described = field(namespace, "description")
            if described:
                lines.append(str(described).strip())
        for index in sorted(picked):
            lines += ["", _tool_text(tools[index])]
    return "\n".join(lines)


__all__ = ["DEFAULT_INLINE_BUDGET", "MODES", "build_description", "hidden_declarations", "listed_tools"]
