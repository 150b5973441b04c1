"""A termination signal that lands while a command starts must not leave its process behind."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.tools import shell
from pi.tools.shell import kill_tracked_process_groups, run_shell_command


class Unwound(Exception):
    """What the stand-in for the program's SIGTERM handler raises after killing the tracked groups."""


@pytest.fixture
def program_sigterm_handler() -> Iterator[list[int]]:
    """Install a handler shaped like the CLI's: kill every tracked group, then unwind."""
    seen: list[int] = []

    def on_term(signum: int, frame: object) -> None:
        seen.append(signum)
        kill_tracked_process_groups()
        raise Unwound()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)


async def test_sigterm_between_spawn_and_recording_still_kills_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program_sigterm_handler: list[int]
) -> None:
    spawned: list[subprocess.Popen[bytes]] = []
    original = shell._spawn

    def spawn_then_signal(*args: Any) -> tuple[subprocess.Popen[bytes], int]:
        started = original(*args)
        spawned.append(started[0])
        os.kill(os.getpid(), signal.SIGTERM)  # handled at the next bytecode: before the group is recorded
        return started

    monkeypatch.setattr(shell, "_spawn", spawn_then_signal)
    try:
        with pytest.raises(Unwound):
            await run_shell_command("exec sleep 47.19", str(tmp_path), on_data=lambda data: None)
        assert program_sigterm_handler == [signal.SIGTERM]
        (proc,) = spawned
        assert proc.wait(timeout=10) == -signal.SIGKILL
    finally:
        for proc in spawned:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


async def test_the_handlers_are_restored_after_a_command_starts(tmp_path: Path) -> None:
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    chunks: list[bytes] = []
    result = await run_shell_command("echo started", str(tmp_path), on_data=chunks.append)
    assert result.exit_code == 0
    assert b"".join(chunks) == b"started\n"
    assert {number: signal.getsignal(number) for number in before} == before
