"""The items of `/settings`: label, settings.json key, the values Enter cycles through, description.

Values are shown as text and converted back to JSON when saved (`true` → true, `5` → 5,
`5 min` → 300000 for the HTTP idle timeout). Dotted keys (`terminal.clearOnShrink`) live in a
nested object; saving rewrites that object with the one value changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec import Struct

if TYPE_CHECKING:
    from pi.app.settings import SettingsManager

BOOL = ("true", "false")
IDLE_TIMEOUTS = {"disabled": 0, "1 min": 60000, "2 min": 120000, "5 min": 300000, "10 min": 600000, "30 min": 1800000}


class SettingDef(Struct, frozen=True):
    id: str
    label: str
    key: str
    default: Any
    values: tuple[str, ...] = BOOL
    description: str = ""
    images_only: bool = False


SETTING_DEFS: tuple[SettingDef, ...] = (
    SettingDef(
        "autoCompact",
        "Auto-compact",
        "compaction.enabled",
        True,
        description="Automatically compact context when it gets too large",
    ),
    SettingDef(
        "autoResizeImages",
        "Auto-resize images",
        "images.autoResize",
        True,
        description="Shrink large images before sending them to the model",
    ),
    SettingDef(
        "blockImages", "Block images", "images.blockImages", False, description="Never send images to the model"
    ),
    SettingDef(
        "skillCommands",
        "Skill commands",
        "enableSkillCommands",
        True,
        description="Offer loaded skills as /skill:<name> commands",
    ),
    SettingDef(
        "showHardwareCursor",
        "Show hardware cursor",
        "showHardwareCursor",
        False,
        description="Show the terminal's own cursor in the editor",
    ),
    SettingDef(
        "editorPadding",
        "Editor padding",
        "editorPaddingX",
        0,
        ("0", "1", "2", "3"),
        "Horizontal padding inside the editor",
    ),
    SettingDef("outputPad", "Output padding", "outputPad", 1, ("0", "1"), "Horizontal padding of transcript output"),
    SettingDef(
        "autocompleteMaxVisible",
        "Autocomplete max items",
        "autocompleteMaxVisible",
        5,
        ("3", "5", "7", "10", "15", "20"),
        "Rows shown in the completion list",
    ),
    SettingDef(
        "clearOnShrink",
        "Clear on shrink",
        "terminal.clearOnShrink",
        False,
        description="Clear the screen when the content gets shorter",
    ),
    SettingDef(
        "showTerminalProgress",
        "Terminal progress",
        "terminal.showTerminalProgress",
        False,
        description="Report progress to the terminal while the agent works",
    ),
    SettingDef(
        "steeringMode",
        "Steering mode",
        "steeringMode",
        "one-at-a-time",
        ("one-at-a-time", "all"),
        "Deliver queued steering messages one at a time or all together",
    ),
    SettingDef(
        "followUpMode",
        "Follow-up mode",
        "followUpMode",
        "one-at-a-time",
        ("one-at-a-time", "all"),
        "Deliver queued follow-up messages one at a time or all together",
    ),
    SettingDef(
        "transport",
        "Transport",
        "transport",
        "auto",
        ("sse", "websocket", "websocket-cached", "auto"),
        "How requests reach providers that support several transports",
    ),
    SettingDef(
        "sessionShareDestination",
        "Session share destination",
        "sessionShareDestination",
        "auto",
        ("auto", "gist", "radius"),
        "Where /share uploads the session",
    ),
    SettingDef(
        "httpIdleTimeout",
        "HTTP idle timeout",
        "httpIdleTimeoutMs",
        300000,
        tuple(IDLE_TIMEOUTS),
        "Give up on a response that sends nothing for this long",
    ),
    SettingDef(
        "cacheWarming",
        "Cache warming",
        "cacheWarming",
        "idle",
        ("off", "streaming", "idle"),
        "Keep the provider's prompt cache warm between requests",
    ),
    SettingDef(
        "hideThinking",
        "Hide thinking",
        "hideThinkingBlock",
        False,
        description="Collapse thinking blocks in the transcript",
    ),
    SettingDef(
        "mermaid",
        "Mermaid diagrams",
        "markdown.mermaid",
        "streaming",
        ("off", "final", "streaming"),
        "Render mermaid code blocks as diagrams",
    ),
    SettingDef(
        "cacheMissNotices",
        "Cache miss notices",
        "showCacheMissNotices",
        False,
        description="Say in the transcript when a request missed the prompt cache",
    ),
    SettingDef(
        "collapseChangelog",
        "Collapse changelog",
        "collapseChangelog",
        False,
        description="Show one line instead of the changelog after an update",
    ),
    SettingDef(
        "quietStartup",
        "Quiet startup",
        "quietStartup",
        False,
        ("true", "header", "false"),
        "Hide the startup header and resource lists",
    ),
    SettingDef(
        "installTelemetry",
        "Install telemetry",
        "enableInstallTelemetry",
        True,
        description="Send an anonymous ping when pi is installed or updated",
    ),
    SettingDef(
        "defaultProjectTrust",
        "Default project trust",
        "defaultProjectTrust",
        "ask",
        ("ask", "always", "never"),
        "What to do in a project folder with no saved trust decision",
    ),
    SettingDef(
        "doubleEscapeAction",
        "Double-escape action",
        "doubleEscapeAction",
        "tree",
        ("tree", "fork", "none"),
        "What Escape twice on an empty editor opens",
    ),
    SettingDef(
        "treeFilterMode",
        "Tree filter mode",
        "treeFilterMode",
        "default",
        ("default", "no-tools", "user-only", "labeled-only", "all"),
        "The filter /tree starts with",
    ),
    SettingDef(
        "warnings",
        "Warnings",
        "warnings.anthropicExtraUsage",
        True,
        description="Warnings pi may show (Anthropic extra usage)",
    ),
    SettingDef(
        "modelThinkingLevels",
        "Default thinking level per model",
        "modelThinkingLevels",
        None,
        (),
        "Thinking level a model starts with, overriding the default",
    ),
    SettingDef(
        "tuiMode",
        "TUI mode",
        "tuiMode",
        "fullscreen",
        ("regular", "fullscreen"),
        "Interface layout; regular mode uses the terminal's normal scrollback",
    ),
    SettingDef(
        "fullscreenExitOutput",
        "Fullscreen exit output",
        "fullscreenExitOutput",
        "transcript",
        ("transcript", "resume-hint"),
        "What fullscreen mode prints when pi exits",
    ),
    SettingDef(
        "fullscreenScrollbar",
        "Fullscreen scrollbar",
        "fullscreenScrollbar",
        "auto",
        ("auto", "always", "hidden"),
        "When the transcript scrollbar is shown",
    ),
    SettingDef(
        "fullscreenCopyOnSelect",
        "Fullscreen copy on select",
        "fullscreenCopyOnSelect",
        True,
        description="Copy text selected with the mouse when the button is released",
    ),
    SettingDef(
        "fullscreenWheelScrolling",
        "Fullscreen wheel scrolling",
        "fullscreenWheelScrollLines",
        "auto",
        ("auto", "1", "3", "5", "10"),
        "Lines the mouse wheel scrolls per step",
    ),
    SettingDef(
        "showImages",
        "Show images",
        "terminal.showImages",
        True,
        description="Show images inline in the transcript",
        images_only=True,
    ),
    SettingDef(
        "imageWidth",
        "Image width",
        "terminal.imageWidthCells",
        60,
        ("60", "80", "120"),
        "Width of inline images in cells",
        images_only=True,
    ),
    SettingDef("theme", "Theme", "theme", "system", (), "Colour theme (previewed while choosing)"),
)


def read_value(settings: SettingsManager, key: str, default: Any) -> Any:
    head, _, tail = key.partition(".")
    if not tail:
        return settings.get(head, default)
    section = settings.get(head)
    return section.get(tail, default) if isinstance(section, dict) else default


def write_value(settings: SettingsManager, key: str, value: Any) -> None:
    head, _, tail = key.partition(".")
    if not tail:
        settings.set(head, value)
        return
    section = settings.get(head)
    settings.set(head, {**(section if isinstance(section, dict) else {}), tail: value})


def display(definition: SettingDef, value: Any) -> str:
    if definition.key == "httpIdleTimeoutMs":
        if value in (0, "disabled"):
            return "disabled"
        found = next((label for label, ms in IDLE_TIMEOUTS.items() if ms == value), None)
        return found or f"{int(value) // 1000}s" if isinstance(value, int) else str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def to_json(definition: SettingDef, text: str) -> Any:
    """The settings.json value for a displayed choice, typed like the setting's default."""
    if definition.key == "httpIdleTimeoutMs":
        return IDLE_TIMEOUTS.get(text, 300000)
    if text in ("true", "false") and (isinstance(definition.default, bool) or definition.values == BOOL):
        return text == "true"
    if isinstance(definition.default, bool) and text not in ("true", "false"):
        return text
    if text.isdigit() and (isinstance(definition.default, int) or definition.key == "fullscreenWheelScrollLines"):
        return int(text)
    return text


__all__ = ["SETTING_DEFS", "SettingDef", "display", "read_value", "to_json", "write_value"]
