"""/copy, /hotkeys, /changelog, /debug, /reload, /settings and /quit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.commands.blocks import BorderedPanel, TextBlock, WaitBox
from pi.app.modes.interactive.commands.hotkeys import hotkeys_markdown
from pi.app.modes.interactive.pickers.settings_panel import SettingsPanel

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

RELOADING = "Reloading keybindings, extensions, skills, prompts, themes, and context files..."
RELOADED = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"
RELOAD_WHILE_STREAMING = "Wait for the current response to finish before reloading."
RELOAD_WHILE_COMPACTING = "Wait for compaction to finish before reloading."
DEBUG_LOG = "pi-debug.log"


async def cmd_copy(api: InteractiveApi, args: str) -> None:
    text = api.session.last_assistant_text()
    if not text:
        api.show_error("No agent messages to copy yet.")
        return
    try:
        api.copy_to_clipboard(text)
    except OSError as exc:
        api.show_error(f"Could not copy to the clipboard: {exc}")
        return
    api.show_status("Copied last agent message to clipboard")


async def cmd_hotkeys(api: InteractiveApi, args: str) -> None:
    from pi.app.modes.interactive.extension_ui_binding import extension_shortcut_rows
    from pi.tui.markdown import Markdown

    rows = extension_shortcut_rows(api.session, api.keybindings)
    table = Markdown(hotkeys_markdown(api.keybindings, rows), api.theme, padding_x=1, padding_y=1)
    api.show_notice(BorderedPanel(api.theme, "Keyboard Shortcuts", table))


def bundled_changelog() -> str | None:
    """The CHANGELOG.md shipped inside the package, when this build has one."""
    from importlib import resources

    try:
        file = resources.files("pi.manual").joinpath("CHANGELOG.md")
        return file.read_text(encoding="utf-8") if file.is_file() else None
    except (ModuleNotFoundError, OSError):
        return None


async def cmd_changelog(api: InteractiveApi, args: str) -> None:
    from pi.tui.markdown import Markdown
    from pi.version import __version__

    text = bundled_changelog()
    if text is None:
        api.show_status(f"No changelog is bundled with pi v{__version__}; see the project's release notes instead.")
        return
    api.show_notice(BorderedPanel(api.theme, "What's New", Markdown(text, api.theme, padding_x=1, padding_y=1)))


def debug_report(api: InteractiveApi) -> str:
    """Terminal size, every rendered line with its width, then the messages as JSONL."""
    from pi.agent.messages import to_jsonable
    from pi.tui.text_width import visible_width

    snapshot = api.screen_snapshot()
    out = [f"Terminal: {snapshot.width}x{snapshot.height}", f"Rendered lines: {len(snapshot.lines)}", ""]
    for index, line in enumerate(snapshot.lines):
        out.append(f"[{index}] (w={visible_width(line)}) {line}")
    out.extend(["", "Messages (JSONL):"])
    for message in api.session.messages:
        data: Any = to_jsonable(message.to_json_dict() if hasattr(message, "to_json_dict") else message)
        out.append(json.dumps(data, ensure_ascii=False))
    return "\n".join(out) + "\n"


async def cmd_debug(api: InteractiveApi, args: str) -> None:
    from pi.app.atomic_file import write_atomic

    path = api.agent_dir / DEBUG_LOG
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, debug_report(api))
    except OSError as exc:
        api.show_error(f"Could not write {path}: {exc}")
        return
    api.show_notice(TextBlock([api.theme.fg("accent", "✓ Debug log written"), api.theme.fg("muted", str(path))]))


async def cmd_reload(api: InteractiveApi, args: str) -> None:
    session = api.session
    if session.is_compacting:
        api.show_warning(RELOAD_WHILE_COMPACTING)
        return
    if session.is_streaming:
        api.show_warning(RELOAD_WHILE_STREAMING)
        return
    # The box stands in for the editor only while the reload runs (pi dismisses it either way).
    api.show_selector(WaitBox(api.theme, RELOADING))
    try:
        await api.reload_resources()
    except Exception as exc:
        api.show_error(f"Reload failed: {exc}")
        return
    finally:
        api.close_selector()
    api.show_status(RELOADED)


async def cmd_quit(api: InteractiveApi, args: str) -> None:
    api.quit()


def _levels_for(api: InteractiveApi, ref: str) -> list[str]:
    from pi.app.model_resolver import all_thinking_levels, clamp_thinking_level

    provider, _, model_id = ref.partition("/")
    model = api.session.model_registry.find(provider, model_id)
    if model is None or not model.reasoning:
        return ["off"]
    return [lv for lv in all_thinking_levels() if clamp_thinking_level(lv, model) == lv]


def _theme_names(api: InteractiveApi) -> list[str]:
    from pi.app.modes.interactive.theme_files import offered_names, session_themes

    return offered_names(session_themes(api.session, api.agent_dir))


def open_settings(api: InteractiveApi) -> None:
    session = api.session
    saved_theme = api.settings.get("theme", "system")

    def applied(key: str, value: Any, status: str) -> None:
        if key == "compaction":
            session.auto_compaction_enabled = bool(value.get("enabled", True)) if isinstance(value, dict) else True
        elif key == "compaction.enabled":
            session.auto_compaction_enabled = bool(value)
        elif key == "steeringMode":
            session.set_steering_mode(str(value))
        elif key == "followUpMode":
            session.set_follow_up_mode(str(value))
        api.apply_setting(key, value)
        api.show_status(status)

    def preview(name: str | None) -> None:
        api.apply_setting("theme", name if name is not None else api.settings.get("theme", saved_theme))

    models = [f"{m.provider}/{m.id}" for m in session.model_registry.available_models()]
    panel = SettingsPanel(
        api.settings,
        api.theme,
        api.keybindings,
        on_applied=applied,
        on_cancel=api.close_selector,
        models=models,
        levels_for=lambda ref: _levels_for(api, ref),
        themes=_theme_names(api),
        preview_theme=preview,
        appearance=api.terminal_appearance,
    )
    api.show_selector(panel)


async def cmd_settings(api: InteractiveApi, args: str) -> None:
    open_settings(api)


HANDLERS: dict[str, Handler] = {
    "copy": cmd_copy,
    "hotkeys": cmd_hotkeys,
    "changelog": cmd_changelog,
    "debug": cmd_debug,
    "reload": cmd_reload,
    "quit": cmd_quit,
    "settings": cmd_settings,
}

__all__ = [
    "DEBUG_LOG",
    "HANDLERS",
    "RELOADED",
    "RELOADING",
    "RELOAD_WHILE_COMPACTING",
    "RELOAD_WHILE_STREAMING",
    "debug_report",
    "open_settings",
]
