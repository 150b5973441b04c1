from __future__ import annotations

import asyncio

from pi.tui.component import Text
from pi.tui.flash import ERROR_SECONDS, INFO_SECONDS
from pi.tui.theme import builtin_theme
from tests.tui.screen_support import make_tui


def _started(**kwargs: object):  # type: ignore[no-untyped-def]
    tui, term, doc, dock = make_tui(40, 8, mode="fullscreen", **kwargs)
    for i in range(20):
        doc.add(Text(f"line {i}"))
    dock.add(Text("editor"))
    tui.start()
    return tui, term


async def test_flash_shows_at_the_top_right_inverse_and_goes_away() -> None:
    tui, term = _started()
    tui.show_flash("Copied!", duration=0.05)
    tui.render_now()
    top = term.display()[0]
    assert top.endswith(" Copied!")
    assert len(term.screen.display[0]) == 40
    assert term.screen.display[0][-9:] == " Copied! "  # flush with the right edge
    assert term.cell(0, 32).data == "C" and term.cell(0, 32).reverse
    assert not term.cell(0, 0).reverse
    await asyncio.wait_for(tui.flash.hidden.wait(), 10)
    tui.render_now()
    assert "Copied!" not in term.display()[0]
    assert tui.overlays == []


async def test_errors_stay_five_seconds_and_info_less() -> None:
    tui, term = _started(theme=builtin_theme("dark"))
    loop = asyncio.get_running_loop()
    tui.show_flash("Copy failed", error=True)
    hides = tui.flash.hides_at
    assert hides is not None and abs(hides - loop.time() - ERROR_SECONDS) < 1
    tui.render_now()
    assert term.display()[0].endswith("Copy failed")
    tui.show_flash("Copied!")
    hides = tui.flash.hides_at
    assert hides is not None and abs(hides - loop.time() - INFO_SECONDS) < 1
    tui.render_now()
    assert "Copy failed" not in term.display()[0]  # replaced, only one flash at a time
    assert len(tui.overlays) == 1
    tui.flash.hide()


async def test_a_flash_does_not_block_scrolling_keys() -> None:
    tui, _term = _started()
    tui.show_flash("Copied!")
    assert not tui.has_active_overlays()
    before = tui.scroll.offset
    tui.handle_input("\x1b[5~")  # PageUp
    assert tui.scroll.offset < before
    tui.flash.hide()


def test_without_a_loop_the_flash_stays_until_replaced() -> None:
    tui, _term = _started()
    tui.show_flash("Copied!")
    assert tui.flash.hides_at is None
    assert tui.flash.text == "Copied!"
    tui.flash.hide()
    assert tui.flash.text is None
