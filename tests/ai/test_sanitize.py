"""Lone surrogates: dropped for the wire, shown as U+FFFD for people and files."""

from __future__ import annotations

from pi.ai.sanitize import replace_surrogates, sanitize_surrogates


def test_the_wire_drops_lone_surrogates_and_keeps_real_characters() -> None:
    assert sanitize_surrogates("a\ud83db \U0001f600") == "ab \U0001f600"
    text = "nothing to drop"
    assert sanitize_surrogates(text) is text


def test_a_file_or_diff_shows_each_lone_surrogate_as_a_replacement_character() -> None:
    assert replace_surrogates("x\udcff\ud800y") == "x\ufffd\ufffdy"
    assert replace_surrogates("x\udcffy", "?") == "x?y"
