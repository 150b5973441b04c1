from __future__ import annotations

import pytest

from pi.tui.capabilities import TerminalCapabilities, detect_capabilities, in_multiplexer


def test_truecolor_from_colorterm_and_known_terminals() -> None:
    assert detect_capabilities({"COLORTERM": "truecolor"}).true_color
    assert detect_capabilities({"COLORTERM": "24bit"}).true_color
    assert detect_capabilities({"TERM": "xterm-kitty"}).true_color
    assert not detect_capabilities({"TERM": "xterm-256color"}).true_color
    assert not detect_capabilities({"TERM_PROGRAM": "Apple_Terminal"}).true_color


def test_color_mode_follows_truecolor() -> None:
    assert detect_capabilities({"COLORTERM": "truecolor"}).color_mode == "truecolor"
    assert detect_capabilities({}).color_mode == "256"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM": "xterm-kitty"}, "kitty"),
        ({"KITTY_WINDOW_ID": "3"}, "kitty"),
        ({"TERM_PROGRAM": "ghostty"}, "kitty"),
        ({"TERM_PROGRAM": "WezTerm"}, "kitty"),
        ({"TERM_PROGRAM": "iTerm.app"}, "iterm2"),
        ({"TERM": "xterm-256color"}, None),
        ({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1/default,1,0"}, None),
        ({"TERM_PROGRAM": "iTerm.app", "TERM": "screen-256color"}, None),
    ],
)
def test_image_protocol_detection(env: dict[str, str], expected: str | None) -> None:
    assert detect_capabilities(env).images == expected


def test_hyperlinks_detected_but_not_inside_multiplexers() -> None:
    assert detect_capabilities({"TERM_PROGRAM": "WezTerm"}).hyperlinks
    assert detect_capabilities({"VTE_VERSION": "6800"}).hyperlinks
    assert not detect_capabilities({"TERM": "xterm"}).hyperlinks
    assert not detect_capabilities({"TERM_PROGRAM": "WezTerm", "TMUX": "x"}).hyperlinks
    assert not detect_capabilities({"TERM_PROGRAM": "WezTerm", "STY": "1.pts"}).hyperlinks
    assert not detect_capabilities({"KITTY_WINDOW_ID": "1", "ZELLIJ": "0"}).hyperlinks
    # forced on, even under tmux
    assert detect_capabilities({"TMUX": "x", "PI_HYPERLINKS": "1"}).hyperlinks


def test_environment_overrides_detection() -> None:
    assert not detect_capabilities({"COLORTERM": "truecolor", "PI_TRUE_COLOR": "0"}).true_color
    assert detect_capabilities({"PI_TRUE_COLOR": "1"}).true_color
    assert detect_capabilities({"PI_IMAGE_PROTOCOL": "iterm2"}).images == "iterm2"
    assert detect_capabilities({"PI_IMAGE_PROTOCOL": "kitty", "TMUX": "x"}).images == "kitty"
    assert detect_capabilities({"TERM": "xterm-kitty", "PI_IMAGE_PROTOCOL": "none"}).images is None
    assert not detect_capabilities({"TERM_PROGRAM": "WezTerm", "PI_HYPERLINKS": "false"}).hyperlinks


def test_settings_win_over_environment() -> None:
    env = {"PI_TRUE_COLOR": "1", "PI_HYPERLINKS": "1", "PI_IMAGE_PROTOCOL": "kitty"}
    caps = detect_capabilities(env, {"trueColor": False, "hyperlinks": False, "images": False})
    assert caps == TerminalCapabilities(true_color=False, hyperlinks=False, images=None)
    forced = detect_capabilities({"PI_TRUE_COLOR": "0"}, {"trueColor": True, "hyperlinks": True, "images": True})
    assert forced == TerminalCapabilities(true_color=True, hyperlinks=True, images="kitty")
    # "auto" in settings leaves the decision to the variable, then to detection
    assert detect_capabilities(env, {"trueColor": "auto", "images": "auto"}).images == "kitty"
    assert detect_capabilities({"TERM_PROGRAM": "iTerm.app"}, {"images": True}).images == "iterm2"
    assert detect_capabilities({}, {"images": "iterm2"}).images == "iterm2"


def test_multiplexer_detection() -> None:
    assert in_multiplexer({"TMUX": "x"})
    assert in_multiplexer({"TERM": "tmux-256color"})
    assert in_multiplexer({"TERM": "screen"})
    assert not in_multiplexer({"TERM": "xterm-256color"})
