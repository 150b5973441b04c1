"""Inline images: the kitty graphics protocol or iTerm2 inline images, else a text placeholder.

An image takes `columns` × `rows` cells (columns from `terminal.imageWidthCells`, rows from the
aspect ratio and the cell size in pixels). Its lines keep the width rule: escapes are zero-width and
every line is otherwise blank, so the renderers treat it as empty rows the terminal paints over.

kitty: the image data is transmitted once per image (queued on the `ImageRegistry`, written by the
TUI in front of the next frame) and each line carries a zero-width marker. Before a frame is
written, the markers are replaced by one placement on the first visible row. In fullscreen the
placement is cropped to the rows inside the viewport (a source rectangle plus fewer rows), so an
image partly scrolled out shows its visible part and never covers the dock; a placement that left
the viewport is deleted. Images are drawn under the text (z = -1) so overlays stay readable.

iTerm2: one escape on the last line after moving the cursor up, regular mode only; the alternate
screen shows the placeholder, since iTerm2 draws images into the text grid and a rewrite of a row
would leave pieces behind.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import struct
from collections.abc import Callable

from msgspec import Struct

from pi.tui.capabilities import ImageProtocol
from pi.tui.text_width import truncate_to_width

__all__ = [
    "DEFAULT_CELL_SIZE",
    "Image",
    "ImageRegistry",
    "image_dimensions",
    "kitty_transmit",
    "placeholder_text",
]

DEFAULT_CELL_SIZE = (9, 18)  # (width, height) in pixels when the terminal did not say
KITTY_CHUNK = 4096
_MARKER_PREFIX = "\x1b_pi:img;"
_MARKER_RE = re.compile(r"\x1b_pi:img;(\d+);(\d+)\x07")
_ids = itertools.count(1)


def image_dimensions(data: bytes, mime_type: str = "") -> tuple[int, int] | None:
    """(width, height) in pixels read from the header of a PNG, GIF, JPEG or WebP, else None."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return (w, h)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            w, h = struct.unpack("<HH", data[6:10])
            return (w, h)
        if data.startswith(b"\xff\xd8"):
            return _jpeg_dimensions(data)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_dimensions(data)
    except struct.error:
        return None
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return (w, h)
        i += 2 + length
    return None


def _webp_dimensions(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return (w, h)
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return (w & 0x3FFF, h & 0x3FFF)
    return None


def placeholder_text(mime_type: str, size: tuple[int, int] | None) -> str:
    """`[image: image/png 800x600]`, the size left out when unknown."""
    return f"[image: {mime_type} {size[0]}x{size[1]}]" if size else f"[image: {mime_type}]"


def kitty_transmit(image_id: int, b64: str) -> str:
    """Transmit PNG data (not shown yet) as chunked `ESC _G ... ESC \\` commands, quietly."""
    chunks = [b64[i : i + KITTY_CHUNK] for i in range(0, len(b64), KITTY_CHUNK)] or [""]
    out = []
    for n, chunk in enumerate(chunks):
        more = 1 if n < len(chunks) - 1 else 0
        keys = f"a=t,f=100,t=d,i={image_id},q=2,m={more}" if n == 0 else f"m={more}"
        out.append(f"\x1b_G{keys};{chunk}\x1b\\")
    return "".join(out)


def _kitty_place(spec: _Spec, first: int, count: int) -> str:
    keys = f"a=p,i={spec.image_id},p=1,c={spec.columns},r={count},z=-1,C=1,q=2"
    if count < spec.rows:  # crop to the visible rows of the source image
        per_row = spec.pixel_height / spec.rows
        y = round(first * per_row)
        h = max(1, min(spec.pixel_height - y, round(count * per_row)))
        keys += f",x=0,y={y},w={spec.pixel_width},h={h}"
    return f"\x1b_G{keys}\x1b\\"


def _kitty_delete(image_id: int, data_too: bool = False) -> str:
    return f"\x1b_Ga=d,d={'I' if data_too else 'i'},i={image_id},q=2\x1b\\"


class _Spec(Struct, frozen=True):
    image_id: int
    columns: int
    rows: int
    pixel_width: int
    pixel_height: int


class ImageRegistry:
    """The images of one TUI: what the terminal supports, what was sent, what is placed.

    The TUI owns one (`TUI.enable_images`); image components are given it at construction.
    `fullscreen` follows the TUI's mode; `cell_size` is asked for each layout (a `CSI 16t` answer).
    """

    def __init__(
        self,
        protocol: ImageProtocol | None,
        cell_size: Callable[[], tuple[int, int] | None] | None = None,
        fullscreen: bool = False,
        show: bool = True,
    ) -> None:
        self.protocol = protocol
        self._cell_size = cell_size
        self.fullscreen = fullscreen
        self.show = show
        self._specs: dict[int, _Spec] = {}
        self._pending: list[str] = []
        self._transmitted: set[int] = set()
        self._placed: set[int] = set()

    @property
    def active_protocol(self) -> ImageProtocol | None:
        """The protocol images use right now (iTerm2 is off on the alternate screen)."""
        if not self.show or self.protocol is None:
            return None
        if self.protocol == "iterm2" and self.fullscreen:
            return None
        return self.protocol

    def cell_size(self) -> tuple[int, int]:
        size = self._cell_size() if self._cell_size is not None else None
        if size and size[0] > 0 and size[1] > 0:
            return size
        return DEFAULT_CELL_SIZE

    def new_id(self) -> int:
        return next(_ids) % 0xFFFFFF or next(_ids)

    def transmit(self, spec: _Spec, b64: str) -> None:
        self._specs[spec.image_id] = spec
        if spec.image_id not in self._transmitted:
            self._transmitted.add(spec.image_id)
            self._pending.append(kitty_transmit(spec.image_id, b64))

    def discard(self, image_id: int) -> None:
        """Forget an image and free the terminal's copy."""
        self._specs.pop(image_id, None)
        if image_id in self._transmitted:
            self._transmitted.discard(image_id)
            self._placed.discard(image_id)
            self._pending.append(_kitty_delete(image_id, data_too=True))

    def take_output(self) -> str:
        """Transmissions and deletions to write before the next frame's rows."""
        out = "".join(self._pending)
        self._pending.clear()
        return out

    def resolve(self, rows: list[str], crop: bool) -> list[str]:
        """Markers replaced by placements: one per image, on its first row among `rows`.

        With `crop` (the fullscreen viewport) an image with rows outside `rows` is cropped to the
        visible ones, and images placed before but absent now get their placement deleted.
        """
        if not self._specs and not self._placed:
            return rows
        seen: dict[int, tuple[int, int, int]] = {}  # id -> (row position, first index, count)
        hits = [i for i, row in enumerate(rows) if _MARKER_PREFIX in row]
        if not hits and not (crop and self._placed):
            return rows
        for pos in hits:
            for m in _MARKER_RE.finditer(rows[pos]):
                image_id, index = int(m.group(1)), int(m.group(2))
                if image_id in seen:
                    p, first, count = seen[image_id]
                    seen[image_id] = (p, first, count + 1)
                else:
                    seen[image_id] = (pos, index, 1)
        out = list(rows)
        for pos in hits:
            out[pos] = _MARKER_RE.sub("", out[pos])
        placed: set[int] = set()
        for image_id, (pos, first, count) in seen.items():
            spec = self._specs.get(image_id)
            if spec is None or (not crop and first != 0):
                continue
            shown = count if crop else spec.rows
            out[pos] = _kitty_place(spec, first, shown) + out[pos]
            placed.add(image_id)
        if crop:
            self._pending.extend(_kitty_delete(i) for i in sorted(self._placed - placed))
            self._placed = placed
        return out


class Image:
    """An image in the transcript (a tool result, a pasted screenshot)."""

    def __init__(
        self,
        data: bytes | str,
        mime_type: str,
        registry: ImageRegistry | None = None,
        *,
        width_cells: int = 60,
        placeholder_style: Callable[[str], str] | None = None,
    ) -> None:
        if isinstance(data, str):
            self.b64 = data
            try:
                raw = base64.b64decode(data[:65536].encode("ascii"), validate=False)
            except (binascii.Error, ValueError):
                raw = b""
        else:
            raw = data
            self.b64 = base64.b64encode(data).decode("ascii")
        self.mime_type = mime_type
        self.size = image_dimensions(raw, mime_type)
        self.registry = registry
        self.width_cells = max(1, width_cells)
        self.placeholder_style = placeholder_style
        self.image_id = registry.new_id() if registry is not None else 0
        self._key: tuple[object, ...] = ()
        self._lines: list[str] = []

    def invalidate(self) -> None:
        self._key = ()

    def dispose(self) -> None:
        """The component is gone for good: free the terminal's copy of the image."""
        if self.registry is not None:
            self.registry.discard(self.image_id)

    def protocol(self) -> ImageProtocol | None:
        """The protocol this image is drawn with now, None for the placeholder."""
        reg = self.registry
        if reg is None or self.size is None or self.size[0] <= 0 or self.size[1] <= 0:
            return None
        proto = reg.active_protocol
        if proto == "kitty" and self.mime_type != "image/png":
            return None  # kitty's direct format is PNG; other formats would need decoding
        return proto

    def cells(self, width: int) -> tuple[int, int]:
        """(columns, rows) the image takes at `width`."""
        assert self.size is not None
        cell_w, cell_h = self.registry.cell_size() if self.registry else DEFAULT_CELL_SIZE
        columns = max(1, min(self.width_cells, width))
        px_w, px_h = self.size
        rows = max(1, round(columns * cell_w * px_h / (px_w * cell_h)))
        return columns, rows

    def render(self, width: int) -> list[str]:
        proto = self.protocol()
        key = (width, proto, self.registry.cell_size() if self.registry else None)
        if key == self._key:
            return self._lines
        if proto is None or width <= 0:
            text = truncate_to_width(placeholder_text(self.mime_type, self.size), max(0, width))
            lines = [self.placeholder_style(text) if self.placeholder_style else text]
        elif proto == "kitty":
            lines = self._kitty_lines(width)
        else:
            lines = self._iterm_lines(width)
        self._key = key
        self._lines = lines
        return lines

    def _kitty_lines(self, width: int) -> list[str]:
        assert self.registry is not None and self.size is not None
        columns, rows = self.cells(width)
        spec = _Spec(self.image_id, columns, rows, self.size[0], self.size[1])
        self.registry.transmit(spec, self.b64)
        return [f"{_MARKER_PREFIX}{self.image_id};{i}\x07" for i in range(rows)]

    def _iterm_lines(self, width: int) -> list[str]:
        columns, rows = self.cells(width)
        size = len(self.b64) * 3 // 4
        seq = f"\x1b]1337;File=inline=1;size={size};width={columns};height={rows};preserveAspectRatio=1:{self.b64}\x07"
        up = f"\x1b[{rows - 1}A" if rows > 1 else ""
        return [""] * (rows - 1) + [up + seq]
