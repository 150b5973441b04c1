"""The helpers module re-exports what extension authors need, from where pi keeps it."""

from __future__ import annotations

from pathlib import Path

from pi.app.extensions import helpers


async def test_helpers_work(tmp_path: Path) -> None:
    assert helpers.DEFAULT_MAX_BYTES == 50 * 1024 and helpers.DEFAULT_MAX_LINES == 2000
    assert helpers.truncate_head("a\nb\nc", max_lines=2).content == "a\nb"
    assert helpers.format_size(2048) == "2.0KB"
    assert helpers.matches_key("\x1b", "escape")
    assert helpers.CONFIG_DIR_NAME == ".pi"
    assert helpers.builtin_theme("dark").name == "dark"
    target = tmp_path / "f.txt"

    async def mutate() -> str:
        target.write_text("x")
        return "done"

    assert await helpers.with_file_mutation_queue(str(target), mutate) == "done"
    assert helpers.generate_diff_string("old\n", "new\n").diff == "-1 old\n+1 new"
    assert set(helpers.__all__) <= set(dir(helpers))
