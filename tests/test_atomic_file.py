"""The package-wide atomic write: permissions, owner-independent modes, and nothing half-written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pi.atomic_file import write_file_atomically


def test_given_mode_applies_to_new_and_replaced_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "auth.json"
    write_file_atomically(target, "{}", 0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    target.chmod(0o644)
    write_file_atomically(target, '{"a": 1}', 0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_text() == '{"a": 1}'


def test_existing_permissions_are_kept_without_a_mode(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(0o751)
    write_file_atomically(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.read_bytes() == b"new"


def test_a_failed_rename_leaves_the_old_content_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "settings.json"
    target.write_text("old")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_file_atomically(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_symlinks_are_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_file_atomically(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
