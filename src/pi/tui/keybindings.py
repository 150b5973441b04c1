"""Keybindings: action ids (``tui.editor.cursorUp``, ``app.tools.expand``) to the keys that trigger them.

Defaults come from the table below; `<agent-dir>/keybindings.json` overrides any action with a key
or a list of keys (``[]`` unbinds). Older files used flat names (``cursorUp``, ``expandTools``);
those are migrated on load. A bad entry is dropped on its own, with a warning, so one typo does not
lose the rest of the file.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from pi.tui.keys import key_ids, normalize_key_id

__all__ = [
    "DEFAULT_KEYBINDINGS",
    "LEGACY_ACTION_NAMES",
    "KeybindingsManager",
    "default_keybindings",
    "format_key",
    "load_keybindings",
    "parse_keybindings",
]

logger = logging.getLogger(__name__)

_E, _I, _S, _A = "tui.editor.", "tui.input.", "tui.select.", "tui.altScreen."

DEFAULT_KEYBINDINGS: dict[str, list[str]] = {
    _E + "cursorUp": ["up"],
    _E + "cursorDown": ["down"],
    _E + "cursorLeft": ["left", "ctrl+b"],
    _E + "cursorRight": ["right", "ctrl+f"],
    _E + "cursorWordLeft": ["alt+left", "ctrl+left", "alt+b"],
    _E + "cursorWordRight": ["alt+right", "ctrl+right", "alt+f"],
    _E + "cursorLineStart": ["home", "ctrl+a"],
    _E + "cursorLineEnd": ["end", "ctrl+e"],
    _E + "jumpForward": ["ctrl+]"],
    _E + "jumpBackward": ["ctrl+alt+]"],
    _E + "pageUp": ["pageUp", "ctrl+pageUp"],
    _E + "pageDown": ["pageDown", "ctrl+pageDown"],
    _E + "historyPrevious": [],
    _E + "historyNext": [],
    _E + "deleteCharBackward": ["backspace"],
    _E + "deleteCharForward": ["delete", "ctrl+d"],
    _E + "deleteWordBackward": ["ctrl+w", "alt+backspace"],
    _E + "deleteWordForward": ["alt+d", "alt+delete"],
    _E + "deleteToLineStart": ["ctrl+u"],
    _E + "deleteToLineEnd": ["ctrl+k"],
    _E + "yank": ["ctrl+y"],
    _E + "yankPop": ["alt+y"],
    _E + "undo": ["ctrl+-"],
    _I + "newLine": ["shift+enter", "ctrl+j"],
    _I + "submit": ["enter"],
    _I + "tab": ["tab"],
    _I + "copy": ["ctrl+c"],
    _S + "up": ["up"],
    _S + "down": ["down"],
    _S + "pageUp": ["pageUp"],
    _S + "pageDown": ["pageDown"],
    _S + "confirm": ["enter"],
    _S + "cancel": ["escape", "ctrl+c"],
    _A + "pageUp": ["pageUp"],
    _A + "pageDown": ["pageDown"],
    _A + "halfPageUp": [],
    _A + "halfPageDown": [],
    _A + "lineUp": [],
    _A + "lineDown": [],
    _A + "previousPrompt": ["ctrl+shift+up", "ctrl+up"],
    _A + "nextPrompt": ["ctrl+shift+down", "ctrl+down"],
    _A + "search": ["ctrl+shift+f"],
    _A + "searchNext": ["enter", "ctrl+g"],
    _A + "searchPrevious": ["shift+enter", "ctrl+shift+g"],
    _A + "searchClose": ["escape"],
    _A + "top": ["ctrl+home"],
    _A + "bottom": ["ctrl+end"],
    "app.interrupt": ["escape"],
    "app.clear": ["ctrl+c"],
    "app.exit": ["ctrl+d"],
    "app.suspend": ["ctrl+z"],
    "app.thinking.cycle": ["shift+tab"],
    "app.thinking.save": ["ctrl+s"],
    "app.thinking.toggle": ["ctrl+t"],
    "app.model.cycleForward": ["ctrl+p"],
    "app.model.cycleBackward": ["shift+ctrl+p"],
    "app.model.select": ["ctrl+l"],
    "app.models.save": ["ctrl+s"],
    "app.tools.expand": ["ctrl+o"],
    "app.editor.external": ["ctrl+g"],
    "app.message.copy": ["ctrl+x"],
    "app.message.followUp": ["alt+enter"],
    "app.message.dequeue": ["alt+up"],
    "app.clipboard.pasteImage": ["ctrl+v"],
    "app.session.new": [],
    "app.session.tree": [],
    "app.session.fork": [],
    "app.session.resume": [],
    "app.session.togglePath": ["ctrl+p"],
    "app.session.toggleSort": ["ctrl+s"],
    "app.session.toggleNamedFilter": ["ctrl+n"],
    "app.session.rename": ["ctrl+r"],
    "app.session.delete": ["ctrl+d"],
    "app.session.deleteNoninvasive": ["ctrl+backspace"],
    "app.tree.foldOrUp": ["ctrl+left", "alt+left"],
    "app.tree.unfoldOrDown": ["ctrl+right", "alt+right"],
    "app.tree.editLabel": ["shift+l"],
    "app.tree.toggleLabelTimestamp": ["shift+t"],
    "app.tree.filter.default": ["ctrl+d"],
    "app.tree.filter.noTools": ["ctrl+t"],
    "app.tree.filter.userOnly": ["ctrl+u"],
    "app.tree.filter.labeledOnly": ["ctrl+l"],
    "app.tree.filter.all": ["ctrl+a"],
    "app.tree.filter.cycleForward": ["ctrl+o"],
    "app.tree.filter.cycleBackward": ["shift+ctrl+o"],
    "app.models.enableAll": ["ctrl+a"],
    "app.models.clearAll": ["ctrl+x"],
    "app.models.toggleProvider": ["ctrl+p"],
    "app.models.reorderUp": ["alt+up"],
    "app.models.reorderDown": ["alt+down"],
}

_WINDOWS = {
    _E + "undo": ["ctrl+z"],
    _A + "previousPrompt": ["ctrl+up"],
    _A + "nextPrompt": ["ctrl+down"],
    _A + "search": ["ctrl+f"],
    "app.suspend": [],
    "app.model.cycleBackward": ["alt+p"],
    "app.message.followUp": ["ctrl+q"],
    "app.message.dequeue": ["alt+q"],
    "app.clipboard.pasteImage": ["alt+v", "ctrl+v"],
}
_WSL = {k: v for k, v in _WINDOWS.items() if k != "app.suspend"} | {_E + "undo": ["alt+z"]}
_MACOS = {
    "app.tree.foldOrUp": ["alt+left", "ctrl+left"],
    "app.tree.unfoldOrDown": ["alt+right", "ctrl+right"],
}

#: Flat action names of older keybindings.json files and their namespaced ids.
LEGACY_ACTION_NAMES: dict[str, str] = {
    **{name: _E + name for name in [k.removeprefix(_E) for k in DEFAULT_KEYBINDINGS if k.startswith(_E)]},
    "yank": _E + "yank",
    "yankPop": _E + "yankPop",
    "undo": _E + "undo",
    "newLine": _I + "newLine",
    "submit": _I + "submit",
    "tab": _I + "tab",
    "copy": _I + "copy",
    "selectUp": _S + "up",
    "selectDown": _S + "down",
    "selectPageUp": _S + "pageUp",
    "selectPageDown": _S + "pageDown",
    "selectConfirm": _S + "confirm",
    "selectCancel": _S + "cancel",
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "suspend": "app.suspend",
    "cycleThinkingLevel": "app.thinking.cycle",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "selectModel": "app.model.select",
    "expandTools": "app.tools.expand",
    "toggleThinking": "app.thinking.toggle",
    "externalEditor": "app.editor.external",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "pasteImage": "app.clipboard.pasteImage",
    "newSession": "app.session.new",
    "tree": "app.session.tree",
    "fork": "app.session.fork",
    "resume": "app.session.resume",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}


def default_keybindings(platform: str | None = None, environ: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """The defaults for a platform (`sys.platform` values); Windows and WSL get their alternatives."""
    plat = sys.platform if platform is None else platform
    env = os.environ if environ is None else environ
    bindings = {k: list(v) for k, v in DEFAULT_KEYBINDINGS.items()}
    if plat == "win32":
        bindings.update({k: list(v) for k, v in _WINDOWS.items()})
    elif "WSL_DISTRO_NAME" in env or "WSL_INTEROP" in env:
        bindings.update({k: list(v) for k, v in _WSL.items()})
    elif plat == "darwin":
        bindings.update({k: list(v) for k, v in _MACOS.items()})
    return bindings


class KeybindingsManager:
    """Answers "is this key sequence that action?" for the defaults merged with user overrides."""

    def __init__(
        self,
        defaults: Mapping[str, list[str]] | None = None,
        user_overrides: Mapping[str, list[str]] | None = None,
        *,
        macos: bool | None = None,
    ) -> None:
        self.bindings: dict[str, list[str]] = {k: list(v) for k, v in (defaults or default_keybindings()).items()}
        for action, keys in (user_overrides or {}).items():
            self.bindings[action] = list(keys)
        self.macos = sys.platform == "darwin" if macos is None else macos
        self._normalized: dict[str, frozenset[str]] = {}
        for action, keys in self.bindings.items():
            self._normalized[action] = frozenset(n for n in (normalize_key_id(k) for k in keys) if n)

    def keys(self, action_id: str) -> list[str]:
        """The keys bound to an action (as written), empty when unbound or unknown."""
        return list(self.bindings.get(action_id, []))

    def matches(self, data: str, action_id: str) -> bool:
        """Whether the key sequence `data` triggers `action_id`."""
        wanted = self._normalized.get(action_id)
        if not wanted:
            return False
        return not wanted.isdisjoint(key_ids(data))

    def action_for(self, data: str, candidates: list[str]) -> str | None:
        """The first of `candidates` that `data` triggers."""
        ids = key_ids(data)
        for action in candidates:
            wanted = self._normalized.get(action)
            if wanted and not wanted.isdisjoint(ids):
                return action
        return None

    def key_hint(self, action_id: str) -> str:
        """Keys for a hint, lower case and joined by "/" (``ctrl+c/ctrl+d``)."""
        return "/".join(format_key(k, capitalize=False, macos=self.macos) for k in self.bindings.get(action_id, []))

    def key_label(self, action_id: str) -> str:
        """Keys for tables and selectors, capitalised (``Shift+Ctrl+P``, ``Escape/Ctrl+C``)."""
        return "/".join(format_key(k, capitalize=True, macos=self.macos) for k in self.bindings.get(action_id, []))


def format_key(key: str, *, capitalize: bool, macos: bool = False) -> str:
    """A key id for display; macOS names `alt` `option`."""
    parts = key.split("+") if key != "+" and not key.endswith("++") else [*key[:-2].split("+"), "+"]
    out = []
    for part in parts:
        if macos and part.lower() == "alt":
            part = "option"
        out.append(part[:1].upper() + part[1:] if capitalize else part.lower() if len(part) > 1 else part)
    return "+".join(p for p in out if p)


def _migrate(data: Mapping[str, object]) -> dict[str, object]:
    """Flat names to namespaced ids; a namespaced entry wins over its flat twin."""
    migrated: dict[str, object] = {}
    for key, value in data.items():
        if key == "$schema":
            continue
        target = LEGACY_ACTION_NAMES.get(key, key)
        if target != key and target in data:
            continue
        migrated[target] = value
    return migrated


def parse_keybindings(data: object, source: str = "keybindings.json") -> dict[str, list[str]]:
    """Valid overrides of a parsed file; each invalid entry is dropped with a warning."""
    if not isinstance(data, dict):
        logger.warning("%s: expected a JSON object of action ids to keys; ignoring the file", source)
        return {}
    overrides: dict[str, list[str]] = {}
    for action, value in _migrate(data).items():
        if action not in DEFAULT_KEYBINDINGS:
            logger.warning("%s: unknown action %r ignored", source, action)
            continue
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            logger.warning("%s: %s must be a key or a list of keys; entry ignored", source, action)
            continue
        valid = [k for k in keys if normalize_key_id(k) is not None]
        if len(valid) != len(keys):
            bad = [k for k in keys if normalize_key_id(k) is None]
            logger.warning("%s: %s: invalid key(s) %s; entry ignored", source, action, ", ".join(map(repr, bad)))
            continue
        overrides[action] = valid
    return overrides


def load_keybindings(
    path: Path | None, platform: str | None = None, environ: Mapping[str, str] | None = None
) -> KeybindingsManager:
    """The defaults merged with `path` (missing or unreadable files count as empty)."""
    overrides: dict[str, list[str]] = {}
    if path is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = {}
        except (OSError, ValueError) as exc:
            logger.warning("%s: cannot read keybindings (%s); using the defaults", path, exc)
            data = {}
        overrides = parse_keybindings(data, str(path))
    plat = sys.platform if platform is None else platform
    return KeybindingsManager(default_keybindings(plat, environ), overrides, macos=plat == "darwin")
