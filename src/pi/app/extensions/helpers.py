"""What extension authors need besides `pi`: output truncation, the file-mutation queue, diffs,
key matching and theme access, re-exported from where pi itself keeps them.

Tools that return command or file output should cut it to `DEFAULT_MAX_BYTES` / `DEFAULT_MAX_LINES`
(`truncate_head` keeps the start, `truncate_tail` the end); tools that change files must wrap the
whole read-modify-write in `with_file_mutation_queue(path, fn)` so they never race `edit`/`write`.
"""

from __future__ import annotations

from pi.app.paths import CONFIG_DIR_NAME
from pi.tools.diff import generate_diff_string, generate_unified_patch
from pi.tools.mutation_queue import with_file_mutation_queue
from pi.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from pi.tui.keys import matches_key, parse_key
from pi.tui.theme import Theme, builtin_theme, load_theme

__all__ = [
    "CONFIG_DIR_NAME",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "Theme",
    "TruncationResult",
    "builtin_theme",
    "format_size",
    "generate_diff_string",
    "generate_unified_patch",
    "load_theme",
    "matches_key",
    "parse_key",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "with_file_mutation_queue",
]
