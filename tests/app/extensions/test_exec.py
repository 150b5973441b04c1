"""`pi.exec`: no shell, timeouts, aborts and the output cap (extension spec §1.4, AC 20)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pi.ai.abort import AbortController
from pi.app.extensions import exec as exec_module
from pi.app.extensions.exec import exec_command

from .conftest import load_files, write


async def api(tmp_path: Path):  # type: ignore[no-untyped-def]
    loaded = await load_files(write(tmp_path / "e.py", "def setup(pi):\n    pass\n"))
    return next(iter(loaded.loader.apis.values()))


async def test_timeout_kills_with_sigterm(tmp_path: Path) -> None:
    pi = await api(tmp_path)
    started = time.monotonic()
    result = await pi.exec("sleep", ["5"], timeout_ms=100)
    assert result.killed is True
    assert result.code == 143
    assert time.monotonic() - started < 4


async def test_output_over_max_buffer_is_truncated_and_killed(tmp_path: Path) -> None:
    pi = await api(tmp_path)
    result = await pi.exec("yes", [], max_buffer=10)
    assert result.truncated is True
    assert result.killed is True
    assert result.stdout == "y\n" * 5
    assert result.code != 0


async def test_no_shell_and_session_cwd(tmp_path: Path) -> None:
    pi = await api(tmp_path)
    result = await pi.exec("echo", ["a; echo b", "$HOME"])
    assert (result.stdout, result.code, result.killed, result.truncated) == ("a; echo b $HOME\n", 0, False, False)
    here = await pi.exec("pwd")
    assert here.stdout.strip() == str(tmp_path)
    other = await pi.exec("pwd", cwd="/")
    assert other.stdout.strip() == "/"


async def test_exit_code_and_stderr(tmp_path: Path) -> None:
    pi = await api(tmp_path)
    result = await pi.exec("sh", ["-c", "echo oops >&2; exit 3"])
    assert (result.stderr, result.code, result.killed) == ("oops\n", 3, False)


async def test_missing_program_is_a_result_not_an_exception(tmp_path: Path) -> None:
    result = await exec_command("definitely-not-a-program-here", cwd=tmp_path)
    assert result.code == 1
    assert "definitely-not-a-program-here" in result.stderr


async def test_abort_signal_stops_the_program(tmp_path: Path) -> None:
    controller = AbortController()
    pending = exec_command("sleep", ["5"], cwd=tmp_path, signal=controller.signal)
    import asyncio

    task = asyncio.ensure_future(pending)
    await asyncio.sleep(0.05)
    controller.abort()
    result = await asyncio.wait_for(task, 4)
    assert (result.killed, result.code) == (True, 143)
    aborted = await exec_command("echo", ["never"], cwd=tmp_path, signal=controller.signal)
    assert aborted.stdout == "" and aborted.killed


async def test_sigkill_after_the_grace_period(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exec_module, "KILL_GRACE_SECONDS", 0.2)
    script = write(tmp_path / "stubborn.sh", "trap '' TERM\necho ready\nwhile true; do sleep 0.05; done\n")
    result = await exec_command("sh", [str(script)], cwd=tmp_path, timeout_ms=300)
    assert (result.killed, result.code) == (True, 137)
    assert result.stdout == "ready\n"
