"""`tool_search`: lets the model find deferred tools and declares the matches from its next call on.

Deferred tools (from MCP servers or extensions) are not declared, so the request prefix stays the
same however many exist. The model describes what it needs; matches are ranked with BM25 over the
tools' descriptions and schemas, weighting names above descriptions and namespaces below.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct

K1 = 1.2
B = 0.75
NAME_WEIGHT = 3.0
NAMESPACE_WEIGHT = 0.5
LAST_SEGMENT_BONUS = 5.0
DEFAULT_LIMIT = 8
SEARCHABLE_EXPOSURES = ("codemode", "deferred")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "use",
        "used",
        "using",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])|([A-Z]+)([A-Z][a-z])")


def singular(word: str) -> str:
    """Naive singular: `queries` → `query`, `tools` → `tool`, `class` stays."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """camelCase split, lowercase, letters only, stop words dropped, naive singular."""
    spaced = _CAMEL.sub(lambda m: f"{m.group(1) or m.group(3)} {m.group(2) or m.group(4)}", text)
    words = re.split(r"[^a-z]+", spaced.lower())
    return [singular(w) for w in words if w and w not in STOP_WORDS]


def _schema_text(schema: Any) -> list[str]:
    """Property names and descriptions anywhere in a JSON schema."""
    out: list[str] = []
    if isinstance(schema, Mapping):
        if isinstance(schema.get("description"), str):
            out.append(schema["description"])
        props = schema.get("properties")
        if isinstance(props, Mapping):
            for key, value in props.items():
                out.append(str(key))
                out.extend(_schema_text(value))
        for key in ("items", "anyOf", "oneOf", "allOf"):
            value = schema.get(key)
            for part in value if isinstance(value, list) else [value]:
                out.extend(_schema_text(part))
    return out


def _namespace_text(namespace: Any) -> str:
    if namespace is None:
        return ""
    aliases = _field(namespace, "aliases") or []
    parts = [_field(namespace, "name") or "", *aliases, _field(namespace, "description") or ""]
    return " ".join(str(p) for p in parts)


class _Doc(Struct):
    name: str
    description: str
    body: Counter[str]
    length: int
    name_terms: set[str]
    namespace_terms: set[str]
    last_segment: set[str]

    @property
    def all_terms(self) -> set[str]:
        return set(self.body) | self.name_terms | self.namespace_terms


def _field(tool: Any, key: str) -> Any:
    return tool.get(key) if isinstance(tool, Mapping) else getattr(tool, key, None)


def _doc(tool: Any) -> _Doc:
    name = str(_field(tool, "name"))
    description = str(_field(tool, "description") or "")
    body = tokenize(" ".join([description, *_schema_text(_field(tool, "parameters"))]))
    last = name.split("__")[-1]
    return _Doc(
        name=name,
        description=description,
        body=Counter(body),
        length=len(body),
        name_terms=set(tokenize(name.replace("_", " "))),
        namespace_terms=set(tokenize(_namespace_text(_field(tool, "namespace")).replace("_", " "))),
        last_segment=set(tokenize(last.replace("_", " "))),
    )


def rank_tools(query: str, tools: Iterable[Any], limit: int = DEFAULT_LIMIT) -> list[str]:
    """Names of the best matching tools, best first (tools with nothing in common are left out)."""
    docs = [_doc(t) for t in tools]
    terms = list(dict.fromkeys(tokenize(query)))
    exact = query.strip().lower()
    if not docs or (not terms and not exact):
        return []
    avg = sum(d.length for d in docs) / len(docs) or 1.0
    df = Counter(term for d in docs for term in d.all_terms)
    idf = {t: math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    ranked: list[tuple[int, int, float, str]] = []
    for doc in docs:
        score = 0.0
        covered = 0
        for term in terms:
            tf = doc.body.get(term, 0)
            if tf:
                score += idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * doc.length / avg))
            if term in doc.name_terms:
                score += NAME_WEIGHT * idf[term]
            if term in doc.namespace_terms:
                score += NAMESPACE_WEIGHT * idf[term]
            covered += term in doc.all_terms
        if doc.last_segment and doc.last_segment <= set(terms):
            score += LAST_SEGMENT_BONUS
        is_exact = exact in (doc.name.lower(), doc.name.split("__")[-1].lower())
        if score > 0 or is_exact:
            ranked.append((0 if is_exact else 1, -covered, -score, doc.name))
    ranked.sort()
    return [name for *_, name in ranked[:limit]]


def search_candidates(all_tools: Iterable[Any], active: Iterable[str]) -> list[Any]:
    """Registered tools `tool_search` may load: `codemode`/`deferred` ones not declared yet."""
    declared = set(active)
    return [t for t in all_tools if _field(t, "exposure") in SEARCHABLE_EXPOSURES and _field(t, "name") not in declared]


def result_text(loaded: list[tuple[str, str]]) -> str:
    """`No matching tools found.` or the list of loaded tools with their first description line."""
    if not loaded:
        return "No matching tools found."
    noun = "tool" if len(loaded) == 1 else "tools"
    lines = [f"- {name}: {(description.strip().split(chr(10), 1)[0]).strip()}" for name, description in loaded]
    return f"Loaded {len(loaded)} {noun}. They are available from your next call:\n" + "\n".join(lines)


def check_arguments(params: Mapping[str, Any]) -> tuple[str, int]:
    """The query and limit, or ValueError with the message the model sees."""
    query = params.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must not be empty")
    limit = params.get("limit", DEFAULT_LIMIT)
    if limit is None:
        limit = DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int | float) or limit != int(limit) or limit < 1:
        raise ValueError("limit must be a positive integer")
    return query, int(limit)


__all__ = [
    "DEFAULT_LIMIT",
    "check_arguments",
    "rank_tools",
    "result_text",
    "search_candidates",
    "singular",
    "tokenize",
]
