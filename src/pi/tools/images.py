"""Recognising image files by their bytes, and making them fit what a model accepts inline.

A file's name says nothing reliable about its content (screenshots saved as `.txt`, text saved as
`.png`), so only the leading bytes decide. Images go to the model as base64 attachments, which
providers cap in size and dimensions; with Pillow installed (the `images` extra) big images are
scaled down and BMP is converted to PNG, without it images within the limits pass unchanged and
the rest are replaced by a note the model can act on.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import math
import struct
from collections.abc import Awaitable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field

if TYPE_CHECKING:
    from pi.ai.types import ImageResize

IMAGE_SNIFF_BYTES = 4100
"""How much of a file is read to decide whether it is an image."""

MAX_IMAGE_WIDTH = 2000
MAX_IMAGE_HEIGHT = 2000
MAX_INLINE_BASE64_BYTES = 4_718_592
"""4.5 MiB of base64: above this providers reject the attachment."""

JPEG_QUALITIES = (80, 85, 70, 55, 40)
"""The profile's quality first (80 by default), then these in turn until the image fits."""
SHRINK_FACTOR = 0.75

INLINE_MIME_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

CONVERSION_FAILED = "[Image omitted: could not be converted to a supported inline image format.]"
RESIZE_FAILED = "[Image omitted: could not be resized below the inline image size limit.]"


# --- detection ------------------------------------------------------------------------------------

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_is_animated(head: bytes) -> bool:
    """An `acTL` chunk before the first `IDAT` marks an APNG."""
    offset = 8
    while offset + 8 <= len(head):
        length = struct.unpack(">I", head[offset : offset + 4])[0]
        kind = head[offset + 4 : offset + 8]
        if kind == b"acTL":
            return True
        if kind == b"IDAT":
            return False
        offset += 12 + length
    return False


def _is_png(head: bytes) -> bool:
    return (
        head.startswith(_PNG_SIGNATURE)
        and len(head) >= 16
        and struct.unpack(">I", head[8:12])[0] == 13
        and head[12:16] == b"IHDR"
    )


def _is_bmp(head: bytes) -> bool:
    if len(head) < 26 or not head.startswith(b"BM"):
        return False
    declared_size, pixel_offset, dib_size = struct.unpack("<I4xII", head[2:18])
    if declared_size != 0 and declared_size < 26:
        return False
    if dib_size == 12:
        planes, bpp = struct.unpack("<HH", head[22:26])
    elif 40 <= dib_size <= 124 and len(head) >= 30:
        planes, bpp = struct.unpack("<HH", head[26:30])
    else:
        return False
    if pixel_offset < 14 + dib_size or (declared_size != 0 and pixel_offset >= declared_size):
        return False
    return planes == 1 and bpp in (1, 4, 8, 16, 24, 32)


def detect_image_mime_type(head: bytes) -> str | None:
    """MIME type of a supported still image from the file's first bytes, or None (read it as text).

    GIF needs the full `GIF87a`/`GIF89a` signature, so a text file starting with "GIF" stays text.
    """
    if head.startswith(b"\xff\xd8\xff") and head[3:4] != b"\xf7":
        return "image/jpeg"
    if _is_png(head) and not _png_is_animated(head):
        return "image/png"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if _is_bmp(head):
        return "image/bmp"
    return None


def detect_unsupported_image(head: bytes) -> str | None:
    """MIME type of an image variant that cannot be shown inline (animated PNG, JPEG-LS), else None.

    Such files would otherwise be decoded as text and fill the context with binary noise.
    """
    if head.startswith(b"\xff\xd8\xff\xf7"):
        return "image/jls"
    if _is_png(head) and _png_is_animated(head):
        return "image/apng"
    return None


def unsupported_image_note(mime_type: str) -> str:
    return (
        f"[Image omitted: {mime_type} cannot be attached inline. "
        "Convert it to a still PNG or JPEG with a shell tool if you need to see it.]"
    )


# --- processing -----------------------------------------------------------------------------------


class ProcessedImage(Struct, frozen=True):
    """Either an attachment (`data` is base64) or, when `ok` is false, a note that replaces it."""

    ok: bool
    data: str = ""
    mime_type: str = ""
    hints: list[str] = field(default_factory=list)
    message: str = ""


class _Limits(Struct, frozen=True):
    max_width: int = MAX_IMAGE_WIDTH
    max_height: int = MAX_IMAGE_HEIGHT
    max_bytes: int = MAX_INLINE_BASE64_BYTES
    jpeg_quality: int = JPEG_QUALITIES[0]

    @classmethod
    def of(cls, profile: ImageResize | None) -> _Limits:
        if profile is None:
            return cls()
        return cls(profile.max_width, profile.max_height, profile.max_bytes, profile.jpeg_quality)

    @property
    def qualities(self) -> tuple[int, ...]:
        return (self.jpeg_quality, *(q for q in JPEG_QUALITIES if q != self.jpeg_quality))


class ImageProcessor(Protocol):
    """Turns image bytes into something a model accepts; replaceable (a sandbox, a remote service).

    `profile` (a model's ``inputLimits.images.resize``) is passed only when the model names one;
    without it the defaults apply (2000×2000 pixels, 4.5 MiB of base64, JPEG quality 80).
    """

    def __call__(
        self, data: bytes, mime_type: str, *, auto_resize: bool, profile: ImageResize | None = None
    ) -> Awaitable[ProcessedImage]: ...


def pillow_available() -> bool:
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64_length(size: int) -> int:
    return 4 * math.ceil(size / 3)


def process_image(
    data: bytes, mime_type: str, *, auto_resize: bool = True, profile: ImageResize | None = None
) -> ProcessedImage:
    """Make an image fit inline limits: convert what models cannot take, scale what is too big.

    The limits are `profile` (the model's resize profile), else the defaults. An image already
    within them comes back byte-for-byte unchanged. Blocking (decoding and encoding are CPU work):
    call it in a thread.
    """
    limits = _Limits.of(profile)
    if not pillow_available():
        return _pass_through(data, mime_type, limits)
    return _process_with_pillow(data, mime_type, auto_resize, limits)


async def process_image_async(
    data: bytes, mime_type: str, *, auto_resize: bool, profile: ImageResize | None = None
) -> ProcessedImage:
    """`process_image` off the event loop; the default `ImageProcessor`."""
    return await asyncio.to_thread(process_image, data, mime_type, auto_resize=auto_resize, profile=profile)


def _pass_through(data: bytes, mime_type: str, limits: _Limits) -> ProcessedImage:
    if mime_type not in INLINE_MIME_TYPES:
        return ProcessedImage(ok=False, message=CONVERSION_FAILED)
    if _b64_length(len(data)) >= limits.max_bytes:
        return ProcessedImage(ok=False, message=RESIZE_FAILED)
    return ProcessedImage(ok=True, data=_b64(data), mime_type=mime_type)


def _process_with_pillow(data: bytes, mime_type: str, auto_resize: bool, limits: _Limits) -> ProcessedImage:
    from PIL import Image, ImageOps

    hints: list[str] = []
    try:
        image: Any = Image.open(io.BytesIO(data))
        image.load()
    except Exception:
        # Pillow cannot decode it: a truncated or corrupt file, or one whose pixel count trips Pillow's
        # decompression-bomb check. Its size is then unknown, so it can be neither checked against the
        # limits nor shrunk, and a provider would reject the request it is in; as pi does, say it was
        # omitted. Without resizing nothing needs decoding, and an inline type is passed on as it is.
        if mime_type not in INLINE_MIME_TYPES:
            return ProcessedImage(ok=False, message=CONVERSION_FAILED)
        if not auto_resize:
            return _pass_through(data, mime_type, limits)
        return ProcessedImage(ok=False, message=RESIZE_FAILED)

    if mime_type not in INLINE_MIME_TYPES:
        try:
            data = _encode(image, "PNG")
        except Exception:
            return ProcessedImage(ok=False, message=CONVERSION_FAILED)
        hints.append(f"[Image converted from {mime_type} to image/png.]")
        mime_type = "image/png"

    if not auto_resize:
        return ProcessedImage(ok=True, data=_b64(data), mime_type=mime_type, hints=hints)

    width, height = image.size
    if width <= limits.max_width and height <= limits.max_height and _b64_length(len(data)) < limits.max_bytes:
        return ProcessedImage(ok=True, data=_b64(data), mime_type=mime_type, hints=hints)

    with contextlib.suppress(Exception):  # a broken EXIF block must not cost the whole image
        image = ImageOps.exif_transpose(image)
    original_width, original_height = image.size
    target_width, target_height = fit_within(original_width, original_height, limits.max_width, limits.max_height)
    while True:
        resized = image.resize((target_width, target_height), Image.Resampling.LANCZOS)
        for candidate, candidate_mime in _candidates(resized, limits.qualities):
            if _b64_length(len(candidate)) < limits.max_bytes:
                hints.append(
                    f"[Image: original {original_width}x{original_height}, "
                    f"displayed at {target_width}x{target_height}. "
                    f"Multiply coordinates by {original_width / target_width:.2f} to map to original image.]"
                )
                return ProcessedImage(ok=True, data=_b64(candidate), mime_type=candidate_mime, hints=hints)
        if target_width == 1 and target_height == 1:
            return ProcessedImage(ok=False, message=RESIZE_FAILED)
        target_width = max(1, math.floor(target_width * SHRINK_FACTOR))
        target_height = max(1, math.floor(target_height * SHRINK_FACTOR))


def fit_within(width: int, height: int, max_width: int, max_height: int) -> tuple[int, int]:
    """Scale to fit the box, keeping the aspect ratio: width first, then height, rounding."""
    if width > max_width:
        height = max(1, round(height * max_width / width))
        width = max_width
    if height > max_height:
        width = max(1, round(width * max_height / height))
        height = max_height
    return width, height


def _candidates(image: Any, qualities: tuple[int, ...]) -> Iterator[tuple[bytes, str]]:
    """The smaller of PNG and JPEG at the first quality, then the other, then JPEG at falling qualities.

    Encoded lazily where possible: the first one that fits wins.
    """
    first: list[tuple[bytes, str]] = []
    with contextlib.suppress(Exception):
        first.append((_encode(image, "PNG"), "image/png"))
    rgb = image.convert("RGB") if image.mode not in ("RGB", "L") else image
    with contextlib.suppress(Exception):
        first.append((_encode(rgb, "JPEG", quality=qualities[0]), "image/jpeg"))
    yield from sorted(first, key=lambda candidate: len(candidate[0]))
    for quality in qualities[1:]:
        with contextlib.suppress(Exception):
            yield _encode(rgb, "JPEG", quality=quality), "image/jpeg"


def _encode(image: Any, kind: str, **params: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **params)
    return buffer.getvalue()


__all__ = [
    "CONVERSION_FAILED",
    "IMAGE_SNIFF_BYTES",
    "MAX_IMAGE_HEIGHT",
    "MAX_IMAGE_WIDTH",
    "MAX_INLINE_BASE64_BYTES",
    "RESIZE_FAILED",
    "ImageProcessor",
    "ProcessedImage",
    "detect_image_mime_type",
    "detect_unsupported_image",
    "fit_within",
    "pillow_available",
    "process_image",
    "process_image_async",
    "unsupported_image_note",
]
