"""The Markdown component: pi's block layout, inline styles and streaming cache."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.tui.markdown import Markdown
from pi.tui.text_width import strip_ansi, visible_width
from pi.tui.theme import Theme, builtin_theme

DARK = builtin_theme("dark")

SUMMARY = """Done. Summary:

| function | change |
|---|---|
| `add` | docstring |
| `mul` | new |

```python
def mul(a, b):
    return a * b
```

See [the docs](https://example.com/docs) for more."""


def plain(lines: list[str]) -> list[str]:
    return [strip_ansi(line) for line in lines]


def test_turn_summary_matches_the_reference_capture() -> None:
    md = Markdown(SUMMARY, DARK, padding_x=1)
    assert plain(md.render(110)) == [
        " Done. Summary:",
        "",
        " ┌──────────┬───────────┐",
        " │ function │ change    │",
        " ├──────────┼───────────┤",
        " │ add      │ docstring │",
        " ├──────────┼───────────┤",
        " │ mul      │ new       │",
        " └──────────┴───────────┘",
        "",
        " ```python",
        "   def mul(a, b):",
        "       return a * b",
        " ```",
        "",
        " See the docs (https://example.com/docs) for more.",
    ]


def test_inline_styles_use_theme_tokens() -> None:
    md = Markdown("**b** *i* ~~s~~ `code` [t](http://x.y)", DARK)
    (line,) = md.render(80)
    assert "\x1b[1mb\x1b[22m" in line
    assert "\x1b[3mi\x1b[23m" in line
    assert "\x1b[9ms\x1b[29m" in line
    assert DARK.fg("mdCode", "code") in line and "`" not in line
    assert DARK.fg("mdLinkUrl", " (http://x.y)") in line
    assert "\x1b[4m" + DARK.fg_code("mdLink") + "t" in line


def test_headings() -> None:
    md = Markdown("# One\n\n## Two\n\n### Three", DARK)
    lines = md.render(40)
    assert plain(lines) == ["One", "", "Two", "", "### Three"]
    assert lines[0].startswith("\x1b[4m\x1b[1m" + DARK.fg_code("mdHeading"))
    assert lines[2].startswith("\x1b[1m" + DARK.fg_code("mdHeading")) and "\x1b[4m" not in lines[2]


def test_lists_keep_numbers_nest_by_four_and_show_task_boxes() -> None:
    md = Markdown("1. first\n1. again\n7. seven\n\n* a\n  + b\n- [ ] todo\n- [x] done", DARK)
    assert plain(md.render(40)) == [
        "1. first",
        "1. again",
        "7. seven",
        "",
        "- a",
        "    - b",
        "",
        "- ☐ todo",
        "- ☑ done",
    ]
    assert md.render(40)[0].startswith(DARK.fg("mdListBullet", "1. "))


def test_list_item_continuation_is_indented_under_its_text() -> None:
    md = Markdown("- " + "word " * 10, Theme.plain())
    assert md.render(20) == ["- word word word", "  word word word", "  word word word", "  word"]


def test_quote_rule_and_code_block_borders() -> None:
    md = Markdown("> said *so*\n\n---\n\n```\nraw\n```", DARK)
    lines = md.render(100)
    assert plain(lines) == ["│ said so", "", "─" * 80, "", "```", "  raw", "```"]
    assert lines[0].startswith(DARK.fg("mdQuoteBorder", "│ "))
    assert "\x1b[3m" in lines[0]
    assert plain(Markdown("---", DARK).render(30)) == ["─" * 30]
    assert lines[4] == DARK.fg("mdCodeBlockBorder", "```")


def test_code_is_highlighted_with_syntax_tokens() -> None:
    lines = Markdown("```python\ndef f():\n    return 1  # c\n```", DARK).render(60)
    assert DARK.fg("syntaxKeyword", "def") in lines[1]
    assert DARK.fg("syntaxNumber", "1") in lines[2]
    assert DARK.fg("syntaxComment", "# c") in lines[2]
    unknown = Markdown("```nosuchlang\nx y\n```", DARK).render(60)
    assert unknown[1] == "  " + DARK.fg("mdCodeBlock", "x y")


def test_hyperlinks_use_osc8_when_enabled() -> None:
    (line,) = Markdown("[site](https://a.b/c)", DARK, hyperlinks=True).render(40)
    assert "\x1b]8;;https://a.b/c\x1b\\" in line and line.endswith("\x1b]8;;\x1b\\")
    assert strip_ansi(line) == "site"
    assert plain(Markdown("<https://a.b>", DARK).render(40)) == ["https://a.b"]


def test_wide_table_wraps_cells_within_width() -> None:
    text = "| name | description |\n|---|---|\n| x | " + "long words here " * 6 + "|"
    lines = Markdown(text, DARK).render(30)
    assert all(visible_width(line) <= 30 for line in lines)
    rows = plain(lines)
    assert rows[0].startswith("┌") and rows[-1].startswith("└")
    assert len(rows) > 5
    assert all(row.endswith(("┐", "│", "┤", "┘")) for row in rows)


@pytest.mark.parametrize("width", [1, 5, 12, 33, 80])
def test_no_line_exceeds_the_width(width: int) -> None:
    text = SUMMARY + "\n\n# A heading that is long\n\n- item " + "x" * 50 + "\n\n> quote " + "y " * 40
    for line in Markdown(text, DARK, padding_x=1).render(width):
        assert visible_width(line) <= max(width, 1)


LONG_DOC = "\n\n".join(
    [
        f"## Section {i}\n\nParagraph {i} with **bold** and `code` and a [link](http://e.com/{i}).\n\n"
        f"- item {i}\n- item {i}b\n\n```python\nx = {i}\n```\n\n| a | b |\n|---|---|\n| {i} | z |"
        for i in range(40)
    ]
)


def test_streaming_renders_the_same_lines_as_a_whole_render() -> None:
    whole = Markdown(LONG_DOC, DARK, padding_x=1).render(70)
    streamed = Markdown("", DARK, padding_x=1)
    for pos in range(0, len(LONG_DOC), 7):
        streamed.set_text(LONG_DOC[: pos + 7])
        streamed.render(70)
    assert streamed.render(70) == whole


def test_streaming_renders_each_finished_block_once() -> None:
    md = Markdown("", DARK)
    steps = 0
    for match in re.finditer(r"\S+\s*", LONG_DOC):
        md.set_text(LONG_DOC[: match.end()])
        md.render(70)
        steps += 1
    blocks = len(re.findall(r"\n\n", LONG_DOC)) + 1
    # One render per frame for the trailing block plus one per finished block: linear, not quadratic.
    assert md.block_renders <= steps + blocks
    before = md.block_renders
    md.render(70)
    assert md.block_renders == before


def test_unclosed_fence_while_streaming_has_no_closing_border() -> None:
    md = Markdown("```python\nx = 1", DARK)
    assert plain(md.render(40)) == ["```python", "  x = 1"]
    md.append("\n```")
    assert plain(md.render(40)) == ["```python", "  x = 1", "```"]


def test_base_style_applies_to_plain_runs() -> None:
    def style(text: str) -> str:
        return DARK.italic(DARK.fg("thinkingText", text))

    (line,) = Markdown("plain **bold**", DARK, base_style=style).render(40)
    assert line.startswith("\x1b[3m" + DARK.fg_code("thinkingText") + "plain ")
    assert "\x1b[1m\x1b[3m" in line


def test_render_is_cached_until_text_changes() -> None:
    md = Markdown("hello", DARK)
    first = md.render(20)
    assert md.render(20) is first
    md.set_text("hello world")
    assert plain(md.render(20)) == ["hello world"]


def test_user_text_can_keep_backslash_escapes_and_numbers() -> None:
    assert plain(Markdown(r"a \*b\* 3. x", DARK, keep_escapes=True).render(40)) == [r"a \*b\* 3. x"]
    assert plain(Markdown(r"a \*b\*", DARK).render(40)) == ["a *b*"]
    assert plain(Markdown("3. three\n4. four", DARK, keep_escapes=True).render(40)) == ["3. three", "4. four"]


def test_set_text_parses_lazily_and_theme_switch_redraws() -> None:
    md = Markdown("", DARK)
    for n in range(1, 200):
        md.set_text("word " * n)
    assert md.block_renders == 0
    assert plain(md.render(1000)) == [("word " * 199).strip()]
    light = builtin_theme("light")
    md.set_text("`x`")
    md.render(20)
    md.set_theme(light)
    assert md.render(20) == [light.fg("mdCode", "x")]


def test_bare_urls_are_links_and_single_newlines_break_lines() -> None:
    (line, second) = Markdown("see https://a.b/x. then\nnext", DARK).render(60)
    assert DARK.underline(DARK.fg("mdLink", "https://a.b/x")) in line
    assert strip_ansi(line) == "see https://a.b/x. then" and strip_ansi(second) == "next"


def test_width_change_renders_again_from_the_source() -> None:
    md = Markdown(LONG_DOC, DARK)
    narrow = md.render(50)
    wide = md.render(90)
    assert wide == Markdown(LONG_DOC, DARK).render(90)
    assert md.render(50) == narrow


FRAGMENTS = [
    "# h",
    "## h2",
    "text",
    " ",
    "\n",
    "\n\n",
    "- ",
    "1. ",
    "> ",
    "**b**",
    "*i*",
    "`c`",
    "```",
    "py",
    "|",
    "---",
    "[l](http://x)",
    "    ",
    "~~s~~",
    "日本",
    "x" * 30,
    "2",
    ".",
    "*",
    "=",
    "#",
    "  ",
    "+",
    "<",
    "http://u.v",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30), st.integers(min_value=1, max_value=40), st.integers(1, 9))
def test_streaming_in_any_steps_equals_whole_render(parts: list[str], width: int, step: int) -> None:
    text = "".join(parts)
    whole = Markdown(text, DARK, padding_x=1).render(width)
    streamed = Markdown("", DARK, padding_x=1)
    for end in range(0, len(text) + step, step):
        streamed.set_text(text[:end])
        for line in streamed.render(width):
            assert visible_width(line) <= width
    assert streamed.render(width) == whole


@pytest.mark.parametrize("text", ["- text\n**b** more", "1. a\n\n2. b", "para\n#x", "> q\nlazy"])
def test_a_block_is_not_frozen_before_the_next_line_is_known(text: str) -> None:
    streamed = Markdown("", DARK)
    for end in range(len(text) + 1):
        streamed.set_text(text[:end])
        streamed.render(30)
    assert streamed.render(30) == Markdown(text, DARK).render(30)
