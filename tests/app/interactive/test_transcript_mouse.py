"""Which transcript item a clicked document line belongs to."""

from __future__ import annotations

from pi.app.modes.interactive.transcript_mouse import component_at_line
from pi.tui.component import Container, Text


def test_innermost_component_of_a_line() -> None:
    first, second, third = Text("a\nb"), Text("c"), Text("d\ne")
    inner = Container([second, third])
    document = Container([first, inner])
    width = 20
    assert [component_at_line(document, width, n) for n in range(5)] == [first, first, second, third, third]
    assert component_at_line(document, width, 5) is None
