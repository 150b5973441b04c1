"""Reading the system clipboard for the paste-image key: an image if there is one, else text.

The native tools are asked in the order the session suggests: `wl-paste` on Wayland, `xclip` on
X11. On macOS, `osascript` (JavaScript for Automation, part of the system) reads the pasteboard:
first copied files (Finder's Cmd+C), then an image (PNG, JPEG, GIF, WebP, or TIFF converted to
PNG), and `pbpaste` gives the text. An image comes back as bytes with its MIME type, files as their
paths; the caller decides where to put them. No tool, or a tool that fails, raises
`ClipboardReadError` with what was tried; an empty clipboard gives empty content.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import shutil
import sys
from collections.abc import Mapping

from msgspec import Struct

__all__ = ["IMAGE_TYPES", "ClipboardContent", "ClipboardReadError", "read_clipboard"]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class ClipboardReadError(Exception):
    """The clipboard could not be read; the message says why."""


class ClipboardContent(Struct, frozen=True):
    text: str = ""
    image: bytes | None = None
    mime: str | None = None
    files: tuple[str, ...] = ()
    """Paths of files copied in the file manager (macOS)."""

    @property
    def empty(self) -> bool:
        return not self.text and not self.image and not self.files


MAC_FILES_SCRIPT = """ObjC.import("AppKit");
function run() {
  const board = $.NSPasteboard.generalPasteboard;
  const options = $({ NSPasteboardURLReadingFileURLsOnlyKey: true });
  const urls = board.readObjectsForClassesOptions($([$.NSURL]), options);
  const paths = [];
  if (!urls.isNil()) {
    for (let i = 0; i < urls.count; i++) paths.push(urls.objectAtIndex(i).path.js);
  }
  return paths.join("\\n");
}"""
"""Prints the paths of the copied files, one a line (nothing when none are copied)."""

MAC_IMAGE_SCRIPT = """ObjC.import("AppKit");
function run() {
  const board = $.NSPasteboard.generalPasteboard;
  const kinds = [["public.png", "image/png"], ["public.jpeg", "image/jpeg"],
                 ["com.compuserve.gif", "image/gif"], ["org.webmproject.webp", "image/webp"]];
  for (const [uti, mime] of kinds) {
    const data = board.dataForType(uti);
    if (!data.isNil() && data.length > 0) return mime + " " + data.base64EncodedStringWithOptions(0).js;
  }
  const tiff = board.dataForType("public.tiff");
  if (tiff.isNil() || tiff.length === 0) return "";
  const png = $.NSBitmapImageRep.imageRepWithData(tiff).representationUsingTypeProperties(
    $.NSBitmapImageFileTypePNG, $({}));
  return png.isNil() ? "" : "image/png " + png.base64EncodedStringWithOptions(0).js;
}"""
"""Prints `<mime> <base64>` of the pasteboard's image (nothing when there is none)."""


async def _output(argv: list[str], env: Mapping[str, str], timeout: float) -> bytes | None:
    """The tool's stdout when it exits 0 in time, else None."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return None
    return out if proc.returncode == 0 else None


def _tools(environ: Mapping[str, str], platform: str) -> list[str]:
    if platform == "darwin":
        return ["osascript", "pbpaste"]
    tools = []
    if environ.get("WAYLAND_DISPLAY"):
        tools.append("wl-paste")
    if environ.get("DISPLAY"):
        tools.append("xclip")
    return tools


async def _read_mac(path: str, env: Mapping[str, str], timeout: float) -> ClipboardContent | None:
    """Copied files, else an image, through `osascript`; None when neither is there (text comes next)."""
    listed = await _output([path, "-l", "JavaScript", "-e", MAC_FILES_SCRIPT], env, timeout)
    if listed is None:
        return None
    files = tuple(line for line in listed.decode("utf-8", errors="replace").split("\n") if line.strip())
    if files:
        return ClipboardContent(files=files)
    found = await _output([path, "-l", "JavaScript", "-e", MAC_IMAGE_SCRIPT], env, timeout)
    mime, _, encoded = (found or b"").decode("ascii", errors="replace").strip().partition(" ")
    if mime not in IMAGE_TYPES or not encoded:
        return None
    try:
        return ClipboardContent(image=base64.b64decode(encoded, validate=True), mime=mime)
    except (binascii.Error, ValueError):
        return None


async def _read_with(tool: str, path: str, env: Mapping[str, str], timeout: float) -> ClipboardContent | None:
    if tool == "osascript":
        return await _read_mac(path, env, timeout)
    if tool == "pbpaste":
        out = await _output([path], env, timeout)
        return None if out is None else ClipboardContent(text=out.decode("utf-8", errors="replace"))
    if tool == "wl-paste":
        types, image_cmd, text_cmd = [path, "--list-types"], [path, "--type"], [path, "--no-newline"]
    else:
        sel = ["-selection", "clipboard"]
        types, image_cmd, text_cmd = [path, *sel, "-t", "TARGETS", "-o"], [path, *sel, "-o", "-t"], [path, *sel, "-o"]
    listed = await _output(types, env, timeout)
    if listed is None:
        return None
    offered = listed.decode(errors="replace").split()
    mime = next((t for t in IMAGE_TYPES if t in offered), None)
    if mime is not None:
        data = await _output([*image_cmd, mime], env, timeout)
        if data:
            return ClipboardContent(image=data, mime=mime)
    text = await _output(text_cmd, env, timeout)
    return ClipboardContent(text=(text or b"").decode("utf-8", errors="replace"))


async def read_clipboard(
    environ: Mapping[str, str], *, platform: str | None = None, timeout: float = 3.0
) -> ClipboardContent:
    """An image (preferred) or the text on the clipboard. Raises `ClipboardReadError`."""
    plat = platform or sys.platform
    tried = []
    for tool in _tools(environ, plat):
        path = shutil.which(tool, path=environ.get("PATH"))
        if path is None:
            if tool != "osascript":  # without it, macOS still has its text through pbpaste
                tried.append(f"{tool} not found")
            continue
        content = await _read_with(tool, path, environ, timeout)
        if content is not None:
            return content
        if tool != "osascript":  # no files and no image: the text is asked for next
            tried.append(f"{tool} failed")
    if not tried:
        raise ClipboardReadError("no clipboard is reachable here (no display and no macOS pasteboard)")
    raise ClipboardReadError("; ".join(tried))
