"""The startup header (logo, key hints) and the loaded-resources lists under it.

Compact form: the logo with the version, one line of the main key hints and a pointer to the
expanded form. Expanded (the tool-expansion key toggles it, with the tool cards): one hint per line.
The hints follow the current keybindings. The resource lists show `[Context]`, `[Skills]` and
`[Prompts]`: collapsed as one dim line each, expanded with full paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi.tui.keybindings import format_key
from pi.tui.text_width import truncate_to_width, wrap_text_with_ansi

if TYPE_CHECKING:
    from pi.app.resources import Resources
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

CORAL = "\x1b[38;2;228;138;122m"
BLUE_FG = "\x1b[38;2;79;142;179m"
BLUE_BG = "\x1b[48;2;79;142;179m"
YELLOW = "\x1b[38;2;234;182;93m"
FG_OFF = "\x1b[39m"
BG_OFF = "\x1b[49m"
DOCS_LINE = "Pi can explain its own features and look up its docs. Ask it how to use or extend Pi."


def _key(keybindings: KeybindingsManager, action: str) -> str:
    keys = keybindings.keys(action)
    return format_key(keys[0], capitalize=False, macos=keybindings.macos) if keys else ""


def _keys(keybindings: KeybindingsManager, action: str) -> str:
    return keybindings.key_hint(action)


def expanded_hints(kb: KeybindingsManager) -> list[str]:
    """The one-hint-per-line list of the expanded header."""
    k = _key
    return [
        f"{k(kb, 'app.interrupt')} to interrupt",
        f"{k(kb, 'app.clear')} to clear",
        f"{k(kb, 'app.clear')} twice to exit",
        f"{k(kb, 'app.exit')} to exit (empty)",
        f"{k(kb, 'app.suspend')} to suspend",
        f"{k(kb, 'tui.editor.deleteToLineEnd')} to delete to end",
        f"{k(kb, 'app.thinking.cycle')} to cycle thinking level",
        f"{k(kb, 'app.model.cycleForward')}/{k(kb, 'app.model.cycleBackward')} to cycle models",
        f"{k(kb, 'app.model.select')} to select model",
        f"{k(kb, 'app.tools.expand')} to expand tools",
        f"{k(kb, 'app.thinking.toggle')} to expand thinking",
        f"{k(kb, 'app.editor.external')} for external editor",
        "/ for commands",
        "! to run bash",
        "!! to run bash (no context)",
        f"{k(kb, 'app.message.followUp')} to queue follow-up",
        f"{k(kb, 'app.message.dequeue')} to edit all queued messages",
        f"{_keys(kb, 'app.clipboard.pasteImage')} to paste files on macOS, images, or text",
        "drop files to attach",
    ]


class Header:
    """Blank line, the logo with the version and hints (padding 1), blank line, the docs line."""

    def __init__(self, theme: Theme, keybindings: KeybindingsManager, version: str, *, details: bool = True) -> None:
        self.theme = theme
        self.keybindings = keybindings
        self.version = version
        self.details = details
        self.expanded = False
        self.scope_line: str | None = None
        """`Model scope: a, b (Ctrl+P to cycle)`, shown under the header in fullscreen."""
        self._cache: tuple[tuple[object, ...], list[str]] | None = None

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def invalidate(self) -> None:
        self._cache = None

    def _compact_hint(self) -> str:
        kb = self.keybindings
        return " · ".join(
            [
                f"{_key(kb, 'app.interrupt')} interrupt",
                f"{_key(kb, 'app.clear')}/{_key(kb, 'app.exit')} clear/exit",
                "/ commands",
                "! bash",
                f"{_key(kb, 'app.tools.expand')} more",
            ]
        )

    def render(self, width: int) -> list[str]:
        key = (width, self.expanded, self.details, self.scope_line)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        lines = self._render(width)
        self._cache = (key, lines)
        return lines

    def _render(self, width: int) -> list[str]:
        t = self.theme
        logo_top = f"{CORAL}{BLUE_BG}▀{BG_OFF}▀█{FG_OFF}"
        logo_bottom = f"{BLUE_FG}█▀{FG_OFF} {YELLOW}█{FG_OFF}"
        body = [f"{logo_top}  {t.dim('v' + self.version)}"]
        if self.expanded:
            hints = expanded_hints(self.keybindings)
            body.append(f"{logo_bottom} {t.dim(hints[0])}")
            body.extend(t.dim(h) for h in hints[1:])
        else:
            body.append(f"{logo_bottom} {t.dim(self._compact_hint())}")
            tail = "help and loaded resources." if self.details else "help."
            body.append(t.dim(f"Press {_key(self.keybindings, 'app.tools.expand')} to show full startup {tail}"))
        body.append("")
        body.append(t.dim(DOCS_LINE))
        if self.scope_line:
            body.append(t.dim(self.scope_line))
        out = [""]
        for line in body:
            for wrapped in wrap_text_with_ansi(line, max(1, width - 2)) if line else [""]:
                out.append(truncate_to_width(" " + wrapped, width) if wrapped else "")
        out.append("")
        return out


def _display_path(path: Path, home: str) -> str:
    text = str(path)
    return "~" + text[len(home) :] if home and text.startswith(home + "/") else text


class ResourcesView:
    """`[Context]`, `[Skills]`, `[Prompts]` and the diagnostics, collapsed or expanded."""

    def __init__(self, resources: Resources, theme: Theme, cwd: Path, home: str, *, show_lists: bool = True) -> None:
        self.resources = resources
        self.theme = theme
        self.cwd = cwd
        self.home = home
        self.show_lists = show_lists
        self.expanded = False
        self._cache: tuple[tuple[object, ...], list[str]] | None = None
        self.extensions: list[str] = []
        """Paths of the loaded extensions for `[Extensions]` (built-ins are not listed); call `invalidate` after."""

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded

    def invalidate(self) -> None:
        self._cache = None

    def _relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return _display_path(path, self.home)

    def _groups(self) -> list[tuple[str, list[str], list[str]]]:
        """(title, collapsed names, expanded paths) for each non-empty list."""
        res = self.resources
        groups: list[tuple[str, list[str], list[str]]] = []
        if res.context_files:
            files = [f.path for f in res.context_files]
            groups.append(("[Context]", [self._relative(p) for p in files], [str(p) for p in files]))
        if res.skills:
            skills = sorted(res.skills, key=lambda s: s.name)
            groups.append(("[Skills]", [s.name for s in skills], [_display_path(s.path, self.home) for s in skills]))
        if res.templates:
            templates = sorted(res.templates, key=lambda p: p.name)
            groups.append(
                ("[Prompts]", [f"/{p.name}" for p in templates], [_display_path(p.path, self.home) for p in templates])
            )
        if self.extensions:
            paths = [Path(p) if not p.startswith("<") else None for p in self.extensions]
            names = [self._relative(p) if p is not None else raw for p, raw in zip(paths, self.extensions, strict=True)]
            shown = [
                _display_path(p, self.home) if p is not None else raw
                for p, raw in zip(paths, self.extensions, strict=True)
            ]
            groups.append(("[Extensions]", names, shown))
        return groups

    def render(self, width: int) -> list[str]:
        key = (width, self.expanded, self.show_lists)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        t = self.theme
        lines: list[str] = []
        if self.show_lists:
            for title, names, paths in self._groups():
                if lines:
                    lines.append("")
                lines.append(t.fg("mdHeading", title))
                items = paths if self.expanded else [", ".join(names)]
                for item in items:
                    lines.extend(t.dim(w) for w in wrap_text_with_ansi("  " + item, width))
        for label, problems in self.resources.diagnostic_groups():
            lines.append("")
            lines.append(t.fg("warning", label))
            for problem in problems:
                lines.extend(t.fg("warning", w) for w in wrap_text_with_ansi("  " + problem, width))
        if lines:
            lines.append("")
        lines = [truncate_to_width(line, width) for line in lines]
        self._cache = (key, lines)
        return lines


__all__ = ["DOCS_LINE", "Header", "ResourcesView", "expanded_hints"]
