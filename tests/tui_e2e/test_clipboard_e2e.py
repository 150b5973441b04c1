"""Ctrl+V (paste image) in the real `pi` in tmux: a clipboard image becomes a file path in the editor,
clipboard text is pasted, and no clipboard gives the error. The X11 clipboard is a stand-in `xclip`
on PATH that answers as xclip does."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from tests.tui_e2e.harness import TmuxPi

PNG = b"\x89PNG\r\n\x1a\nfake-image-bytes"
FAKE_XCLIP = """#!/bin/sh
case "$*" in
  *TARGETS*) printf 'TARGETS\\n{targets}\\n' ;;
  *image/png*) cat "{image}" ;;
  *) printf '%s' 'clipboard words' ;;
esac
"""


def _xclip(root: Path, targets: str) -> Path:
    bin_dir = root / "fakebin"
    bin_dir.mkdir()
    image = root / "clip.png"
    image.write_bytes(PNG)
    script = bin_dir / "xclip"
    script.write_text(FAKE_XCLIP.format(targets=targets, image=image))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def _editor_line(pi: TmuxPi) -> str:
    rows = pi.screen()
    rules = [i for i, row in enumerate(rows) if row.startswith("─" * 50)]
    return " ".join(row.strip() for row in rows[rules[-2] + 1 : rules[-1]])


def _start(make_pi: Any, targets: str | None) -> TmuxPi:
    pi: TmuxPi = make_pi()
    tmp = pi.root / "tmp"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp)}
    if targets is not None:
        env.update({"DISPLAY": ":77", "PATH": f"{_xclip(pi.root, targets)}{os.pathsep}{os.environ['PATH']}"})
    pi.start("--use-theme", "dark", env=env)
    pi.wait_for("fake-claude • medium")
    return pi


def test_ctrl_v_pastes_a_clipboard_image_as_a_file(make_pi: Any) -> None:
    pi = _start(make_pi, "image/png\nUTF8_STRING")
    pi.type("look at ")
    pi.keys("C-v")
    pi.wait_for(lambda _s: "pi-clipboard-" in _editor_line(pi))
    saved = list((pi.root / "tmp").glob("pi-clipboard-*.png"))
    assert len(saved) == 1 and saved[0].read_bytes() == PNG
    # the long path wraps inside the editor: compare without the spaces
    assert _editor_line(pi).replace(" ", "") == f"lookat{saved[0]}".replace(" ", "")


def test_ctrl_v_pastes_clipboard_text(make_pi: Any) -> None:
    pi = _start(make_pi, "UTF8_STRING")
    pi.keys("C-v")
    pi.wait_for(lambda _s: _editor_line(pi) == "clipboard words")
    assert not list((pi.root / "tmp").glob("pi-clipboard-*"))


def test_ctrl_v_without_a_clipboard(make_pi: Any) -> None:
    pi = _start(make_pi, None)
    pi.keys("C-v")
    pi.wait_for("Error: Failed to paste from clipboard: ")
