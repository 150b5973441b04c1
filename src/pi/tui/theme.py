"""Themes: named colour tokens turned into SGR sequences.

A theme maps the 56 tokens of the UI (`accent`, `toolSuccessBg`, ...) to colours. It comes from the
built-in tables (`dark`, `light`), from the terminal's palette (`system`, see theme_system.py) or
from a JSON file, validated strictly so that a typo names the exact key at fault instead of
silently rendering in the wrong colour.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pi.tui.color import RGB, hex_to_rgb, nearest_256, okhsl_to_rgb, oklch_to_rgb
from pi.tui.theme_builtin import BUILTIN_EXPORT, BUILTIN_TOKENS

__all__ = [
    "BG_TOKENS",
    "OPTIONAL_TOKENS",
    "TOKENS",
    "ColorMode",
    "Theme",
    "ThemeError",
    "builtin_theme",
    "load_theme",
    "load_theme_file",
    "parse_color",
]

ColorMode = Literal["truecolor", "256"]
Appearance = Literal["dark", "light"]

TOKENS: tuple[str, ...] = (
    "accent",
    "border",
    "borderAccent",
    "borderMuted",
    "success",
    "error",
    "warning",
    "muted",
    "dim",
    "text",
    "thinkingText",
    "scrollbarTrack",
    "scrollbarThumb",
    "selectedBg",
    "searchMatchBg",
    "searchMatchText",
    "userMessageBg",
    "userMessageText",
    "customMessageBg",
    "customMessageText",
    "customMessageLabel",
    "toolPendingBg",
    "toolSuccessBg",
    "toolErrorBg",
    "toolTitle",
    "toolOutput",
    "mdHeading",
    "mdLink",
    "mdLinkUrl",
    "mdCode",
    "mdCodeBlock",
    "mdCodeBlockBorder",
    "mdQuote",
    "mdQuoteBorder",
    "mdHr",
    "mdListBullet",
    "toolDiffAdded",
    "toolDiffRemoved",
    "toolDiffContext",
    "syntaxComment",
    "syntaxKeyword",
    "syntaxFunction",
    "syntaxVariable",
    "syntaxString",
    "syntaxNumber",
    "syntaxType",
    "syntaxOperator",
    "syntaxPunctuation",
    "thinkingOff",
    "thinkingMinimal",
    "thinkingLow",
    "thinkingMedium",
    "thinkingHigh",
    "thinkingXhigh",
    "thinkingMax",
    "bashMode",
)
OPTIONAL_TOKENS: dict[str, str] = {
    "scrollbarTrack": "muted",
    "scrollbarThumb": "text",
    "searchMatchBg": "selectedBg",
    "searchMatchText": "text",
    "thinkingMax": "thinkingXhigh",
}
BG_TOKENS = frozenset(
    ("selectedBg", "searchMatchBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg")
)
EXPORT_KEYS = ("pageBg", "cardBg", "infoBg")
_FILE_KEYS = ("$schema", "name", "appearance", "vars", "colors", "export")

#: A resolved colour: RGB, a 256-colour index, None for the terminal default, or "faint" (SGR 2).
Color = RGB | int | None | Literal["faint"]

_NUMBER = r"([+-]?(?:\d+\.?\d*|\.\d+))"
_OKLCH_RE = re.compile(rf"^oklch\(\s*{_NUMBER}(%?)[\s,]+{_NUMBER}(%?)[\s,]+{_NUMBER}(?:deg)?\s*\)$")
_OKHSL_RE = re.compile(rf"^okhsl\(\s*{_NUMBER}(?:deg)?[\s,]+{_NUMBER}%?[\s,]+{_NUMBER}%?\s*\)$")


class ThemeError(ValueError):
    """A theme that cannot be used; the message names the file and the key at fault."""


def parse_color(value: object, variables: Mapping[str, object] | None = None, key: str = "colour") -> Color:
    """One colour value of a theme file (vars resolved through `variables`)."""
    return _resolve(value, variables or {}, key, ())


def _resolve(value: object, variables: Mapping[str, object], key: str, chain: tuple[str, ...]) -> Color:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ThemeError(f"{key}: expected a colour string or a 256-colour index, got {json.dumps(value)}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeError(f"{key}: colour index {value} is outside 0-255")
        return value
    text = value.strip()
    if text == "":
        return None
    if text.startswith("#"):
        rgb = hex_to_rgb(text)
        if rgb is None:
            raise ThemeError(f'{key}: "{value}" is not a #rgb or #rrggbb colour')
        return rgb
    if text.startswith("oklch("):
        m = _OKLCH_RE.match(text)
        if not m:
            raise ThemeError(f'{key}: "{value}" is not oklch(L% C H)')
        lightness = float(m.group(1)) / (100 if m.group(2) or float(m.group(1)) > 1 else 1)
        chroma = float(m.group(3)) * (0.4 / 100 if m.group(4) else 1)
        return oklch_to_rgb(lightness, chroma, float(m.group(5)))
    if text.startswith("okhsl("):
        m = _OKHSL_RE.match(text)
        if not m:
            raise ThemeError(f'{key}: "{value}" is not okhsl(H S% L%)')
        return okhsl_to_rgb(float(m.group(1)), float(m.group(2)) / 100, float(m.group(3)) / 100)
    if text.isdigit():
        return _resolve(int(text), variables, key, chain)
    if text in variables:
        if text in chain:
            cycle = " -> ".join((*chain, text))
            raise ThemeError(f"vars.{chain[0]}: variable cycle {cycle}")
        return _resolve(variables[text], variables, f"vars.{text}", (*chain, text) if chain else (text,))
    raise ThemeError(f'{key}: unknown colour or variable "{value}"')


def _okhsl_text(triple: str) -> RGB:
    h, s, lightness = (float(x) for x in triple.split())
    return okhsl_to_rgb(h, s / 100, lightness / 100)


class Theme:
    """Token colours as SGR sequences for one colour mode."""

    def __init__(
        self,
        name: str,
        colors: Mapping[str, Color],
        appearance: Appearance = "dark",
        color_mode: ColorMode = "truecolor",
        export: Mapping[str, Color] | None = None,
        source: str | None = None,
    ) -> None:
        self.name = name
        self.appearance: Appearance = appearance
        self.color_mode: ColorMode = color_mode
        self.source = source
        self.colors: dict[str, Color] = {}
        for token in TOKENS:
            if token in colors:
                self.colors[token] = colors[token]
            elif token in OPTIONAL_TOKENS and OPTIONAL_TOKENS[token] in colors:
                self.colors[token] = colors[OPTIONAL_TOKENS[token]]
            else:
                self.colors[token] = None
        self.export: dict[str, Color] = dict(export or {})
        self._fg = {t: self._sgr(c, False) for t, c in self.colors.items()}
        self._bg = {t: self._sgr(c, True) for t, c in self.colors.items()}

    @classmethod
    def plain(cls) -> Theme:
        """A theme without any colour, for tests and dumb terminals."""
        return cls("plain", {})

    def _sgr(self, color: Color, background: bool) -> tuple[str, str]:
        close = "\x1b[49m" if background else "\x1b[39m"
        if color is None:
            return ("", "")
        if color == "faint":
            return ("", "") if background else ("\x1b[2m", "\x1b[22m")
        base = 48 if background else 38
        if isinstance(color, int):
            return (f"\x1b[{base};5;{color}m", close)
        if self.color_mode == "256":
            return (f"\x1b[{base};5;{nearest_256(color)}m", close)
        r, g, b = color
        return (f"\x1b[{base};2;{r};{g};{b}m", close)

    def fg_code(self, token: str) -> str:
        """The raw SGR that opens the token's foreground colour ("" for the terminal default)."""
        return self._fg[token][0]

    def bg_code(self, token: str) -> str:
        """The raw SGR that opens the token's background colour ("" for none)."""
        return self._bg[token][0]

    def rgb(self, token: str) -> RGB | None:
        color = self.colors[token]
        return color if isinstance(color, tuple) else None

    def fg(self, token: str, text: str) -> str:
        """`text` in the token's foreground colour; nested resets keep the colour."""
        return _wrap(self._fg[token], text)

    def bg(self, token: str, text: str) -> str:
        """`text` on the token's background colour; nested resets keep the background."""
        return _wrap(self._bg[token], text)

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[22m"

    def dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[22m"

    def italic(self, text: str) -> str:
        return f"\x1b[3m{text}\x1b[23m"

    def underline(self, text: str) -> str:
        return f"\x1b[4m{text}\x1b[24m"

    def inverse(self, text: str) -> str:
        return f"\x1b[7m{text}\x1b[27m"

    def strikethrough(self, text: str) -> str:
        return f"\x1b[9m{text}\x1b[29m"

    def with_color_mode(self, color_mode: ColorMode) -> Theme:
        return Theme(self.name, self.colors, self.appearance, color_mode, self.export, self.source)

    def adopt(self, other: Theme) -> None:
        """Take over `other`'s colours in place: every component holding this theme repaints with them
        after an invalidate (a theme switch from /settings, the terminal's late palette answer)."""
        self.name = other.name
        self.appearance = other.appearance
        self.color_mode = other.color_mode
        self.source = other.source
        self.colors = dict(other.colors)
        self.export = dict(other.export)
        self._fg = dict(other._fg)
        self._bg = dict(other._bg)


def _wrap(codes: tuple[str, str], text: str) -> str:
    open_code, close = codes
    if not open_code:
        return text
    if "\x1b[" in text:
        text = text.replace("\x1b[0m", "\x1b[0m" + open_code).replace(close, close + open_code)
    return open_code + text + close


def builtin_theme(name: Literal["dark", "light"], color_mode: ColorMode = "truecolor") -> Theme:
    """The built-in `dark` or `light` theme."""
    column = 0 if name == "dark" else 1
    colors: dict[str, Color] = {t: _okhsl_text(v[column]) for t, v in BUILTIN_TOKENS.items()}
    export: dict[str, Color] = {k: _okhsl_text(v[column]) for k, v in BUILTIN_EXPORT.items()}
    return Theme(name, colors, name, color_mode, export, source="builtin")


def _check_object(value: object, key: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ThemeError(f"{key}: expected an object")
    return value


def theme_from_data(data: object, color_mode: ColorMode = "truecolor", source: str | None = None) -> Theme:
    """Validate a parsed theme file and build the theme (raises ThemeError naming the bad key)."""
    obj = _check_object(data, "theme")
    for key in obj:
        if key not in _FILE_KEYS:
            raise ThemeError(f"{key}: unknown key (allowed: {', '.join(_FILE_KEYS)})")
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeError("name: required, a non-empty string")
    if "/" in name or name == "system":
        raise ThemeError(f'name: "{name}" is reserved or contains "/"')
    appearance = obj.get("appearance", "dark")
    if appearance not in ("dark", "light"):
        raise ThemeError(f'appearance: expected "dark" or "light", got {json.dumps(appearance)}')
    variables = _check_object(obj.get("vars", {}), "vars")
    for var_name, var_value in variables.items():
        _resolve(var_value, variables, f"vars.{var_name}", (var_name,) if isinstance(var_value, str) else ())
    if "colors" not in obj:
        raise ThemeError("colors: required")
    colors_in = _check_object(obj["colors"], "colors")
    colors: dict[str, Color] = {}
    for token, value in colors_in.items():
        if token not in TOKENS:
            raise ThemeError(f"colors.{token}: unknown token")
        colors[token] = _resolve(value, variables, f"colors.{token}", ())
    for token in TOKENS:
        if token not in colors and token not in OPTIONAL_TOKENS:
            raise ThemeError(f"colors.{token}: missing (every token except {', '.join(OPTIONAL_TOKENS)} is required)")
    export: dict[str, Color] = {}
    for key, value in _check_object(obj.get("export", {}), "export").items():
        if key not in EXPORT_KEYS:
            raise ThemeError(f"export.{key}: unknown key (allowed: {', '.join(EXPORT_KEYS)})")
        export[key] = _resolve(value, variables, f"export.{key}", ())
    return Theme(name, colors, "light" if appearance == "light" else "dark", color_mode, export, source)


def load_theme_file(path: Path, color_mode: ColorMode = "truecolor") -> Theme:
    """Read and validate a theme file; errors start with the file path."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThemeError(f"{path}: cannot read theme file: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ThemeError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    try:
        return theme_from_data(data, color_mode, source=str(path))
    except ThemeError as exc:
        raise ThemeError(f"{path}: {exc}") from None


def load_theme(name_or_path: str, dirs: Sequence[Path] = (), color_mode: ColorMode = "truecolor") -> Theme:
    """A theme by name (built-in, or `<dir>/<name>.json` in `dirs`, first match wins) or by file path.

    `system` needs the terminal's palette and is built by `theme_system.system_theme` instead.
    """
    if name_or_path in ("dark", "light"):
        return builtin_theme("dark" if name_or_path == "dark" else "light", color_mode)
    if name_or_path.endswith(".json") or "/" in name_or_path:
        return load_theme_file(Path(name_or_path).expanduser(), color_mode)
    for directory in dirs:
        candidate = directory / f"{name_or_path}.json"
        if candidate.is_file():
            return load_theme_file(candidate, color_mode)
    raise ThemeError(f'Theme "{name_or_path}" not found (built-in themes: dark, light, system)')
