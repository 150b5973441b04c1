"""Images sized by a model's resize profile (`inputLimits.images.resize`) instead of the fixed defaults."""

from __future__ import annotations

import base64
import io
import random
from pathlib import Path

from PIL import Image

from pi.ai.types import ImageContent, ImageResize, TextContent
from pi.tools.images import process_image
from pi.tools.read import ReadParams, ReadToolOptions, create_read_tool


def encode(image: Image.Image, kind: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **params)
    return buffer.getvalue()


def size_of(data: str) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        return image.size


def noise(width: int, height: int) -> Image.Image:
    rng = random.Random(7)
    return Image.frombytes("RGB", (width, height), bytes(rng.randrange(256) for _ in range(width * height * 3)))


def test_the_profiles_pixel_box_replaces_the_default_one() -> None:
    data = encode(Image.new("RGB", (1000, 800), (10, 200, 10)), "PNG")
    assert process_image(data, "image/png").data == base64.b64encode(data).decode()  # within the defaults
    result = process_image(data, "image/png", profile=ImageResize(max_width=500, max_height=500))
    assert result.ok and size_of(result.data) == (500, 400)
    assert result.hints == [
        "[Image: original 1000x800, displayed at 500x400. Multiply coordinates by 2.00 to map to original image.]"
    ]


def test_the_profiles_byte_limit_shrinks_an_image_within_the_pixel_box() -> None:
    photo = noise(300, 300)
    data = encode(photo, "PNG")
    limit = 40_000
    assert len(base64.b64encode(data)) > limit
    result = process_image(data, "image/png", profile=ImageResize(max_bytes=limit))
    assert result.ok and len(result.data) < limit
    assert process_image(data, "image/png").data == base64.b64encode(data).decode()


def test_the_profiles_jpeg_quality_is_tried_first() -> None:
    photo = noise(200, 200)
    data = encode(photo, "PNG")
    profile = ImageResize(max_width=100, max_height=100, jpeg_quality=30)
    result = process_image(data, "image/png", profile=profile)
    resized = photo.resize((100, 100), Image.Resampling.LANCZOS)
    assert result.mime_type == "image/jpeg"
    assert base64.b64decode(result.data) == encode(resized, "JPEG", quality=30)


async def test_read_asks_for_the_profile_of_the_model_at_each_call(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(encode(Image.new("RGB", (1200, 600), (1, 2, 3)), "PNG"))
    profiles: list[ImageResize | None] = [ImageResize(max_width=300, max_height=300), None]
    tool = create_read_tool(str(tmp_path), ReadToolOptions(image_resize=lambda: profiles[0]))

    first = await tool.execute("1", ReadParams(path="big.png"), None, None)
    [image] = [b for b in first.content if isinstance(b, ImageContent)]
    assert size_of(image.data) == (300, 150)
    [note] = [b.text for b in first.content if isinstance(b, TextContent)]
    assert "original 1200x600, displayed at 300x150" in note

    profiles[0] = None  # another model, without a profile of its own: the defaults
    second = await tool.execute("2", ReadParams(path="big.png"), None, None)
    [image] = [b for b in second.content if isinstance(b, ImageContent)]
    assert size_of(image.data) == (1200, 600)
