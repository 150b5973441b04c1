"""Crashes and concurrent writers: a killed writer leaves a loadable file, two appenders never mix lines."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pi.ai.types import UserMessage
from pi.session import SessionManager
from tests.session.builders import assistant, user

_WRITER = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path
    from pi.ai.types import UserMessage
    from pi.session import SessionManager

    manager = SessionManager.open(Path(sys.argv[1]))
    go = Path(sys.argv[2])
    count = int(sys.argv[3])
    size = int(sys.argv[4])
    tag = sys.argv[5]
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    i = 0
    while count < 0 or i < count:
        manager.append_message(UserMessage(content=f"{tag}-{i}-" + tag[0] * size))
        i += 1
    """
)


def _seed(tmp_path: Path) -> Path:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("hi"))
    manager.append_message(assistant("hello"))
    file = manager.get_session_file()
    assert file is not None
    return file


def _spawn(file: Path, go: Path, count: int, size: int, tag: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(file), str(go), str(count), str(size), tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def test_a_writer_killed_mid_session_leaves_a_file_that_loads(tmp_path: Path) -> None:
    file = _seed(tmp_path)
    go = tmp_path / "go"
    writer = _spawn(file, go, -1, 20_000, "k")
    go.touch()
    deadline = time.monotonic() + 20
    while file.stat().st_size < 2_000_000 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    assert writer.returncode == -signal.SIGKILL

    raw = file.read_bytes().split(b"\n")
    complete = [line for line in raw if line.strip() and _parses(line)]
    manager = SessionManager.open(file)
    assert len(manager.get_entries()) == len(complete) - 1 > 50
    assert len(manager.warnings) <= 1
    manager.append_message(user("resumed"))
    again = SessionManager.open(file)
    message = again.build_session_context().messages[-1]
    assert isinstance(message, UserMessage) and message.content == "resumed"


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def test_two_processes_appending_never_interleave_lines(tmp_path: Path) -> None:
    file = _seed(tmp_path)
    go = tmp_path / "go"
    count, size = 150, 40_000
    writers = [_spawn(file, go, count, size, tag) for tag in ("alpha", "beta")]
    go.touch()
    for writer in writers:
        assert writer.wait(timeout=60) == 0
    lines = file.read_text().splitlines()
    assert len(lines) == 3 + 2 * count
    texts = [json.loads(line)["message"]["content"] for line in lines[3:]]
    for tag in ("alpha", "beta"):
        mine = [t for t in texts if t.startswith(f"{tag}-")]
        assert [t.split("-")[1] for t in mine] == [str(i) for i in range(count)]
        assert all(t.endswith(tag[0] * size) for t in mine)
    assert SessionManager.open(file).warnings == []


def _fill_disk_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next write stores half its bytes and then fails as a full disk does."""
    real_write = os.write
    state = {"failed": False}

    def write(fd: int, data: bytes) -> int:
        if state["failed"] or b'"type":"message"' not in bytes(data):
            return real_write(fd, data)
        state["failed"] = True
        real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", write)


def test_a_write_cut_short_by_a_full_disk_is_rolled_back_and_later_entries_stay_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_message(user("hi"))
    hello = manager.append_message(assistant("hello"))
    with monkeypatch.context() as patch:
        _fill_disk_once(patch)
        with pytest.raises(OSError, match="No space left"):
            manager.append_message(user("while the disk was full"))
    assert manager.get_leaf_id() == hello and manager.get_entry_count() == 2
    later = manager.append_message(user("after space was freed"))
    assert manager.get_entry(later).parent_id == hello  # type: ignore[union-attr]
    file = manager.get_session_file()
    assert file is not None
    reopened = SessionManager.open(file)
    roles = [m.role for m in reopened.build_session_context().messages]
    assert roles == ["user", "assistant", "user"] and reopened.get_leaf_id() == later
    assert len(reopened.warnings) == 1  # the torn half line, skipped


def test_a_first_write_cut_short_leaves_no_broken_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_model_change("prov", "m1")
    file = manager.get_session_file()
    assert file is not None
    with monkeypatch.context() as patch:
        _fill_disk_once(patch)
        with pytest.raises(OSError, match="No space left"):
            manager.append_message(user("hi"))
    assert not file.exists() and manager.get_entry_count() == 1
    manager.append_message(user("again"))
    reopened = SessionManager.open(file)
    assert [e.type for e in reopened.get_entries()] == ["model_change", "message"]
    assert reopened.warnings == []
