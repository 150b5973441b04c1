"""The default panel of a custom message without a renderer: a `[customType]` label too long for
the terminal wraps inside the panel instead of running past its edge."""

from __future__ import annotations

from pi.app.modes.interactive.components.extension_messages import DefaultCustomPanel
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import builtin_theme


def test_a_long_custom_type_label_wraps_inside_the_panel() -> None:
    custom_type = "very-long-extension-message-type-" * 3 + "end"
    panel = DefaultCustomPanel(custom_type, "the body", builtin_theme("dark"))
    width = 40
    lines = panel.render(width)
    assert all(visible_width(line) <= width for line in lines)
    text = [strip_ansi(line).strip() for line in lines]
    body_at = text.index("the body")
    label_rows = [row for row in text[:body_at] if row]
    assert len(label_rows) > 1  # wrapped, not cut
    assert "".join(label_rows).replace(" ", "") == f"[{custom_type}]"
