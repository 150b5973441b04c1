"""The exported page's Markdown: readable structure, and nothing a reply writes can become markup or script."""

from __future__ import annotations

from pi.session.markdown_html import render_markdown


def test_blocks_and_inline_markup() -> None:
    text = (
        "## Plan\n\nFirst **bold** and *it* and `x < y`.\n\n- one\n- two\n\n1. a\n2. b\n\n> quoted\n\n"
        "```py\nif a < b:\n    pass\n```"
    )
    assert render_markdown(text) == (
        "<h2>Plan</h2>"
        "<p>First <strong>bold</strong> and <em>it</em> and <code>x &lt; y</code>.</p>"
        "<ul><li>one</li><li>two</li></ul>"
        "<ol><li>a</li><li>b</li></ol>"
        "<blockquote>quoted</blockquote>"
        "<pre><code>if a &lt; b:\n    pass</code></pre>"
    )


def test_nothing_from_the_text_becomes_markup() -> None:
    evil = '<script>alert(1)</script> [click](javascript:alert(1)) [ok](https://example.com/?a=1&b="2")'
    rendered = render_markdown(evil)
    assert "<script" not in rendered and 'href="javascript' not in rendered
    assert "&lt;script&gt;" in rendered and "[click](javascript:alert(1))" in rendered
    assert '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;" rel="noopener noreferrer">ok</a>' in rendered
    assert render_markdown("`**not bold**`") == "<p><code>**not bold**</code></p>"
    assert render_markdown("snake_case_name and 2*3*4") == "<p>snake_case_name and 2*3*4</p>"
