"""The `read` tool on images: detection by content and inline limits (tools.md §3.6, conformance §8.4)."""

from __future__ import annotations

import base64
import io
import random
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image
from pydantic import TypeAdapter

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.abort import AbortController
from pi.ai.types import ImageContent, ImageResize, TextContent
from pi.tools import images
from pi.tools.fs_errors import FileToolError
from pi.tools.images import (
    MAX_INLINE_BASE64_BYTES,
    ProcessedImage,
    detect_image_mime_type,
    detect_unsupported_image,
    fit_within,
    process_image,
)
from pi.tools.read import ReadParams, ReadToolDetails, ReadToolOptions, create_read_tool
from tests.tools.worker_trips import count_worker_trips


def encode(image: Image.Image, kind: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **params)
    return buffer.getvalue()


def png(width: int = 1, height: int = 1) -> bytes:
    return encode(Image.new("RGB", (width, height), (200, 30, 30)), "PNG")


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def apng() -> bytes:
    data = png()
    ihdr_end = 8 + 25
    return data[:ihdr_end] + chunk(b"acTL", struct.pack(">II", 1, 0)) + data[ihdr_end:]


def texts(result: AgentToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


def image_blocks(result: AgentToolResult) -> list[ImageContent]:
    return [block for block in result.content if isinstance(block, ImageContent)]


async def read(tool: AgentTool[ReadParams], path: str, **extra: int) -> AgentToolResult:
    return await tool.execute("id", ReadParams(path=path, **extra), None, None)


@pytest.fixture
def tool(tmp_path: Path) -> AgentTool[ReadParams]:
    return create_read_tool(str(tmp_path))


async def test_c42_png_named_txt_is_an_image(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    data = png()
    (tmp_path / "image.txt").write_bytes(data)
    result = await read(tool, "image.txt")
    assert texts(result) == ["Read image file [image/png]"]
    [block] = image_blocks(result)
    assert block.mime_type == "image/png"
    assert base64.b64decode(block.data) == data
    assert result.details is None


async def test_c43_text_named_png_is_text(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "not-an-image.png").write_text("definitely not a png")
    result = await read(tool, "not-an-image.png")
    assert texts(result) == ["definitely not a png"]
    assert image_blocks(result) == []


@pytest.mark.parametrize(
    ("kind", "mime"), [("GIF", "image/gif"), ("WEBP", "image/webp"), ("JPEG", "image/jpeg")], ids=str
)
async def test_c44_other_formats(tool: AgentTool[ReadParams], tmp_path: Path, kind: str, mime: str) -> None:
    (tmp_path / "pic.bin").write_bytes(encode(Image.new("RGB", (3, 2)), kind))
    result = await read(tool, "pic.bin")
    assert texts(result) == [f"Read image file [{mime}]"]
    assert image_blocks(result)[0].mime_type == mime


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"GIF87a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
    ],
)
def test_c44_signatures(head: bytes, mime: str) -> None:
    assert detect_image_mime_type(head) == mime


async def test_c45_jpeg_ls_gets_a_note_not_garbage(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # D17: pi decodes such a file as text; we say what it is instead.
    (tmp_path / "x.jls").write_bytes(b"\xff\xd8\xff\xf7" + bytes(range(1, 200)))
    result = await read(tool, "x.jls")
    [text] = texts(result)
    assert text.startswith("Read image file [image/jls]\n[Image omitted: image/jls cannot be attached inline.")
    assert image_blocks(result) == []
    assert detect_image_mime_type(b"\xff\xd8\xff\xf7") is None


async def test_c46_animated_png_gets_a_note(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "anim.png").write_bytes(apng())
    result = await read(tool, "anim.png")
    assert texts(result)[0].startswith("Read image file [image/apng]\n[Image omitted:")
    assert image_blocks(result) == []
    assert detect_unsupported_image(png()) is None


async def test_c47_text_starting_with_gif_stays_text(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # A full GIF87a/GIF89a signature is required (as in 1.6.0): this stays a text file.
    (tmp_path / "notes.txt").write_text("GIF is a format\n")
    assert texts(await read(tool, "notes.txt")) == ["GIF is a format\n"]


def bmp(width: int = 2, height: int = 2) -> bytes:
    return encode(Image.new("RGB", (width, height), (0, 0, 255)), "BMP")


async def test_c48_bmp_without_pillow_is_omitted_with_a_note(
    tool: AgentTool[ReadParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(images, "pillow_available", lambda: False)
    (tmp_path / "b.bmp").write_bytes(bmp())
    result = await read(tool, "b.bmp")
    assert texts(result) == [
        "Read image file [image/bmp]\n[Image omitted: could not be converted to a supported inline image format.]"
    ]
    assert image_blocks(result) == []


class Recorder:
    def __init__(self, result: ProcessedImage) -> None:
        self.result = result
        self.calls: list[tuple[str, bool]] = []

    async def __call__(
        self, data: bytes, mime_type: str, *, auto_resize: bool, profile: ImageResize | None = None
    ) -> ProcessedImage:
        self.calls.append((mime_type, auto_resize))
        return self.result


async def test_c49_processor_failure(tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(png())
    processor = Recorder(ProcessedImage(ok=False, message="boom"))
    tool = create_read_tool(str(tmp_path), ReadToolOptions(image_processor=processor))
    result = await read(tool, "p.png")
    assert texts(result) == ["Read image file [image/png]\nboom"]
    assert image_blocks(result) == []


@pytest.mark.parametrize("auto_resize", [True, False])
async def test_c50_processor_success(tmp_path: Path, auto_resize: bool) -> None:
    (tmp_path / "p.png").write_bytes(png())
    processor = Recorder(ProcessedImage(ok=True, data="QQ==", mime_type="image/jpeg", hints=["h1", "h2"]))
    options = ReadToolOptions(image_processor=processor, auto_resize_images=auto_resize)
    result = await read(create_read_tool(str(tmp_path), options), "p.png")
    assert texts(result) == ["Read image file [image/jpeg]\nh1\nh2"]
    assert image_blocks(result) == [ImageContent(data="QQ==", mime_type="image/jpeg")]
    assert processor.calls == [("image/png", auto_resize)]


async def test_c51_bmp_is_converted_to_png(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "b.bmp").write_bytes(bmp())
    result = await read(tool, "b.bmp")
    assert texts(result) == ["Read image file [image/png]\n[Image converted from image/bmp to image/png.]"]
    [block] = image_blocks(result)
    assert block.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(block.data))).size == (2, 2)


async def test_c52_wide_image_is_scaled_down(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "wide.png").write_bytes(png(4000, 1000))
    result = await read(tool, "wide.png")
    [text] = texts(result)
    assert text == (
        "Read image file [image/png]\n[Image: original 4000x1000, displayed at 2000x500. "
        "Multiply coordinates by 2.00 to map to original image.]"
    )
    [block] = image_blocks(result)
    assert Image.open(io.BytesIO(base64.b64decode(block.data))).size == (2000, 500)


def test_scaled_photo_is_sent_in_the_smaller_encoding() -> None:
    # 1.6.0: at each size the smaller of PNG and JPEG is tried first; for photo-like noise that is JPEG.
    photo = Image.frombytes("RGB", (2400, 600), random.Random(3).randbytes(2400 * 600 * 3))
    result = process_image(encode(photo, "PNG"), "image/png")
    assert result.ok and result.mime_type == "image/jpeg"
    flat = process_image(png(4000, 1000), "image/png")
    assert flat.ok and flat.mime_type == "image/png"  # a flat image compresses better as PNG


async def test_c53_resizing_can_be_turned_off(tmp_path: Path) -> None:
    data = png(4000, 1000)
    (tmp_path / "wide.png").write_bytes(data)
    tool = create_read_tool(str(tmp_path), ReadToolOptions(auto_resize_images=False))
    result = await read(tool, "wide.png")
    assert texts(result) == ["Read image file [image/png]"]
    assert base64.b64decode(image_blocks(result)[0].data) == data


async def test_c54_offset_and_limit_are_ignored_for_images(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(png())
    result = await read(tool, "p.png", offset=50, limit=2)
    assert texts(result) == ["Read image file [image/png]"]
    assert len(image_blocks(result)) == 1


async def test_c55_model_without_image_input(tmp_path: Path) -> None:
    # 1.6.0: no note in the text; the details name the model, and the image is replaced per request.
    (tmp_path / "p.png").write_bytes(png())
    tool = create_read_tool(str(tmp_path), ReadToolOptions(unsupported_image_model=lambda: "text-only-1"))
    result = await read(tool, "p.png")
    assert texts(result) == ["Read image file [image/png]"]
    assert len(image_blocks(result)) == 1
    assert result.details.image_unsupported_by_model == "text-only-1"
    assert TypeAdapter(ReadToolDetails).dump_python(result.details, by_alias=True)["imageUnsupportedByModel"] == (
        "text-only-1"
    )


async def test_an_omitted_image_names_no_model_that_could_not_take_it(tmp_path: Path) -> None:
    # As in pi: the note is about an image that went to the model; an omitted one went nowhere.
    (tmp_path / "cut.png").write_bytes(png(400, 100)[:60])
    tool = create_read_tool(str(tmp_path), ReadToolOptions(unsupported_image_model=lambda: "text-only-1"))
    result = await read(tool, "cut.png")
    assert image_blocks(result) == [] and result.details is None


async def test_vision_model_gets_no_image_details(tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(png())
    result = await read(create_read_tool(str(tmp_path), ReadToolOptions(unsupported_image_model=lambda: None)), "p.png")
    assert result.details is None


async def test_image_structured_content(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    data = png()
    (tmp_path / "p.png").write_bytes(data)
    result = await read(tool, "p.png")
    assert result.structured_content == {
        "type": "image",
        "data": base64.b64encode(data).decode(),
        "mimeType": "image/png",
        "note": "Read image file [image/png]",
    }


async def test_c56_aborted(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(png())
    controller = AbortController()
    controller.abort()
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await tool.execute("id", ReadParams(path="p.png"), controller.signal, None)


# --- processing details ---------------------------------------------------------------------------


def test_images_within_limits_come_back_unchanged() -> None:
    data = png(50, 40)
    result = process_image(data, "image/png")
    assert result.ok and base64.b64decode(result.data) == data and result.hints == []


def test_oversized_payload_is_reencoded_below_the_limit() -> None:
    # Noise does not compress: as PNG it is over the inline limit even though its size is fine.
    noise = Image.frombytes("RGB", (1200, 1200), random.Random(7).randbytes(1200 * 1200 * 3))
    result = process_image(encode(noise, "BMP"), "image/bmp")
    assert result.ok and result.mime_type == "image/jpeg"
    assert len(result.data) < MAX_INLINE_BASE64_BYTES
    assert result.hints == [
        "[Image converted from image/bmp to image/png.]",
        "[Image: original 1200x1200, displayed at 1200x1200. Multiply coordinates by 1.00 to map to original image.]",
    ]


def test_without_pillow_images_pass_through_or_are_omitted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "pillow_available", lambda: False)
    data = png(4000, 1000)
    assert base64.b64decode(process_image(data, "image/png").data) == data
    huge = b"\x89PNG" + bytes(MAX_INLINE_BASE64_BYTES)
    assert process_image(huge, "image/png").message == (
        "[Image omitted: could not be resized below the inline image size limit.]"
    )


async def test_truncated_image_is_omitted(tool: AgentTool[ReadParams], tmp_path: Path) -> None:
    # Its size cannot be known without decoding it, and a provider would reject the whole request.
    (tmp_path / "cut.png").write_bytes(png(400, 100)[:60])
    result = await read(tool, "cut.png")
    assert texts(result) == [
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
    ]
    assert image_blocks(result) == []


async def test_image_too_large_to_decode_is_omitted(
    tool: AgentTool[ReadParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pillow refuses to decode more than twice MAX_IMAGE_PIXELS (a decompression bomb, e.g. 30000x30000);
    # lowering the threshold trips the same check with a small file.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    (tmp_path / "bomb.png").write_bytes(png(100, 100))
    result = await read(tool, "bomb.png")
    assert texts(result) == [
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
    ]
    assert image_blocks(result) == []


def test_undecodable_image_passes_through_when_resizing_is_off() -> None:
    # Nothing has to be decoded then, as in pi: an inline type is sent as it is.
    data = b"\xff\xd8\xff\xe0" + b"not really a jpeg"
    result = process_image(data, "image/jpeg", auto_resize=False)
    assert result.ok and base64.b64decode(result.data) == data


def test_undecodable_image_that_needs_converting_is_omitted() -> None:
    assert process_image(b"BM" + bytes(60), "image/bmp").message == (
        "[Image omitted: could not be converted to a supported inline image format.]"
    )


@pytest.mark.parametrize(
    ("size", "fitted"),
    [((4000, 1000), (2000, 500)), ((1000, 4000), (500, 2000)), ((3000, 3000), (2000, 2000)), ((10, 10), (10, 10))],
)
def test_fit_within(size: tuple[int, int], fitted: tuple[int, int]) -> None:
    assert fit_within(*size, 2000, 2000) == fitted


def test_bmp_structure_checks() -> None:
    assert detect_image_mime_type(bmp()) == "image/bmp"
    assert detect_image_mime_type(b"BM" + bytes(40)) is None
    assert detect_image_mime_type(b"BMW text that starts like a bitmap") is None


async def test_a_small_image_is_read_from_disk_once(
    tool: AgentTool[ReadParams], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = png()
    (tmp_path / "image.png").write_bytes(data)
    reads = count_worker_trips(monkeypatch)
    result = await read(tool, "image.png")
    [block] = image_blocks(result)
    assert base64.b64decode(block.data) == data
    assert [name for name in reads if name.startswith("_read")] == ["_read_small"]
