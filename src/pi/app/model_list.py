"""`pi --list-models`: the models that have credentials, as a table."""

from __future__ import annotations

from typing import Any


def _format_count(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}K"
    if n >= 1000:
        return f"{n / 1000:.1f}K"
    return str(n)


def list_models(registry: Any, search: str | None) -> int:
    models = sorted(registry.available_models(), key=lambda m: (m.provider, m.id))
    if search:
        needle = search.lower()
        models = [m for m in models if needle in f"{m.provider} {m.id}".lower()]
    if not models:
        print("No models available. Set API keys in environment variables.")
        return 0
    rows = [("provider", "model", "context", "max-out", "thinking", "images")]
    rows += [
        (
            m.provider,
            m.id,
            _format_count(m.context_window),
            _format_count(m.max_tokens),
            "yes" if m.reasoning else "no",
            "yes" if "image" in m.input else "no",
        )
        for m in models
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return 0


__all__ = ["list_models"]
