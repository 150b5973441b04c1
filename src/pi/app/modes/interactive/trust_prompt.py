"""The project-trust question at startup (tui.md §10.8), asked before any project setting is read.

It comes only when the folder holds project resources that need trust (`.pi/settings.json`,
extensions, skills, ...), no command-line flag decides, no decision is saved for the folder or an
ancestor, and `defaultProjectTrust` is `ask`. The five answers are pi's: the persistent ones are
written to trust.json (`Trust parent folder` saves the parent); the "this session only" answers
and Esc save nothing. The answer is returned so the caller can load the settings accordingly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.trust import TrustChoice
    from pi.tui.terminal import Terminal


def _default_trust(agent_dir: Path) -> str:
    """`defaultProjectTrust` from the user's settings.json (`ask` when absent or unreadable)."""
    try:
        data = json.loads((agent_dir / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "ask"
    value = data.get("defaultProjectTrust", "ask") if isinstance(data, dict) else "ask"
    return value if value in ("always", "never", "ask") else "ask"


def trust_question_needed(cwd: Path, agent_dir: Path) -> bool:
    """Whether deciding trust for `cwd` would ask the user (see the module docstring)."""
    from pi.app.trust import TrustChoice, TrustStoreError, resolve_project_trust, trust_requiring_resources

    if not trust_requiring_resources(cwd):
        return False
    asked: list[bool] = []

    def probe(_cwd: Path, _resources: Sequence[Path]) -> TrustChoice:
        asked.append(True)
        return TrustChoice.DISTRUST_SESSION  # saves nothing

    try:
        resolve_project_trust(cwd, agent_dir, None, _default_trust(agent_dir), ask=probe)
    except TrustStoreError:
        return False  # the CLI reports the broken file and treats the project as untrusted
    return bool(asked)


UNTRUSTED_NOTICE = (
    "This project is not trusted. Project .pi resources and packages are ignored. "
    "Use /trust to save a trust decision, then restart pi."
)


def untrusted_notice(cwd: Path, agent_dir: Path, approve: bool | None) -> str | None:
    """The startup line for a project whose resources need trust but are ignored in this run, else None."""
    from pi.app.trust import TrustStoreError, resolve_project_trust, trust_requiring_resources

    if approve is True or not trust_requiring_resources(cwd):
        return None
    try:
        trusted = resolve_project_trust(cwd, agent_dir, approve, _default_trust(agent_dir)).trusted
    except TrustStoreError:
        trusted = False
    return None if trusted else UNTRUSTED_NOTICE


async def ask_project_trust(
    cwd: Path,
    agent_dir: Path,
    *,
    settings_theme: object = None,
    theme_name: str | None = None,
    tui_mode: str = "fullscreen",
    terminal: Terminal | None = None,
) -> bool | None:
    """Ask when `trust_question_needed`; returns whether the project is trusted for this run, or None
    when no question was needed (the saved decision or the default then applies as usual)."""
    if not trust_question_needed(cwd, agent_dir):
        return None
    choice = await _show_question(cwd, agent_dir, settings_theme, theme_name, tui_mode, terminal)
    from pi.app.trust import TrustChoice, save_trust_decision

    if choice is None:
        return False
    save_trust_decision(agent_dir, cwd, choice)
    return choice in (TrustChoice.TRUST, TrustChoice.TRUST_PARENT, TrustChoice.TRUST_SESSION)


async def _show_question(
    cwd: Path,
    agent_dir: Path,
    settings_theme: object,
    theme_name: str | None,
    tui_mode: str,
    terminal: Terminal | None,
) -> TrustChoice | None:
    from pi.app.modes.interactive import resolve_theme
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.own_screen_dialog import ask_on_own_screen
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog
    from pi.app.trust import trust_prompt_options, trust_prompt_title
    from pi.tui.keybindings import load_keybindings
    from pi.tui.terminal import TtyTerminal

    term = terminal if terminal is not None else TtyTerminal()
    context = InteractiveContext(agent_dir=agent_dir, cwd=cwd, theme_name=theme_name)
    theme = resolve_theme(context, settings_theme, term)
    keybindings = load_keybindings(agent_dir / "keybindings.json")
    options = trust_prompt_options(cwd)
    title, *message = trust_prompt_title(cwd).split("\n")

    def dialog(done: Callable[[TrustChoice | None], None]) -> SelectDialog:
        return SelectDialog(
            title,
            [label for _, label in options],
            theme,
            keybindings,
            message=message,
            on_select=lambda index: done(options[index][0]),
            on_cancel=lambda: done(None),
        )

    choice: TrustChoice | None = await ask_on_own_screen(term, theme, tui_mode, dialog, None)
    return choice


__all__ = ["UNTRUSTED_NOTICE", "ask_project_trust", "trust_question_needed", "untrusted_notice"]
