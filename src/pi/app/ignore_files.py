"""`.gitignore`, `.ignore` and `.fdignore` rules, for skipping files while discovering resources.

The common subset of the gitignore syntax: comments, blank lines, `!` to re-include, a trailing
`/` for directories only, a `/` inside the pattern to anchor it to the ignore file's directory,
and `*`, `?`, `[...]`, `**` wildcards. Rules of deeper directories come later and so win.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from msgspec import Struct

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


class _Rule(Struct, frozen=True):
    base: Path
    pattern: str
    negated: bool
    dir_only: bool
    anchored: bool

    def matches(self, path: Path, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return False
        if self.anchored:
            return fnmatch.fnmatchcase(relative, self.pattern) or (
                self.pattern.startswith("**/") and fnmatch.fnmatchcase(relative, self.pattern[3:])
            )
        return fnmatch.fnmatchcase(path.name, self.pattern)


def _parse(base: Path, text: str) -> list[_Rule]:
    rules: list[_Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.removeprefix("/")
        if line:
            rules.append(_Rule(base, line, negated, dir_only, anchored))
    return rules


class IgnoreRules(Struct, frozen=True):
    """The rules in force in one directory: its own ignore files' on top of its parents'."""

    rules: tuple[_Rule, ...] = ()

    def extended_by(self, directory: Path) -> IgnoreRules:
        added: list[_Rule] = []
        for name in IGNORE_FILE_NAMES:
            try:
                text = (directory / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            added.extend(_parse(directory, text))
        return IgnoreRules(self.rules + tuple(added)) if added else self

    def ignores(self, path: Path, *, is_dir: bool) -> bool:
        ignored = False
        for rule in self.rules:
            if rule.matches(path, is_dir):
                ignored = not rule.negated
        return ignored


__all__ = ["IGNORE_FILE_NAMES", "IgnoreRules"]
