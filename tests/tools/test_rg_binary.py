"""Finding the rg binary: beside the interpreter first, then the scripts dir, pi's bin dir, PATH."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from pi.tools.rg_binary import locate_rg


def _fake_rg(directory: Path) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / ("rg.exe" if sys.platform == "win32" else "rg")
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def _locate() -> str | None:
    return locate_rg.__wrapped__()


def test_the_rg_beside_the_interpreter_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    beside = _fake_rg(tmp_path / "venv" / "bin")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    _fake_rg(tmp_path / "agent" / "bin")
    assert _locate() == beside


def test_pi_bin_dir_then_path_when_the_interpreter_has_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "empty" / "python"))
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(tmp_path / "scripts"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    on_path = _fake_rg(tmp_path / "on-path")
    monkeypatch.setenv("PATH", str(tmp_path / "on-path"))
    assert _locate() == on_path
    in_agent_dir = _fake_rg(tmp_path / "agent" / "bin")
    assert _locate() == in_agent_dir
    in_scripts = _fake_rg(tmp_path / "scripts")
    assert _locate() == in_scripts


def test_none_when_there_is_no_rg_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert _locate() is None
