"""Completion for the editor: slash commands, command arguments, ``@`` files and Tab paths.

The provider looks at the current line up to the cursor and answers with ``Suggestions``: the
items and the span of text that accepting one replaces. It knows nothing about the application:
the command list, argument completions and the project's file list (gitignore-respecting) are
given to it as data and callables.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from msgspec import Struct

from pi.tui.autocomplete_paths import complete_path, token_before_cursor
from pi.tui.fuzzy import fuzzy_filter, fuzzy_match
from pi.tui.select_list import SelectItem

FILE_RESULT_LIMIT = 100
_AT_PREFIX_CHARS = " \t([{<`"
_SLASH_RE = re.compile(r"^\s*/(\S*)$")
_ARGS_RE = re.compile(r"^\s*/(\S+) (.*)$", re.DOTALL)


class SlashCommand(Struct, frozen=True):
    """A command shown in the ``/`` menu. ``source`` is a tag such as ``u``, ``p:git:host/x@v``."""

    name: str
    description: str = ""
    argument_hint: str = ""
    source: str = ""


class Completion(SelectItem, frozen=True):
    """A list row plus what accepting it inserts (``insert``) and whether the list stays open."""

    insert: str = ""
    keep_open: bool = False


class Suggestions(Struct):
    """Items for the text in ``[start, end)`` of the current line; ``kind`` names the provider."""

    items: list[Completion]
    start: int
    end: int
    kind: str
    layout: tuple[int, int] = (32, 32)


ArgumentCompleter = Callable[[str, str], Sequence[Completion] | None]
FileLister = Callable[[str], Sequence[str]]


def _command_item(cmd: SlashCommand) -> Completion:
    description = cmd.description
    if cmd.argument_hint:
        description = f"{cmd.argument_hint} — {description}" if description else cmd.argument_hint
    if cmd.source:
        description = f"[{cmd.source}] {description}".rstrip()
    return Completion(value=cmd.name, label=cmd.name, description=description, insert=f"/{cmd.name} ")


class AutocompleteProvider:
    """Slash commands, argument completion, ``@`` file search and path completion."""

    def __init__(
        self,
        commands: Sequence[SlashCommand] | Callable[[], Sequence[SlashCommand]] = (),
        *,
        cwd: str | None = None,
        argument_completer: ArgumentCompleter | None = None,
        list_files: FileLister | None = None,
        home: str | None = None,
        trigger_chars: str = "@",
    ) -> None:
        self._commands = commands
        self.cwd = cwd or os.getcwd()
        self.argument_completer = argument_completer
        self.list_files = list_files
        self.home = home or os.path.expanduser("~")
        self.trigger_chars = trigger_chars
        self._file_cache: list[str] | None = None

    @property
    def commands(self) -> list[SlashCommand]:
        cmds = self._commands() if callable(self._commands) else self._commands
        return list(cmds)

    def reset(self) -> None:
        """Forget the cached project file list (called when the list closes)."""
        self._file_cache = None

    # -- automatic suggestions (while typing) -------------------------------------------------
    def suggest(self, line: str, cursor: int, *, first_line: bool = True) -> Suggestions | None:
        """Suggestions for the text before ``cursor`` on the current line, or None."""
        before = line[:cursor]
        if first_line:
            slash = _SLASH_RE.match(before)
            if slash:
                return self._slash(slash.group(1), cursor)
            args = _ARGS_RE.match(before)
            if args:
                found = self._arguments(args.group(1), args.group(2), cursor)
                if found is not None:
                    return found
        return self._at_files(before, cursor)

    def is_command_name(self, line: str, cursor: int, first_line: bool = True) -> bool:
        return first_line and _SLASH_RE.match(line[:cursor]) is not None

    def _slash(self, query: str, cursor: int) -> Suggestions | None:
        items = [_command_item(c) for c in self.commands]
        matched = fuzzy_filter(items, query, key=lambda item: item.value)
        if not matched:
            return None
        start = cursor - len(query) - 1
        return Suggestions(list(matched), start, cursor, "command", layout=(12, 32))

    def _arguments(self, name: str, text: str, cursor: int) -> Suggestions | None:
        """The app's completions for the argument text after ``/name ``; they replace all of it."""
        if self.argument_completer is None:
            return None
        items = self.argument_completer(name, text)
        if not items:
            return None
        return Suggestions(list(items), cursor - len(text), cursor, "argument")

    def _at_files(self, before: str, cursor: int) -> Suggestions | None:
        at = _at_token(before, self.trigger_chars)
        if at is None or self.list_files is None:
            return None
        start, query, _quoted = at
        if self._file_cache is None:
            self._file_cache = list(self.list_files(self.cwd))
        items = _file_items(self._file_cache, query)
        if not items:
            return None
        return Suggestions(items, start, cursor, "file")

    # -- Tab --------------------------------------------------------------------------------
    def complete_path(self, line: str, cursor: int) -> Suggestions | None:
        """Path completion of the token before the cursor (``./``, ``../``, ``~/``, absolute, quoted)."""
        token = token_before_cursor(line, cursor)
        if token is None:
            return None
        start, raw = token
        items = complete_path(raw, self.cwd, self.home)
        if not items:
            return None
        return Suggestions(items, start, cursor, "path")


def _at_token(before: str, triggers: str) -> tuple[int, str, bool] | None:
    """(offset of the ``@``, query, quoted) when the cursor is in an ``@`` token."""
    quoted = re.search(r'(?:^|[ \t(\[{<`])([@])"([^"]*)$', before)
    if quoted and quoted.group(1) in triggers:
        return quoted.start(1), quoted.group(2), True
    match = re.search(r"(?:^|[ \t(\[{<`])([@])(\S*)$", before)
    if match and match.group(1) in triggers:
        return match.start(1), match.group(2), False
    return None


def _quote(path: str) -> str:
    return f'@"{path}"' if " " in path else f"@{path}"


def _file_items(paths: Sequence[str], query: str) -> list[Completion]:
    """Directories first (with ``/``), then files; label = base name, description = path."""
    dirs: dict[str, None] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for n in range(1, len(parts) + 1):
            dirs.setdefault("/".join(parts[:n]))
    entries = [(d + "/", True) for d in dirs] + [(p, False) for p in paths]
    scored: list[tuple[int, float, int, Completion]] = []
    for index, (path, is_dir) in enumerate(entries):
        bare = path.rstrip("/")
        base = bare.rsplit("/", 1)[-1]
        if query:
            match = fuzzy_match(query, bare)
            if match is None:
                continue
            base_match = fuzzy_match(query, base)
            score = match.score + (base_match.score if base_match else 0.0)
        else:
            score = 0.0
        label = base + ("/" if is_dir else "")
        insert = _quote(path) if is_dir else _quote(path) + " "
        item = Completion(value=path, label=label, description=bare, insert=insert, keep_open=is_dir)
        scored.append((0 if is_dir else 1, -score, index, item))
    scored.sort(key=lambda entry: (entry[1], entry[0], entry[2]) if query else (entry[0], entry[2]))
    return [entry[3] for entry in scored[:FILE_RESULT_LIMIT]]
