"""/settings → Theme: pi's single-theme list with `automatic`, and the light/dark pair screen."""

from __future__ import annotations

from pathlib import Path

from pi.app.modes.interactive.commands.registry import CommandRegistry
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, UP, FakeApi, make_env

SINGLE = [
    "Theme",
    "",
    "Select a theme, or choose automatic to follow terminal appearance.",
    "",
    "→ ✓ system     Theme created from your terminal's colors",
    "    automatic  Use separate themes for light and dark terminal appearance",
    "    dark",
    "    light",
    "",
    "  Enter to select · Esc to go back",
]

PAIR_HEAD = [
    "Automatic Theme",
    "",
    "Choose themes for terminal light and dark appearance.",
    "Light/dark detection requires terminal support.",
    "",
]


def _body(api: FakeApi) -> list[str]:
    """The panel between its two rules, trailing spaces dropped."""
    lines = [line.rstrip() for line in api.screen()]
    return lines[1:-1]


async def _open_theme(api: FakeApi) -> None:
    assert await CommandRegistry(api.session).execute(api, "/settings")
    for ch in "theme":
        api.press(ch)
    api.press(ENTER)


async def test_single_menu_lists_system_then_automatic_with_a_tick_on_the_current(tmp_path: Path) -> None:
    api = FakeApi(make_env(tmp_path))
    await _open_theme(api)
    assert _body(api) == SINGLE
    api.press(DOWN, DOWN)
    assert _body(api)[6] == "→   dark"
    assert api.applied[-1] == ("theme", "dark")


async def test_automatic_chooses_a_pair_and_apply_saves_it(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _open_theme(api)
    api.press(DOWN)
    assert api.applied[-1] == ("theme", "system/system")
    api.press(ENTER)
    assert _body(api) == [
        *PAIR_HEAD,
        "→ Light theme  system",
        "  Dark theme   system",
        "  Apply        save and go back",
        "  Change mode  switch to single theme",
        "",
        "  Theme to use in automatic mode when the terminal is light",
        "",
        "  Enter/Space to change · Esc to cancel",
    ]
    api.press(ENTER)
    assert _body(api)[: len(PAIR_HEAD) + 5] == [
        *PAIR_HEAD,
        "Light Theme",
        "",
        "Select the theme to use for light terminal appearance",
        "",
        "→ ✓ system    Theme created from your terminal's colors",
    ]
    api.press(DOWN, DOWN)
    assert api.applied[-1] == ("theme", "light")
    api.press(ENTER)
    assert api.applied[-1] == ("theme", "light/system")
    assert _body(api)[len(PAIR_HEAD)] == "→ Light theme  light"
    api.press(DOWN, DOWN, ENTER)
    assert env.saved_settings()["theme"] == "light/system"
    assert api.texts("status")[-1] == "Theme: light/system"
    assert any(line.startswith("→ Theme") and line.endswith("light/system") for line in _body(api))


async def test_a_saved_pair_opens_the_pair_screen_and_change_mode_picks_the_showing_half(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"theme": "light/dark"})
    api = FakeApi(env, appearance="light")
    await _open_theme(api)
    assert _body(api)[len(PAIR_HEAD) : len(PAIR_HEAD) + 2] == ["→ Light theme  light", "  Dark theme   dark"]
    api.press(UP, " ")  # Space changes, as in the settings list
    assert api.applied[-1] == ("theme", "light")
    body = _body(api)
    assert body[0] == "Theme" and "→ ✓ light" in body
    api.press(ESC)
    assert api.applied[-1] == ("theme", "light/dark")
    assert env.saved_settings()["theme"] == "light/dark"


async def test_esc_in_a_pick_list_goes_back_to_the_pair_screen(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"theme": "light/dark"})
    api = FakeApi(env)
    await _open_theme(api)
    api.press(DOWN, ENTER, DOWN)  # Dark theme → its list (system, dark, light), cursor onto `light`
    assert api.applied[-1] == ("theme", "light")
    api.press(ESC)
    assert api.applied[-1] == ("theme", "light/dark")
    assert _body(api)[len(PAIR_HEAD) + 1] == "→ Dark theme   dark"
    api.press(ESC)
    assert any(line.startswith("→ Theme") for line in _body(api))
    assert env.saved_settings()["theme"] == "light/dark"
