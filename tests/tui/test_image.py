from __future__ import annotations

import base64
import re
import struct

from pi.tui.component import Container, Text
from pi.tui.fake_terminal import FakeTerminal
from pi.tui.image import Image, ImageRegistry, image_dimensions, kitty_transmit, placeholder_text
from pi.tui.text_width import visible_width
from pi.tui.tui import TUI


def png(width: int, height: int, extra: int = 0) -> bytes:
    ihdr = struct.pack(">II", width, height) + b"\x08\x06\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0" + b"\0" * extra


def jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\0" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\0" * 9
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def test_dimensions_of_common_formats() -> None:
    assert image_dimensions(png(800, 600)) == (800, 600)
    assert image_dimensions(b"GIF89a" + struct.pack("<HH", 32, 16) + b"\0" * 8) == (32, 16)
    assert image_dimensions(jpeg(640, 480)) == (640, 480)
    vp8x = b"RIFF\0\0\0\0WEBPVP8X" + b"\0" * 8 + (99).to_bytes(3, "little") + (49).to_bytes(3, "little")
    assert image_dimensions(vp8x) == (100, 50)
    assert image_dimensions(b"not an image") is None


def test_placeholder_without_support() -> None:
    img = Image(png(800, 600), "image/png")
    assert img.render(80) == ["[image: image/png 800x600]"]
    assert placeholder_text("image/gif", None) == "[image: image/gif]"
    narrow = img.render(10)
    assert visible_width(narrow[0]) <= 10
    styled = Image(png(8, 6), "image/png", placeholder_style=lambda t: f"\x1b[2m{t}\x1b[0m")
    assert styled.render(80) == ["\x1b[2m[image: image/png 8x6]\x1b[0m"]


def test_base64_input_is_accepted() -> None:
    img = Image(base64.b64encode(png(20, 10)).decode(), "image/png")
    assert img.size == (20, 10)


def test_kitty_transmit_is_chunked() -> None:
    b64 = "A" * 10000
    seq = kitty_transmit(7, b64)
    chunks = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", seq)
    assert [len(c[1]) for c in chunks] == [4096, 4096, 1808]
    assert chunks[0][0] == "a=t,f=100,t=d,i=7,q=2,m=1"
    assert [c[0] for c in chunks[1:]] == ["m=1", "m=0"]
    assert "".join(c[1] for c in chunks) == b64


def _kitty_tui(mode: str, rows: int = 12, columns: int = 80) -> tuple[TUI, FakeTerminal, Container, ImageRegistry]:
    term = FakeTerminal(columns, rows)
    doc, dock = Container(), Container()
    dock.add(Text("editor"))
    tui = TUI(term, doc, dock, mode=mode, scrollbar="hidden")  # type: ignore[arg-type]
    registry = tui.enable_images("kitty")
    return tui, term, doc, registry


def test_kitty_lines_are_blank_and_sized_by_aspect_ratio() -> None:
    registry = ImageRegistry("kitty")
    img = Image(png(800, 400), "image/png", registry, width_cells=60)
    lines = img.render(100)
    # 60 columns of 9 px = 540 px wide, 270 px high, 15 rows of 18 px
    assert len(lines) == 15
    assert all(visible_width(line) == 0 for line in lines)
    assert img.cells(40) == (40, 10)  # never wider than the space it has
    out = registry.take_output()
    assert out.count("a=t,f=100") == 1
    img.invalidate()
    img.render(100)
    assert registry.take_output() == ""  # transmitted once


def test_cell_size_from_the_terminal_changes_rows() -> None:
    _tui, term, _doc, registry = _kitty_tui("regular")
    term.feed_bytes("\x1b[6;20;10t")
    img = Image(png(100, 100), "image/png", registry, width_cells=20)
    assert img.cells(80) == (20, 10)


def test_kitty_in_regular_mode_places_the_whole_image() -> None:
    tui, term, doc, registry = _kitty_tui("regular", rows=30)
    img = Image(png(800, 400, extra=5000), "image/png", registry, width_cells=60)
    doc.add(Text("before"))
    doc.add(img)
    doc.add(Text("after"))
    tui.start()
    out = term.output
    transmit = out.index("a=t,f=100")
    place = out.index(f"a=p,i={img.image_id},p=1,c=60,r=15,z=-1,C=1,q=2")
    assert transmit < place
    assert "pi:img" not in out  # markers never reach the terminal
    shown = term.display()
    assert shown[0] == "before" and shown[16] == "after"
    assert all(row == "" for row in shown[1:16])


def _placements(out: str, image_id: int) -> list[str]:
    return re.findall(rf"\x1b_G(a=p,i={image_id},[^\x1b]*)\x1b\\", out)


def test_kitty_in_fullscreen_is_cropped_to_the_viewport() -> None:
    tui, term, doc, registry = _kitty_tui("fullscreen", rows=11)  # 10 transcript rows
    img = Image(png(800, 400), "image/png", registry, width_cells=60)  # 15 rows
    for i in range(5):
        doc.add(Text(f"top {i}"))
    doc.add(img)
    for i in range(20):
        doc.add(Text(f"bottom {i}"))
    tui.scroll.following = False
    tui.scroll.offset = 0
    tui.start()
    # rows 5..9 of the viewport show image rows 0..4: five of fifteen rows, the top third of the pixels
    assert _placements(term.output, img.image_id) == [
        f"a=p,i={img.image_id},p=1,c=60,r=5,z=-1,C=1,q=2,x=0,y=0,w=800,h=133"
    ]
    term.clear_output()
    tui.scroll.scroll_to_line(12)  # image rows 7..14 at the top of the view
    tui.render_now()
    assert _placements(term.output, img.image_id) == [
        f"a=p,i={img.image_id},p=1,c=60,r=8,z=-1,C=1,q=2,x=0,y=187,w=800,h=213"
    ]
    term.clear_output()
    tui.scroll.scroll_to_line(6)  # taller than the view: image rows 1..10 fill it, cut at both edges
    tui.render_now()
    assert _placements(term.output, img.image_id) == [
        f"a=p,i={img.image_id},p=1,c=60,r=10,z=-1,C=1,q=2,x=0,y=27,w=800,h=267"
    ]
    term.clear_output()
    tui.scroll.to_bottom()  # scrolled out entirely: the placement is deleted
    tui.render_now()
    assert f"\x1b_Ga=d,d=i,i={img.image_id},q=2\x1b\\" in term.output
    assert _placements(term.output, img.image_id) == []


def test_kitty_fullscreen_whole_image_when_it_fits() -> None:
    tui, term, doc, registry = _kitty_tui("fullscreen", rows=21)
    img = Image(png(800, 400), "image/png", registry, width_cells=60)
    doc.add(Text("x"))
    doc.add(img)
    tui.start()
    assert _placements(term.output, img.image_id) == [f"a=p,i={img.image_id},p=1,c=60,r=15,z=-1,C=1,q=2"]
    term.clear_output()
    tui.render_now()  # unchanged rows are not rewritten, the placement stays
    assert _placements(term.output, img.image_id) == []
    assert "a=d" not in term.output


def test_kitty_needs_png() -> None:
    registry = ImageRegistry("kitty")
    img = Image(jpeg(64, 32), "image/jpeg", registry)
    assert img.render(80) == ["[image: image/jpeg 64x32]"]


def test_dispose_frees_the_terminal_copy() -> None:
    registry = ImageRegistry("kitty")
    img = Image(png(10, 10), "image/png", registry)
    img.render(80)
    registry.take_output()
    img.dispose()
    assert registry.take_output() == f"\x1b_Ga=d,d=I,i={img.image_id},q=2\x1b\\"


def test_iterm2_in_regular_mode_and_placeholder_in_fullscreen() -> None:
    term = FakeTerminal(80, 30)
    doc, dock = Container(), Container()
    tui = TUI(term, doc, dock, mode="regular")
    registry = tui.enable_images("iterm2")
    data = png(800, 400)
    img = Image(data, "image/png", registry, width_cells=60)
    lines = img.render(80)
    assert len(lines) == 15 and all(visible_width(line) == 0 for line in lines)
    b64 = base64.b64encode(data).decode()
    assert lines[-1] == (
        f"\x1b[14A\x1b]1337;File=inline=1;size={len(b64) * 3 // 4};width=60;height=15;preserveAspectRatio=1:{b64}\x07"
    )
    assert lines[:-1] == [""] * 14
    doc.add(img)
    tui.start()
    tui.set_mode("fullscreen")
    assert img.render(80) == ["[image: image/png 800x400]"]
    tui.set_mode("regular")
    assert len(img.render(80)) == 15
    tui.stop()


def test_show_images_off_gives_the_placeholder() -> None:
    registry = ImageRegistry("kitty", show=False)
    assert Image(png(4, 4), "image/png", registry).render(80) == ["[image: image/png 4x4]"]
