"""AGENTS.md / CLAUDE.md discovery: the user's standing instructions, global first, cwd last."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(slots=True, frozen=True)
class ContextFile:
    path: Path
    content: str


def _first_in(directory: Path) -> Path | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        if candidate.is_file():
            return candidate
    return None


def load_context_files(cwd: Path, agent_dir: Path) -> list[ContextFile]:
    """The global file, then one per directory from the filesystem root down to `cwd`."""
    found: list[Path] = []
    global_file = _first_in(agent_dir)
    if global_file is not None:
        found.append(global_file)
    resolved = cwd.resolve()
    for directory in [*reversed(resolved.parents), resolved]:
        candidate = _first_in(directory)
        if candidate is not None:
            found.append(candidate)
    seen: set[Path] = set()
    out: list[ContextFile] = []
    for path in found:
        real = path.resolve()
        if real in seen:
            continue
        seen.add(real)
        try:
            out.append(ContextFile(path=path, content=path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return out


__all__ = ["CONTEXT_FILE_NAMES", "ContextFile", "load_context_files"]
