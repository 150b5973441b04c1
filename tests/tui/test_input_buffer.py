from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.input_buffer import InputBuffer, escape_timeout_ms


def test_batch_is_split_into_complete_sequences() -> None:
    buf = InputBuffer(timeout_ms=10)
    data = b"ab\x1b[A\x1bOP\x1b[1;5C\x1b[<64;10;5M\x1b[<0;3;4m\x1b]11;rgb:0000/ffff/0000\x1b\\\x1b[?7u\x1bb"
    assert buf.feed(data) == [
        "a",
        "b",
        "\x1b[A",
        "\x1bOP",
        "\x1b[1;5C",
        "\x1b[<64;10;5M",
        "\x1b[<0;3;4m",
        "\x1b]11;rgb:0000/ffff/0000\x1b\\",
        "\x1b[?7u",
        "\x1bb",
    ]
    assert not buf.has_pending()


def test_partial_escape_waits_then_completes() -> None:
    buf = InputBuffer(timeout_ms=10)
    assert buf.feed(b"\x1b[1;") == []
    assert buf.has_pending()
    assert buf.feed(b"5A") == ["\x1b[1;5A"]


def test_lone_escape_is_released_by_flush() -> None:
    buf = InputBuffer(timeout_ms=10)
    assert buf.feed(b"\x1b") == []
    assert buf.flush() == ["\x1b"]
    assert buf.feed(b"\x1b\x1b") == []
    assert buf.flush() == ["\x1b", "\x1b"]
    assert buf.feed(b"\x1b[") == []
    assert buf.flush() == ["\x1b["]


def test_alt_escape_sequence_is_one_unit() -> None:
    assert InputBuffer().feed(b"\x1b\x1b[A") == ["\x1b\x1b[A"]


def test_bracketed_paste_is_one_unit_across_reads() -> None:
    buf = InputBuffer(timeout_ms=10)
    assert buf.feed(b"x\x1b[200~line one\n") == ["x"]
    assert buf.flush() == []  # a paste never times out
    assert buf.feed(b"\x1b[Aline two\x1b[20") == []
    assert buf.feed(b"1~y") == ["\x1b[200~line one\n\x1b[Aline two\x1b[201~", "y"]


def test_utf8_split_across_reads() -> None:
    buf = InputBuffer()
    data = "é中👍".encode()
    out: list[str] = []
    for i in range(len(data)):
        out += buf.feed(data[i : i + 1])
    assert out == ["é", "中", "👍"]


def test_kitty_releases_dropped_unless_asked() -> None:
    data = b"\x1b[97;1:3u\x1b[97u\x1b[1;1:3A"
    assert InputBuffer().feed(data) == ["\x1b[97u"]
    assert InputBuffer(keep_releases=True).feed(data) == ["\x1b[97;1:3u", "\x1b[97u", "\x1b[1;1:3A"]


def test_x10_mouse_report() -> None:
    assert InputBuffer().feed(b"\x1b[M !!a") == ["\x1b[M !!", "a"]


def test_escape_timeout_setting() -> None:
    assert escape_timeout_ms({}) == 10
    assert escape_timeout_ms({"PI_TUI_ESC_TIMEOUT": "25"}) == 25
    assert escape_timeout_ms({"SSH_CONNECTION": "1.2.3.4 1 5.6.7.8 22"}) == 100
    assert escape_timeout_ms({"PI_TUI_ESC_TIMEOUT": "junk"}) == 10


_units = st.sampled_from(
    [
        "a",
        "中",
        "\x1b[A",
        "\x1b[1;5C",
        "\x1b[107;5u",
        "\x1bOP",
        "\x1b[<65;2;3M",
        "\x1b[200~pasted\ntext\x1b[201~",
        "\x1bb",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_units, min_size=1, max_size=12), st.data())
def test_property_any_chunking_gives_the_same_sequences(units: list[str], data: st.DataObject) -> None:
    raw = "".join(units).encode()
    cuts = sorted(data.draw(st.sets(st.integers(min_value=1, max_value=max(1, len(raw) - 1)), max_size=6)))
    buf = InputBuffer()
    out: list[str] = []
    start = 0
    for cut in [*cuts, len(raw)]:
        out += buf.feed(raw[start:cut])
        start = cut
    out += buf.flush()
    assert out == units
