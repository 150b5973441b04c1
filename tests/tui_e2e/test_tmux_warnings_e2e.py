"""tui.md §12.8: inside tmux, pi asks `tmux show -gv` about extended keys and warns in the chat.

The first run uses the real tmux server of the pane (`extended-keys off`); the second puts a stand-in
`tmux` first on PATH that reports `extended-keys on` with `extended-keys-format xterm`, a setting the
installed tmux may be too old to have.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from tests.tui_e2e.harness import TmuxPi

OFF = (
    "Warning: tmux extended-keys is off. Modified Enter keys may not work. "
    "Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
)
XTERM = (
    "tmux extended-keys-format is xterm. Pi works best with csi-u. "
    "Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
)
FAKE_TMUX = """#!/bin/sh
case "$*" in
  "show -gv extended-keys") echo on ;;
  "show -gv extended-keys-format") echo xterm ;;
  *) exit 1 ;;
esac
"""


def _squeezed(text: str) -> str:
    """The screen without its spacing, so a warning wrapped over several rows can be found whole."""
    return "".join(text.split())


def test_extended_keys_off_gives_the_whole_warning(make_pi: Any) -> None:
    pi: TmuxPi = make_pi(extended_keys=False)
    pi.start()
    pi.wait_for(lambda s: "fake-claude • medium" in s and _squeezed(OFF) in _squeezed(s))


def test_xterm_key_format_gives_its_own_warning(make_pi: Any) -> None:
    pi: TmuxPi = make_pi()
    fakebin = pi.root / "fakebin"
    fakebin.mkdir()
    tmux = fakebin / "tmux"
    tmux.write_text(FAKE_TMUX)
    tmux.chmod(tmux.stat().st_mode | stat.S_IEXEC)
    pi.start(env={"PATH": f"{fakebin}{os.pathsep}{os.environ['PATH']}"})
    text = pi.wait_for(lambda s: "fake-claude • medium" in s and _squeezed(XTERM) in _squeezed(s))
    assert "extended-keys is off" not in text
