"""What the terminal can show: 24-bit colour, OSC 8 hyperlinks, inline images.

Detection reads only the environment (no round trip to the terminal), so it is instant and can be
done before the first frame. Each capability can be forced: the `terminal.trueColor`,
`terminal.hyperlinks` and `terminal.images` settings win over the `PI_TRUE_COLOR`,
`PI_HYPERLINKS` and `PI_IMAGE_PROTOCOL` variables, which win over detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from msgspec import Struct

from pi.tui.theme import ColorMode

__all__ = ["ImageProtocol", "TerminalCapabilities", "detect_capabilities", "in_multiplexer"]

ImageProtocol = Literal["kitty", "iterm2"]

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "none")
_TRUECOLOR_PROGRAMS = ("iTerm.app", "WezTerm", "ghostty", "vscode", "Hyper", "Tabby", "rio")
_LINK_PROGRAMS = ("iTerm.app", "WezTerm", "ghostty", "vscode", "Hyper", "Tabby", "rio")


class TerminalCapabilities(Struct, frozen=True):
    """One answer for the whole UI; `images` is None when no image protocol is usable."""

    true_color: bool
    hyperlinks: bool
    images: ImageProtocol | None

    @property
    def color_mode(self) -> ColorMode:
        """The theme colour mode these capabilities call for."""
        return "truecolor" if self.true_color else "256"


def in_multiplexer(environ: Mapping[str, str]) -> bool:
    """tmux, screen or zellij: they drop or mangle OSC 8 links and image escapes."""
    term = environ.get("TERM", "")
    return bool(environ.get("TMUX") or environ.get("STY") or environ.get("ZELLIJ")) or term.startswith(
        ("tmux", "screen")
    )


def _is_kitty_like(environ: Mapping[str, str]) -> bool:
    return (
        environ.get("TERM") == "xterm-kitty"
        or bool(environ.get("KITTY_WINDOW_ID"))
        or environ.get("TERM_PROGRAM") in ("ghostty", "WezTerm")
        or environ.get("TERM", "").startswith("xterm-ghostty")
    )


def _detect_true_color(environ: Mapping[str, str]) -> bool:
    if environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return True
    if environ.get("TERM_PROGRAM") == "Apple_Terminal":
        return False
    if environ.get("WT_SESSION") or _is_kitty_like(environ):
        return True
    return environ.get("TERM_PROGRAM") in _TRUECOLOR_PROGRAMS or "truecolor" in environ.get("TERM", "")


def _detect_hyperlinks(environ: Mapping[str, str]) -> bool:
    if in_multiplexer(environ):
        return False
    if _is_kitty_like(environ) or environ.get("WT_SESSION") or environ.get("TERM") in ("foot", "alacritty"):
        return True
    if environ.get("TERM_PROGRAM") in _LINK_PROGRAMS:
        return True
    try:
        return int(environ.get("VTE_VERSION", "0")) >= 5000
    except ValueError:
        return False


def _detect_images(environ: Mapping[str, str]) -> ImageProtocol | None:
    if in_multiplexer(environ):
        return None
    if _is_kitty_like(environ):
        return "kitty"
    if environ.get("TERM_PROGRAM") == "iTerm.app":
        return "iterm2"
    return None


def _flag(setting: object, env_value: str | None) -> bool | None:
    """A forced on/off from the setting (wins) or the variable; None means detect."""
    if isinstance(setting, bool):
        return setting
    if isinstance(setting, str) and setting.lower() in _TRUE + _FALSE:
        return setting.lower() in _TRUE
    if env_value is not None and env_value.strip().lower() in _TRUE + _FALSE:
        return env_value.strip().lower() in _TRUE
    return None


def _image_choice(setting: object, env_value: str | None, detected: ImageProtocol | None) -> ImageProtocol | None:
    for value in (setting, env_value):
        if isinstance(value, bool):
            return (detected or "kitty") if value else None
        if not isinstance(value, str):
            continue
        word = value.strip().lower()
        if word in ("kitty", "iterm2"):
            return "kitty" if word == "kitty" else "iterm2"
        if word == "iterm":
            return "iterm2"
        if word in _TRUE:
            return detected or "kitty"
        if word in _FALSE:
            return None
    return detected


def detect_capabilities(
    environ: Mapping[str, str], settings: Mapping[str, object] | None = None
) -> TerminalCapabilities:
    """Capabilities from the environment and the `terminal` settings object.

    `settings` is the `terminal` section of settings.json (keys `trueColor`, `hyperlinks`,
    `images`, each `"auto"`, true or false; `images` may also name `"kitty"` or `"iterm2"`).
    """
    terminal = settings or {}
    true_color = _flag(terminal.get("trueColor", "auto"), environ.get("PI_TRUE_COLOR"))
    links = _flag(terminal.get("hyperlinks", "auto"), environ.get("PI_HYPERLINKS"))
    images = _image_choice(terminal.get("images", "auto"), environ.get("PI_IMAGE_PROTOCOL"), _detect_images(environ))
    return TerminalCapabilities(
        true_color=_detect_true_color(environ) if true_color is None else true_color,
        hyperlinks=_detect_hyperlinks(environ) if links is None else links,
        images=images,
    )
