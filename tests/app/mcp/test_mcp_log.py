from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pi.app.mcp import mcp_log
from pi.app.mcp.mcp_log import append_log, format_entry


def test_entry_format_with_logger_and_continuation_lines() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    assert format_entry("srv", "warning", "db", "a\nb", when) == "2026-01-02T03:04:05.678Z [srv] warning db: a\n    b\n"
    assert format_entry("srv", "info", None, {"k": 1}, when) == '2026-01-02T03:04:05.678Z [srv] info {"k": 1}\n'


def test_rotation_past_the_limit_and_write_errors_ignored(tmp_path: Path) -> None:
    path = tmp_path / "mcp.log"
    path.write_text("x" * (mcp_log.MAX_LOG_BYTES + 1))
    append_log(path, "new\n")
    assert path.read_text() == "new\n"
    assert (tmp_path / "mcp.log.1").stat().st_size == mcp_log.MAX_LOG_BYTES + 1
    blocked = tmp_path / "file"
    blocked.write_text("")
    append_log(blocked / "mcp.log", "lost\n")  # parent is a file: ignored, no exception
