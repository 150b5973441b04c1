"""What a script's `image(v)` accepts: inline base64 PNG, JPEG, GIF or WebP, never a remote URL."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+)?(;[^,]*)?;base64,(.*)$", re.DOTALL)
SUPPORTED = ("image/png", "image/jpeg", "image/gif", "image/webp")


class ImageError(ValueError):
    """An `image()` argument that cannot be shown; the message tells the script what to pass."""

    js_type = "TypeError"


def sniff_mime(raw: bytes) -> str | None:
    """The image type from the file's first bytes (the declared type may be wrong)."""
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if raw.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if raw.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return None


def _decode(data: str) -> bytes:
    try:
        return base64.b64decode(re.sub(r"\s+", "", data), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ImageError(f"image() data is not valid base64: {error}") from error


def image_item(spec: dict[str, Any]) -> dict[str, Any]:
    """`{type: "image", data, mimeType}` for a `{url}` or `{data, mimeType}` spec from the prelude."""
    url = spec.get("url")
    if isinstance(url, str):
        match = DATA_URL.match(url.strip())
        if match is None:
            if re.match(r"^[a-z][a-z0-9+.-]*://", url.strip(), re.IGNORECASE):
                raise ImageError("image() does not fetch remote URLs; pass a base64 data: URL or image data")
            raise ImageError("image() takes a base64 data: URL such as data:image/png;base64,...")
        data = match.group(3)
    else:
        data = spec.get("data")
        if not isinstance(data, str) or not data:
            raise ImageError('image() needs {type: "image", data: <base64>, mimeType}')
    raw = _decode(data)
    mime = sniff_mime(raw)
    if mime is None:
        raise ImageError(f"image() supports {', '.join(SUPPORTED)}; the data is none of them")
    return {"type": "image", "data": base64.b64encode(raw).decode("ascii"), "mimeType": mime}


__all__ = ["SUPPORTED", "ImageError", "image_item", "sniff_mime"]
