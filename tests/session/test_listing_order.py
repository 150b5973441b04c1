"""Sessions newest first, even when their last messages carry the same millisecond."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi.session.listing import list_sessions_in


def _write_session(directory: Path, name: str, session_id: str, *, last_ms: int) -> Path:
    header = {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-11-20T09:00:00.000Z", "cwd": "/p"}
    message = {
        "type": "message",
        "id": "00000001",
        "parentId": None,
        "timestamp": "2026-11-20T09:00:01.000Z",
        "message": {"role": "user", "content": f"from {session_id}", "timestamp": last_ms},
    }
    path = directory / name
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n", encoding="utf-8")
    return path


def test_the_later_written_of_two_equally_recent_sessions_comes_first(tmp_path: Path) -> None:
    same_ms = 1_763_629_201_000
    for later in ("a", "b"):  # whichever file name the directory lists first
        directory = tmp_path / later
        directory.mkdir()
        first = _write_session(directory, "a.jsonl", "sess-a", last_ms=same_ms)
        second = _write_session(directory, "b.jsonl", "sess-b", last_ms=same_ms)
        older, newer = (second, first) if later == "a" else (first, second)
        os.utime(older, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
        os.utime(newer, ns=(1_000_000_000_000_000_001, 1_000_000_000_000_000_001))
        infos = list_sessions_in(directory)
        assert [info.path for info in infos] == [newer, older]
        assert infos[0].modified == infos[1].modified  # the messages alone could not tell them apart
