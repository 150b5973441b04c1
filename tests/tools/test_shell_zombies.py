"""Stopping a command must not wait on processes that have already exited but were never reaped.

Where the init process does not reap orphans (many containers), a background child of an aborted
command stays a zombie in the command's process group for good. The signal probe still finds the
group, so without looking at the members' states every abort waited the whole SIGTERM grace.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.ai.abort import AbortController
from pi.tools import shell
from pi.tools.shell import CommandAborted, kill_process_group, run_shell_command

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="zombie states are read from /proc")


@pytest.fixture
def zombie_group() -> Iterator[int]:
    """A process group whose only member has exited and is left unreaped (WNOWAIT keeps the zombie)."""
    proc = subprocess.Popen(["true"], start_new_session=True)
    try:
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        os.killpg(proc.pid, 0)  # the probe the old check relied on: the zombie still answers it
        yield proc.pid
    finally:
        proc.wait()


def test_a_group_of_zombies_is_not_alive(zombie_group: int) -> None:
    assert shell._group_states(zombie_group) == ["Z"]
    assert shell._group_alive(zombie_group) is False


def test_a_group_with_a_running_member_is_alive() -> None:
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert shell._group_alive(proc.pid) is True
    finally:
        proc.kill()
        proc.wait()


async def test_stopping_a_group_of_zombies_does_not_wait_out_the_grace(zombie_group: int) -> None:
    # A grace far beyond the wait below: the old check polled the zombie until the grace ran out.
    await asyncio.wait_for(kill_process_group(zombie_group, grace_s=600), timeout=30)


async def test_abort_with_a_background_child_leaves_nothing_running(tmp_path: Path) -> None:
    controller = AbortController()
    pids: list[int] = []
    printed = asyncio.Event()

    def on_data(chunk: bytes) -> None:
        pids.extend(int(word) for word in chunk.split())
        printed.set()

    task = asyncio.create_task(
        run_shell_command(
            "sleep 77.3 & echo $! $$; exec sleep 78.3", str(tmp_path), on_data=on_data, signal=controller.signal
        )
    )
    await printed.wait()
    controller.abort()
    with pytest.raises(CommandAborted):
        await task
    background, shell_pid = pids
    for pid in (background, shell_pid):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except FileNotFoundError:
            continue  # reaped
        assert state in (b"Z", b"X"), f"{pid} still runs"
    with pytest.raises(ProcessLookupError):
        os.kill(shell_pid, signal.SIGKILL)  # the shell itself was reaped
