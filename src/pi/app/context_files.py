"""AGENTS.md / CLAUDE.md discovery: the user's standing instructions, global first, cwd last.

In each directory the first existing name of `CONTEXT_FILE_NAMES` is used, so an
`AGENTS.override.md` replaces that directory's AGENTS.md (and only that directory's). When the
working directory is inside a linked git worktree nested in its main checkout, the main
checkout's copy of a file the worktree has too is skipped: it is the same file, one branch older.
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


class ContextFile(Struct, frozen=True):
    """One context file (AGENTS.md, CLAUDE.md, ...) and its text, with any BOM removed."""

    path: Path
    content: str


def _first_in(directory: Path) -> Path | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        if candidate.is_file():  # a directory of that name is not a context file
            return candidate
    return None


def _linked_worktree(cwd: Path) -> tuple[Path, Path] | None:
    """(worktree root, main checkout root) when `cwd` is inside a linked git worktree."""
    for directory in [cwd, *cwd.parents]:
        marker = directory / ".git"
        if marker.is_dir():
            return None
        if marker.is_file():
            try:
                text = marker.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = Path(text.removeprefix("gitdir:").strip())
            if not gitdir.is_absolute():
                gitdir = (directory / gitdir).resolve()
            if gitdir.parent.name != "worktrees" or gitdir.parent.parent.name != ".git":
                return None
            return directory, gitdir.parent.parent.parent
    return None


def _shadowed(directory: Path, worktree: tuple[Path, Path] | None) -> bool:
    """Whether `directory` is part of the main checkout and the worktree has its own file there."""
    if worktree is None:
        return False
    root, main = worktree
    if directory.is_relative_to(root) or not directory.is_relative_to(main):
        return False
    return _first_in(root / directory.relative_to(main)) is not None


def load_context_files(cwd: Path, agent_dir: Path) -> list[ContextFile]:
    """The global file, then one per directory from the filesystem root down to `cwd`."""
    found: list[Path] = []
    global_file = _first_in(agent_dir)
    if global_file is not None:
        found.append(global_file)
    resolved = cwd.resolve()
    worktree = _linked_worktree(resolved)
    for directory in [*reversed(resolved.parents), resolved]:
        candidate = _first_in(directory)
        if candidate is not None and not _shadowed(directory, worktree):
            found.append(candidate)
    seen: set[Path] = set()
    out: list[ContextFile] = []
    for path in found:
        real = path.resolve()
        if real in seen:
            continue
        seen.add(real)
        try:
            content = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        out.append(ContextFile(path=path, content=content.removeprefix("\ufeff")))
    return out


__all__ = ["CONTEXT_FILE_NAMES", "ContextFile", "load_context_files"]
