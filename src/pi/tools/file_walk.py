"""Walking a directory tree the way ripgrep does, for when the `rg` binary is not there.

grep and find must give the same answers with or without `rg`, so this follows ripgrep's rules:
dotfiles included, ``.git`` skipped, symlinks not followed, ``.gitignore`` honoured inside a git
repository (or everywhere when asked, as find does), ``.ignore`` and ``.rgignore`` always, the
deepest ignore file that says something wins, and within categories ``.rgignore`` beats
``.ignore`` beats ``.gitignore`` beats ``.git/info/exclude``. Entries come in ripgrep's
``--sort path`` order: depth first, names compared as bytes.

It also holds the one glob dialect every search tool speaks (``*``, ``?``, ``**``, ``[...]``,
``{a,b}``), translated to Python regular expressions.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from msgspec import Struct

# --- globs ---------------------------------------------------------------------------------------------


def _class_to_regex(glob: str, start: int) -> tuple[str, int] | None:
    """Translate ``[...]`` starting at `start`; None when it is not a closed class (then ``[`` is literal)."""
    index = start + 1
    negate = index < len(glob) and glob[index] in "!^"
    if negate:
        index += 1
    body_start = index
    if index < len(glob) and glob[index] == "]":
        index += 1
    while index < len(glob) and glob[index] != "]":
        index += 1
    if index >= len(glob):
        return None
    body = glob[body_start:index].replace("\\", "\\\\").replace("^", "\\^")
    if body.startswith("]"):
        body = "\\" + body
    return f"[{'^' if negate else ''}{body}]", index + 1


def glob_to_regex(glob: str) -> str:
    """Regex source for a path glob where ``*`` and ``?`` stay inside one path component."""
    out: list[str] = []
    index = 0
    depth = 0
    length = len(glob)
    while index < length:
        char = glob[index]
        if char == "*":
            if glob.startswith("**", index):
                before_ok = index == 0 or glob[index - 1] == "/"
                after = index + 2
                if before_ok and after == length:
                    out.append(".*")
                    index = after
                    continue
                if before_ok and glob[after] == "/":
                    out.append("(?:.*/)?")
                    index = after + 1
                    continue
                out.append("[^/]*")
                index = after
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            translated = _class_to_regex(glob, index)
            if translated is None:
                out.append("\\[")
            else:
                out.append(translated[0])
                index = translated[1]
                continue
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index + 1 < length:
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    out.extend(")" * depth)
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(glob: str, ignore_case: bool = False) -> re.Pattern[str]:
    return re.compile(f"^(?:{glob_to_regex(glob)})$", re.IGNORECASE if ignore_case else 0)


# --- ignore files --------------------------------------------------------------------------------------


class IgnoreRule(Struct, frozen=True):
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool
    anchored: bool
    """Anchored rules match the path relative to the ignore file's directory; others the name alone."""


def parse_ignore_line(line: str) -> IgnoreRule | None:
    if line.endswith("\r"):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    # Trailing spaces are dropped unless escaped.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negated = line.startswith("!")
    if negated or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    return IgnoreRule(compile_glob(line), negated, dir_only, anchored)


def parse_ignore_file(text: str) -> tuple[IgnoreRule, ...]:
    rules = (parse_ignore_line(line) for line in text.split("\n"))
    return tuple(rule for rule in rules if rule is not None)


def _read_rules(path: str) -> tuple[IgnoreRule, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse_ignore_file(handle.read())
    except OSError:
        return ()


def _rules_verdict(rules: tuple[IgnoreRule, ...], relative: str, name: str, is_dir: bool) -> bool | None:
    """True (ignored) / False (re-included by ``!``) by the last rule that matches, None if none does."""
    for rule in reversed(rules):
        if rule.dir_only and not is_dir:
            continue
        if rule.regex.match(relative if rule.anchored else name):
            return not rule.negated
    return None


_CATEGORIES = (".rgignore", ".ignore", ".gitignore")


class _DirRules(Struct, frozen=True):
    directory: str
    by_category: tuple[tuple[IgnoreRule, ...], ...]
    """Rules of .rgignore, .ignore, .gitignore (in that order), empty where the file is absent or unused."""


class IgnoreStack:
    """The ignore files in force for one directory: its own and every ancestor's."""

    def __init__(self, levels: tuple[_DirRules, ...], exclude: _DirRules | None) -> None:
        self.levels = levels
        self.exclude = exclude

    def child(self, directory: str, use_gitignore: bool) -> IgnoreStack:
        rules = tuple(
            _read_rules(os.path.join(directory, name)) if (name != ".gitignore" or use_gitignore) else ()
            for name in _CATEGORIES
        )
        if not any(rules):
            return self
        return IgnoreStack((*self.levels, _DirRules(directory, rules)), self.exclude)

    def ignored(self, path: str, is_dir: bool) -> bool:
        name = os.path.basename(path)
        for category in range(len(_CATEGORIES)):
            for level in reversed(self.levels):
                rules = level.by_category[category]
                if rules:
                    verdict = _rules_verdict(rules, _relative(path, level.directory), name, is_dir)
                    if verdict is not None:
                        return verdict
        if self.exclude is not None:
            rules = self.exclude.by_category[0]
            verdict = _rules_verdict(rules, _relative(path, self.exclude.directory), name, is_dir)
            if verdict is not None:
                return verdict
        return False


def _relative(path: str, directory: str) -> str:
    return os.path.relpath(path, directory).replace(os.sep, "/")


def find_git_root(start: str) -> str | None:
    """The nearest directory at or above `start` that holds ``.git`` (a directory, or a worktree file)."""
    current = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def root_ignore_stack(root: str, require_git: bool) -> tuple[IgnoreStack, bool]:
    """Ignore files from the ancestors of `root`, and whether .gitignore files apply below it."""
    git_root = find_git_root(root)
    use_gitignore = git_root is not None or not require_git
    ancestors: list[str] = []
    current = os.path.dirname(os.path.abspath(root))
    while True:
        ancestors.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    stack = IgnoreStack((), None)
    if git_root is not None:
        exclude_rules = _read_rules(os.path.join(git_root, ".git", "info", "exclude"))
        if exclude_rules:
            stack = IgnoreStack((), _DirRules(git_root, (exclude_rules, (), ())))
    for directory in reversed(ancestors):
        # .gitignore files above the repository do not belong to it.
        inside_repo = git_root is not None and _is_within(directory, git_root)
        stack = stack.child(directory, use_gitignore and (inside_repo or not require_git))
    return stack, use_gitignore


def _is_within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


# --- walking -------------------------------------------------------------------------------------------


class WalkAborted(Exception):
    pass


Override = Callable[[str, bool], "bool | None"]
"""Decides before the ignore files do: True includes, False excludes, None defers (ripgrep's ``--glob``)."""


class GlobOverrides:
    """ripgrep's ``--glob`` semantics: the last matching glob decides (``!`` excludes) and beats ignore files;
    when any glob is positive, a file no glob matches is left out (directories are still walked).
    """

    def __init__(self, globs: Iterable[str]) -> None:
        self.rules = [parse_ignore_line(glob) for glob in globs]
        self.has_whitelist = any(rule is not None and not rule.negated for rule in self.rules)

    def __call__(self, relative: str, is_dir: bool) -> bool | None:
        name = relative.rsplit("/", 1)[-1]
        for rule in reversed(self.rules):
            if rule is None or (rule.dir_only and not is_dir):
                continue
            if rule.regex.match(relative if rule.anchored else name):
                return rule.negated is False
        if self.has_whitelist and not is_dir:
            return False
        return None


def walk_files(
    root: str,
    *,
    require_git: bool = True,
    override: Override | None = None,
    stop: threading.Event | None = None,
) -> Iterator[str]:
    """Absolute paths of the files under `root` that ripgrep would search, in its ``--sort path`` order."""
    stack, use_gitignore = root_ignore_stack(root, require_git)
    root = os.path.abspath(root)
    yield from _walk(root, root, stack, use_gitignore, override, stop)


def _walk(
    root: str,
    directory: str,
    parent_stack: IgnoreStack,
    use_gitignore: bool,
    override: Override | None,
    stop: threading.Event | None,
) -> Iterator[str]:
    if stop is not None and stop.is_set():
        raise WalkAborted()
    stack = parent_stack.child(directory, use_gitignore)
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda entry: os.fsencode(entry.name))
    except OSError:
        return
    for entry in entries:
        if entry.name == ".git":
            continue
        try:
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        verdict = override(_relative(entry.path, root), is_dir) if override is not None else None
        if verdict is False or (verdict is None and stack.ignored(entry.path, is_dir)):
            continue
        if is_dir:
            yield from _walk(root, entry.path, stack, use_gitignore, override, stop)
        elif entry.is_file(follow_symlinks=False):
            yield entry.path


__all__ = [
    "GlobOverrides",
    "IgnoreRule",
    "IgnoreStack",
    "Override",
    "WalkAborted",
    "compile_glob",
    "find_git_root",
    "glob_to_regex",
    "parse_ignore_file",
    "parse_ignore_line",
    "root_ignore_stack",
    "walk_files",
]
