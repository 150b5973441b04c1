"""The `system` theme: colours derived from what the terminal reports about its own palette.

Each token family takes its hue from one ANSI slot (headings from yellow, links from blue, ...),
keeps the saturation of the built-in theme, and gets a lightness chosen for contrast against the
terminal background (body text at least 4.5:1). When the terminal reports nothing the theme uses
plain ANSI indices, the terminal's default colours, faint text for neutral tokens and no panel
backgrounds, which reads well on any palette.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from msgspec import Struct, field

from pi.tui.color import RGB, contrast_ratio, okhsl_to_rgb, relative_luminance, rgb_to_okhsl
from pi.tui.theme import BG_TOKENS, Appearance, Color, ColorMode, Theme
from pi.tui.theme_builtin import BUILTIN_TOKENS, SYSTEM_SLOTS

__all__ = ["TerminalPalette", "appearance_from_env", "palette_from_replies", "system_theme"]

_TEXT_FAMILY = frozenset(("text", "userMessageText", "toolTitle"))
_REFERENCE_BG_LIGHTNESS = {"dark": 0.16, "light": 0.94}


class TerminalPalette(Struct):
    """Colours a terminal reported (OSC 10/11 for fg/bg, OSC 4 for the ANSI slots); any may be missing."""

    foreground: RGB | None = None
    background: RGB | None = None
    ansi: Mapping[int, RGB] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return self.foreground is None and self.background is None and not self.ansi


def palette_from_replies(replies: Mapping[str, RGB]) -> TerminalPalette:
    """A palette from `Terminal.palette_replies` (keys `fg`, `bg`, `ansi0`..`ansi15`)."""
    ansi = {int(k[4:]): v for k, v in replies.items() if k.startswith("ansi") and k[4:].isdigit()}
    return TerminalPalette(replies.get("fg"), replies.get("bg"), ansi)


def appearance_from_env(palette: TerminalPalette | None, environ: Mapping[str, str] | None = None) -> Appearance:
    """Light or dark: from the reported colours, else `COLORFGBG`, else dark."""
    if palette is not None and palette.background is not None:
        return "light" if relative_luminance(palette.background) > 0.4 else "dark"
    if palette is not None and palette.foreground is not None:
        return "dark" if relative_luminance(palette.foreground) > 0.4 else "light"
    env = os.environ if environ is None else environ
    parts = env.get("COLORFGBG", "").split(";")
    if len(parts) >= 2 and parts[-1].isdigit():
        bg = int(parts[-1])
        return "light" if bg in (7, 15) or 9 < bg < 15 else "dark"
    return "dark"


def _fallback_colors() -> dict[str, Color]:
    colors: dict[str, Color] = {}
    for token, slot in SYSTEM_SLOTS.items():
        if token in BG_TOKENS:
            colors[token] = None
        elif slot is not None:
            colors[token] = slot
        else:
            colors[token] = None if token in _TEXT_FAMILY else "faint"
    return colors


def _with_contrast(hue: float, saturation: float, lightness: float, against: RGB, minimum: float) -> RGB:
    """The colour with the given hue/saturation, moving lightness away from `against` until readable."""
    rgb = okhsl_to_rgb(hue, saturation, lightness)
    if contrast_ratio(rgb, against) >= minimum:
        return rgb
    step = 0.02 if relative_luminance(against) < 0.2 else -0.02
    current = lightness
    while 0.0 <= current + step <= 1.0:
        current += step
        rgb = okhsl_to_rgb(hue, saturation, current)
        if contrast_ratio(rgb, against) >= minimum:
            return rgb
    return rgb


def _derived_colors(palette: TerminalPalette, appearance: Appearance) -> dict[str, Color]:
    column = 0 if appearance == "dark" else 1
    background = palette.background or ((24, 24, 28) if appearance == "dark" else (250, 250, 250))
    bg_lightness = rgb_to_okhsl(background)[2]
    shift = bg_lightness - _REFERENCE_BG_LIGHTNESS[appearance]
    colors: dict[str, Color] = {}
    for token, triple in BUILTIN_TOKENS.items():
        hue, sat, light = (float(x) for x in triple[column].split())
        sat, light = sat / 100, light / 100
        slot = SYSTEM_SLOTS[token]
        reported = palette.ansi.get(slot) if slot is not None else None
        if reported is not None:
            slot_hue, slot_sat, _ = rgb_to_okhsl(reported)
            if slot_sat > 0.05:
                hue = slot_hue
        if token in BG_TOKENS:
            colors[token] = okhsl_to_rgb(hue, sat, min(1.0, max(0.0, light + shift)))
            continue
        if token in _TEXT_FAMILY and palette.foreground is not None:
            colors[token] = palette.foreground
            continue
        minimum = 4.5 if token in _TEXT_FAMILY else 3.0
        colors[token] = _with_contrast(hue, sat, light, background, minimum)
    return colors


def system_theme(
    palette: TerminalPalette | None,
    color_mode: ColorMode = "truecolor",
    environ: Mapping[str, str] | None = None,
) -> Theme:
    """The `system` theme for a reported palette, or the ANSI fallback when nothing was reported."""
    appearance = appearance_from_env(palette, environ)
    if palette is None or palette.is_empty():
        return Theme("system", _fallback_colors(), appearance, color_mode, source="system")
    return Theme("system", _derived_colors(palette, appearance), appearance, color_mode, source="system")
