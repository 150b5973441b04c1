"""The macOS side of the paste-image key, driven with stand-in `osascript` and `pbpaste` on PATH and
the platform named explicitly: copied files first, then an image, then text; and how copied files
are written into the editor (shell words in `!` mode, one a line otherwise)."""

from __future__ import annotations

import asyncio
import base64
import os
import stat
from pathlib import Path

import pytest

from pi.app.modes.interactive.clipboard_paste import files_text
from pi.app.modes.interactive.pasted_images import pasted_paths
from pi.tui.clipboard_read import (
    MAC_FILES_SCRIPT,
    MAC_IMAGE_SCRIPT,
    ClipboardContent,
    ClipboardReadError,
    read_clipboard,
)

PNG = b"\x89PNG\r\n\x1a\nstand-in"

# The stand-in answers the script it is given as the real one would for the pasteboard described
# by the files next to it; it also records each call.
FAKE_OSASCRIPT = """#!/bin/sh
here=$(dirname "$0")
[ "$1" = "-l" ] && [ "$2" = "JavaScript" ] && [ "$3" = "-e" ] || exit 2
case "$4" in
  *readObjectsForClasses*) echo files >> "$here/calls"; [ -f "$here/files" ] && cat "$here/files"; echo ;;
  *dataForType*) echo image >> "$here/calls"; [ -f "$here/image" ] && cat "$here/image"; echo ;;
  *) exit 3 ;;
esac
"""
FAKE_PBPASTE = """#!/bin/sh
printf '%s' 'plain words'
"""


def _tools(root: Path, *, osascript: bool = True) -> dict[str, str]:
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name, body in (("osascript", FAKE_OSASCRIPT if osascript else None), ("pbpaste", FAKE_PBPASTE)):
        if body is None:
            continue
        script = bin_dir / name
        script.write_text(body)
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}


def _read(env: dict[str, str]) -> ClipboardContent:
    return asyncio.run(read_clipboard(env, platform="darwin"))


def test_copied_files_come_first(tmp_path: Path) -> None:
    env = _tools(tmp_path)
    (tmp_path / "bin" / "files").write_text("/Users/me/Desktop/Shot 1.png\n/Users/me/notes.txt")
    (tmp_path / "bin" / "image").write_text("image/png " + base64.b64encode(PNG).decode())
    content = _read(env)
    assert content.files == ("/Users/me/Desktop/Shot 1.png", "/Users/me/notes.txt")
    assert content.image is None and content.text == ""
    assert (tmp_path / "bin" / "calls").read_text().split() == ["files"]  # the image was not asked for


def test_an_image_when_no_files_are_copied(tmp_path: Path) -> None:
    env = _tools(tmp_path)
    (tmp_path / "bin" / "image").write_text("image/png " + base64.b64encode(PNG).decode())
    content = _read(env)
    assert (content.image, content.mime, content.files) == (PNG, "image/png", ())
    assert (tmp_path / "bin" / "calls").read_text().split() == ["files", "image"]


def test_text_when_there_is_neither(tmp_path: Path) -> None:
    env = _tools(tmp_path)
    assert _read(env) == ClipboardContent(text="plain words")


def test_text_without_osascript(tmp_path: Path) -> None:
    env = _tools(tmp_path, osascript=False)
    assert _read(env) == ClipboardContent(text="plain words")


def test_a_garbled_image_answer_falls_back_to_text(tmp_path: Path) -> None:
    env = _tools(tmp_path)
    (tmp_path / "bin" / "image").write_text("image/png not*base64")
    assert _read(env) == ClipboardContent(text="plain words")


def test_no_tool_at_all_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ClipboardReadError, match="pbpaste not found"):
        _read({"PATH": str(tmp_path / "empty")})


def test_the_scripts_ask_the_pasteboard_for_files_and_images() -> None:
    assert "NSPasteboardURLReadingFileURLsOnlyKey" in MAC_FILES_SCRIPT
    assert 'paths.join("\\n")' in MAC_FILES_SCRIPT
    for uti in ("public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp", "public.tiff"):
        assert f'"{uti}"' in MAC_IMAGE_SCRIPT


def test_copied_files_in_the_editor() -> None:
    paths = ("/Users/me/Shot 1.png", "/Users/me/it's.txt", "/plain")
    assert files_text(paths, bash_mode=False) == "/Users/me/Shot 1.png\n/Users/me/it's.txt\n/plain"
    assert files_text(paths, bash_mode=True) == "'/Users/me/Shot 1.png' '/Users/me/it'\"'\"'s.txt' /plain"
    # either form is read back as the same files when the prompt is sent
    assert pasted_paths(files_text(paths, bash_mode=False)) == list(paths)
    assert pasted_paths(files_text(paths, bash_mode=True)) == list(paths)
