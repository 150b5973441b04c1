"""`pi config`: a terminal panel that switches resources and built-in extensions on and off.

The rows come from `ConfigModel` (built-ins, the scope's own resources, what each package declares);
Enter or Space flips a row and the switch is saved at once. Tab moves between the user and the
project scope (project only when trusted). Esc closes the panel.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pi.app.packages.config_items import TYPE_TITLES, UNTRUSTED_CONFIG, ConfigItem, ConfigModel
from pi.app.packages.filters import Scope
from pi.tui.keys import matches_key
from pi.tui.settings_list import SettingItem, SettingsList

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.terminal import Terminal
    from pi.tui.theme import Theme

ENABLED, DISABLED = "enabled", "disabled"
_SCOPE_TITLES = {"user": "User (~/.pi/agent)", "project": "Project (.pi)"}


def _label(item: ConfigItem) -> str:
    if item.path.startswith("builtin:"):
        return item.path
    group = item.group if item.identity is None else Path(item.group).name or item.group
    return f"{group}: {item.path}"


class ConfigPanel:
    """The focusable panel (title, scope tabs, the settings list of the current scope)."""

    def __init__(
        self,
        model: ConfigModel,
        theme: Theme,
        *,
        scope: Scope = "user",
        keybindings: KeybindingsManager | None = None,
        on_close: Callable[[], None] | None = None,
        max_visible: int = 12,
    ) -> None:
        self.model = model
        self.theme = theme
        self.keybindings = keybindings
        self.on_close = on_close
        self.max_visible = max_visible
        self.focused = True
        self.errors: list[str] = []
        self.scope: Scope = scope if scope in model.scopes() else "user"
        self._load()

    def _load(self) -> None:
        self.rows = {item.key: item for item in self.model.items(self.scope)}
        settings = [
            SettingItem(
                key,
                _label(item),
                ENABLED if item.enabled else DISABLED,
                f"{TYPE_TITLES[item.kind]} · {item.group}" + (f" · {item.location}" if item.location else ""),
                values=[ENABLED, DISABLED],
            )
            for key, item in self.rows.items()
        ]
        self.list = SettingsList(
            settings,
            self.theme,
            max_visible=self.max_visible,
            keybindings=self.keybindings,
            on_change=self._changed,
            on_cancel=self._close,
            space_always_changes=True,  # as in pi's resource panel: Space toggles, also inside a search
        )

    def _changed(self, key: str, value: str) -> None:
        item = self.rows[key]
        try:
            self.model.set_enabled(self.scope, item, value == ENABLED)
        except (OSError, PermissionError) as error:
            self.errors.append(str(error))
            self.list.update_value(key, ENABLED if item.enabled else DISABLED)

    def _close(self) -> None:
        if self.on_close is not None:
            self.on_close()

    def invalidate(self) -> None:
        self.list.invalidate()

    def handle_input(self, data: str) -> bool:
        if matches_key(data, "tab") or matches_key(data, "shift+tab"):
            scopes = self.model.scopes()
            self.scope = scopes[(scopes.index(self.scope) + 1) % len(scopes)]
            self._load()
            return True
        return self.list.handle_input(data)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        tabs = [
            theme.fg("accent", f"[{_SCOPE_TITLES[s]}]") if s == self.scope else theme.fg("muted", _SCOPE_TITLES[s])
            for s in self.model.scopes()
        ]
        lines = [theme.bold("Resource configuration"), "  ".join(tabs) + theme.fg("dim", "  (Tab switches scope)"), ""]
        if not self.rows:
            lines.append(theme.fg("muted", "  Nothing to configure"))
        lines.extend(self.list.render(width))
        lines.extend(theme.fg("error", line) for line in self.errors[-1:])
        return lines


async def run_config_ui(
    agent_dir: Path,
    cwd: Path,
    *,
    local: bool,
    project_trusted: bool,
    terminal: Terminal | None = None,
    settings_theme: object = None,
) -> int:
    """Show the panel until it is closed; returns the exit code."""
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.tui.component import Container
    from pi.tui.keybindings import load_keybindings
    from pi.tui.terminal import TtyTerminal
    from pi.tui.tui import TUI

    term = terminal if terminal is not None else TtyTerminal()
    theme = resolve_theme(InteractiveContext(agent_dir=agent_dir, cwd=cwd), settings_theme, term)
    closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def close() -> None:
        if not closed.done():
            closed.set_result(None)

    model = ConfigModel(agent_dir, cwd, project_trusted=project_trusted)
    keybindings = load_keybindings(agent_dir / "keybindings.json")
    panel = ConfigPanel(model, theme, scope="project" if local else "user", keybindings=keybindings, on_close=close)
    tui = TUI(term, Container(), Container([panel]), mode="regular", theme=theme)
    term.on_terminate = lambda _signum: close()
    tui.start()
    tui.set_focus(panel)
    try:
        await closed
    finally:
        tui.stop()
        term.restore()
    return 0


def run_config_command(
    argv: list[str], *, agent_dir: Path, cwd: Path, project_trusted: bool, err: TextIO, terminal: Terminal | None = None
) -> int:
    """`pi config [-l] [-a|-na]`: check the arguments and trust, then show the panel."""
    local, trusted = False, project_trusted
    for arg in argv:
        if arg in ("-l", "--local"):
            local = True
        elif arg in ("-a", "--approve"):
            trusted = True
        elif arg in ("-na", "--no-approve"):
            trusted = False
        else:
            err.write(f'Unknown option {arg} for "config".\nUsage: pi config [-l]\n')
            return 1
    if local and not trusted:
        err.write(f"Error: {UNTRUSTED_CONFIG}\n")
        return 1
    if terminal is None and not (sys.stdin.isatty() and sys.stdout.isatty()):
        err.write("Error: pi config needs an interactive terminal\n")
        return 1
    from pi.app.packages.settings_file import SettingsFileError, read_settings

    try:
        theme = read_settings(agent_dir / "settings.json").get("theme")
    except SettingsFileError as error:
        err.write(f"Error: {error}\n")
        return 1
    coroutine = run_config_ui(
        agent_dir, cwd, local=local, project_trusted=trusted, terminal=terminal, settings_theme=theme
    )
    return asyncio.run(coroutine)


__all__ = ["ConfigPanel", "run_config_command", "run_config_ui"]
