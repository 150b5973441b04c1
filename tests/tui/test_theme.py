from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.tui.color import contrast_ratio, nearest_256, okhsl_to_rgb, rgb_to_okhsl, xterm_256_rgb
from pi.tui.theme import OPTIONAL_TOKENS, TOKENS, Theme, ThemeError, builtin_theme, load_theme, theme_from_data
from pi.tui.theme_system import TerminalPalette, appearance_from_env, system_theme

# Truecolor values pi 1.6.0 shows with the built-in dark theme.
OBSERVED_DARK = {
    "text": (222, 224, 225),
    "muted": (157, 165, 169),
    "dim": (126, 136, 142),
    "accent": (167, 152, 215),
    "error": (234, 127, 129),
    "toolDiffAdded": (104, 183, 141),
    "bashMode": (94, 178, 134),
    "toolSuccessBg": (37, 65, 49),
    "userMessageBg": (33, 59, 73),
    "selectedBg": (33, 59, 73),
    "customMessageBg": (58, 48, 85),
    "thinkingMinimal": (104, 128, 141),
    "thinkingMedium": (97, 133, 204),
}


@pytest.mark.parametrize(("token", "rgb"), sorted(OBSERVED_DARK.items()))
def test_okhsl_dark_theme_matches_observed_truecolor(token: str, rgb: tuple[int, int, int]) -> None:
    theme = builtin_theme("dark")
    assert theme.rgb(token) == rgb
    r, g, b = rgb
    assert theme.fg_code(token) == f"\x1b[38;2;{r};{g};{b}m"


def test_okhsl_round_trip_and_extremes() -> None:
    assert okhsl_to_rgb(0, 0, 0) == (0, 0, 0)
    assert okhsl_to_rgb(0, 0, 1) == (255, 255, 255)
    h, s, lightness = rgb_to_okhsl((104, 183, 141))
    assert okhsl_to_rgb(h, s, lightness) == (104, 183, 141)


def test_builtin_themes_define_every_token() -> None:
    for name in ("dark", "light"):
        theme = builtin_theme(name)
        assert theme.appearance == name
        assert all(isinstance(theme.colors[t], tuple) for t in TOKENS)
    assert len(TOKENS) == 56
    assert builtin_theme("light").rgb("text") != builtin_theme("dark").rgb("text")


def test_fg_bg_wrapping_survives_nested_resets() -> None:
    theme = builtin_theme("dark")
    inner = theme.fg("error", "E")
    outer = theme.bg("toolSuccessBg", f"a{inner}\x1b[0mb")
    bg = theme.bg_code("toolSuccessBg")
    assert outer.startswith(bg) and outer.endswith("\x1b[49m")
    assert f"\x1b[0m{bg}b" in outer
    assert theme.fg("text", "x") == "\x1b[38;2;222;224;225mx\x1b[39m"
    assert theme.bold("x") == "\x1b[1mx\x1b[22m"
    assert Theme.plain().fg("accent", "x") == "x"


def test_256_colour_fallback() -> None:
    theme = builtin_theme("dark", "256")
    code = theme.fg_code("error")
    assert code.startswith("\x1b[38;5;")
    index = int(code[7:-1])
    r, g, b = xterm_256_rgb(index)
    assert abs(r - 234) < 40 and abs(g - 127) < 40 and abs(b - 129) < 40
    assert nearest_256((128, 128, 128)) in (243, 244, 102)
    assert nearest_256((255, 0, 0)) == 196


def _full_colors(value: Any = "#808080") -> dict[str, Any]:
    return {t: value for t in TOKENS if t not in OPTIONAL_TOKENS}


def _theme_file(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    return path


def test_theme_file_colour_forms_vars_and_fallbacks(tmp_path: Path) -> None:
    colors = _full_colors()
    colors.update(
        {
            "accent": "#f00",
            "border": "brand",
            "success": "oklch(70% 0.1 150)",
            "error": "okhsl(20 72% 67%)",
            "warning": 3,
            "text": "",
        }
    )
    data = {
        "$schema": "https://pi.dev/schemas/theme.schema.json",
        "name": "mine",
        "appearance": "light",
        "vars": {"brand": "base", "base": "#102030"},
        "colors": colors,
        "export": {"pageBg": "#ffffff"},
    }
    theme = load_theme(str(_theme_file(tmp_path, data)))
    assert theme.name == "mine" and theme.appearance == "light"
    assert theme.rgb("accent") == (255, 0, 0)
    assert theme.rgb("border") == (16, 32, 48)
    assert theme.rgb("error") == (234, 127, 129)
    assert theme.fg_code("warning") == "\x1b[38;5;3m"
    assert theme.fg("text", "x") == "x"
    assert theme.rgb("scrollbarTrack") == theme.rgb("muted")  # optional token falls back
    assert theme.colors["thinkingMax"] == theme.colors["thinkingXhigh"]
    assert theme.export["pageBg"] == (255, 255, 255)
    assert isinstance(theme.rgb("success"), tuple)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": 1}, "extra: unknown key"),
        ({"name": "a/b"}, "name:"),
        ({"name": "system"}, "name:"),
        ({"appearance": "dim"}, "appearance:"),
        ({"colors": {**_full_colors(), "accent": "#12"}}, "colors.accent:"),
        ({"colors": {**_full_colors(), "accent": 300}}, "colors.accent: colour index 300"),
        (
            {"colors": {**_full_colors(), "accent": "nosuchvar"}},
            'colors.accent: unknown colour or variable "nosuchvar"',
        ),
        ({"colors": {**_full_colors(), "bogusToken": "#fff"}}, "colors.bogusToken: unknown token"),
        ({"colors": {k: v for k, v in _full_colors().items() if k != "border"}}, "colors.border: missing"),
        ({"vars": {"a": "b", "b": "a"}}, "variable cycle a -> b -> a"),
        ({"export": {"cardBg": "#fff", "nope": "#000"}}, "export.nope: unknown key"),
        ({"colors": {**_full_colors(), "accent": "oklch(bad)"}}, "colors.accent:"),
    ],
)
def test_theme_file_validation_names_the_key(change: dict[str, Any], message: str, tmp_path: Path) -> None:
    data: dict[str, Any] = {"name": "t", "colors": _full_colors()}
    data.update(change)
    path = _theme_file(tmp_path, data)
    with pytest.raises(ThemeError) as info:
        load_theme(str(path))
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_name_and_colors_are_reported() -> None:
    with pytest.raises(ThemeError, match="name: required"):
        theme_from_data({"colors": _full_colors()})
    with pytest.raises(ThemeError, match="colors: required"):
        theme_from_data({"name": "x"})


def test_theme_lookup_by_name_in_dirs(tmp_path: Path) -> None:
    (tmp_path / "ocean.json").write_text(json.dumps({"name": "ocean", "colors": _full_colors("#0000ff")}))
    assert load_theme("ocean", [tmp_path]).rgb("accent") == (0, 0, 255)
    with pytest.raises(ThemeError, match='Theme "nope" not found'):
        load_theme("nope", [tmp_path])
    with pytest.raises(ThemeError, match="invalid JSON"):
        (tmp_path / "broken.json").write_text("{")
        load_theme("broken", [tmp_path])


def test_system_theme_without_answers_uses_ansi_faint_and_no_panels() -> None:
    theme = system_theme(None, environ={})
    assert theme.fg("mdHeading", "H") == "\x1b[38;5;3mH\x1b[39m"
    assert theme.fg_code("mdListBullet") == "\x1b[38;5;5m"
    assert theme.fg("thinkingText", "t") == "\x1b[2mt\x1b[22m"
    assert theme.fg("text", "x") == "x"
    for token in ("selectedBg", "userMessageBg", "toolSuccessBg"):
        assert theme.bg(token, "x") == "x"
    assert theme.appearance == "dark"
    assert system_theme(TerminalPalette(), environ={"COLORFGBG": "0;15"}).appearance == "light"


def test_system_theme_from_a_reported_palette() -> None:
    background = (250, 250, 245)
    palette = TerminalPalette(foreground=(40, 40, 40), background=background, ansi={3: (180, 140, 0), 4: (0, 0, 200)})
    theme = system_theme(palette, environ={})
    assert theme.appearance == "light"
    assert theme.rgb("text") == (40, 40, 40)
    heading = theme.rgb("mdHeading")
    assert heading is not None and contrast_ratio(heading, background) >= 3.0
    h_heading = rgb_to_okhsl(heading)[0]
    assert abs(h_heading - rgb_to_okhsl((180, 140, 0))[0]) < 5  # hue from ANSI yellow
    panel = theme.rgb("userMessageBg")
    assert panel is not None and panel != background
    dark = system_theme(TerminalPalette(background=(0, 0, 0)), environ={})
    assert dark.appearance == "dark"
    muted = dark.rgb("muted")
    assert muted is not None and contrast_ratio(muted, (0, 0, 0)) >= 3.0


def test_appearance_order() -> None:
    assert appearance_from_env(TerminalPalette(background=(255, 255, 255)), {}) == "light"
    assert appearance_from_env(TerminalPalette(foreground=(10, 10, 10)), {}) == "light"
    assert appearance_from_env(None, {"COLORFGBG": "15;0"}) == "dark"
    assert appearance_from_env(None, {}) == "dark"


def test_palette_from_terminal_replies() -> None:
    from pi.tui.theme_system import palette_from_replies

    palette = palette_from_replies({"fg": (1, 2, 3), "bg": (4, 5, 6), "ansi3": (7, 8, 9), "ansi12": (1, 1, 1)})
    assert palette.foreground == (1, 2, 3) and palette.background == (4, 5, 6)
    assert dict(palette.ansi) == {3: (7, 8, 9), 12: (1, 1, 1)}
    assert palette_from_replies({}).is_empty()


def test_adopt_takes_over_colours_in_place() -> None:
    from pi.tui.theme import builtin_theme as _builtin

    held = _builtin("dark")
    light = _builtin("light")
    before = held.fg("accent", "x")
    held.adopt(light)
    assert held.fg("accent", "x") == light.fg("accent", "x") != before
    assert held.name == light.name and held.appearance == "light"
