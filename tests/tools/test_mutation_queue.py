"""The file-mutation queue (tools.md §3.3) and concurrent edit/write calls (conformance §8.9)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from pathlib import Path

import pytest

from pi.agent.tool import AgentToolResult
from pi.ai.abort import AbortController
from pi.tools.edit import EditParams, EditToolOptions, LocalEditOperations, ReplaceEdit, create_edit_tool
from pi.tools.fs_errors import FileToolError
from pi.tools.mutation_queue import (
    FileMutationQueue,
    default_mutation_queue,
    mutation_key,
    with_file_mutation_queue,
)
from pi.tools.write import LocalWriteOperations, WriteParams, WriteToolOptions, create_write_tool


def edit_params(path: str, old: str, new: str) -> EditParams:
    return EditParams(path=path, edits=[ReplaceEdit(old_text=old, new_text=new)])


async def test_c113_parallel_edits_of_one_file_lose_nothing(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("".join(f"L{k}\n" for k in range(10)))
    tool = create_edit_tool(str(tmp_path))
    results = await asyncio.gather(
        *(tool.execute(f"c{k}", edit_params("f.txt", f"L{k}\n", f"M{k}\n"), None, None) for k in range(10))
    )
    assert all(isinstance(r, AgentToolResult) for r in results)
    assert target.read_text() == "".join(f"M{k}\n" for k in range(10))


async def test_c114_write_then_edit_in_one_batch_run_in_call_order(tmp_path: Path) -> None:
    write = create_write_tool(str(tmp_path))
    edit = create_edit_tool(str(tmp_path))
    await asyncio.gather(
        write.execute("w", WriteParams(path="f.txt", content="A\n"), None, None),
        edit.execute("e", edit_params("f.txt", "A", "B"), None, None),
    )
    assert (tmp_path / "f.txt").read_text() == "B\n"


class TrackedWrites(LocalWriteOperations):
    """Counts the writes in progress; each one waits for `peers` writes to be in progress at once (or a timeout).

    Writes that run one after the other never see a peer, so they only end after the timeout and
    `most_at_once` stays 1; writes that run concurrently meet at once.
    """

    def __init__(self, peers: int, patience: float) -> None:
        self.peers = peers
        self.patience = patience
        self.active = 0
        self.most_at_once = 0
        self.writes = 0
        self.met = asyncio.Event()

    async def write_file(self, path: str, data: bytes) -> None:
        self.active += 1
        self.most_at_once = max(self.most_at_once, self.active)
        if self.active >= self.peers:
            self.met.set()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.met.wait(), self.patience)
            await super().write_file(path, data)
            self.writes += 1
        finally:
            self.active -= 1


async def test_c115_all_spellings_of_one_file_share_a_queue(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("")
    (tmp_path / "link.txt").symlink_to(tmp_path / "f.txt")
    ops = TrackedWrites(peers=2, patience=0.05)
    tool = create_write_tool(str(tmp_path), WriteToolOptions(operations=ops))
    spellings = ["f.txt", "./f.txt", str(tmp_path / "f.txt"), "link.txt"]
    await asyncio.gather(
        *(tool.execute(str(n), WriteParams(path=p, content=p), None, None) for n, p in enumerate(spellings))
    )
    assert ops.writes == 4
    assert ops.most_at_once == 1
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "f.txt").read_text() == "link.txt"


async def test_c116_different_files_run_concurrently(tmp_path: Path) -> None:
    ops = TrackedWrites(peers=2, patience=30)
    tool = create_write_tool(str(tmp_path), WriteToolOptions(operations=ops))
    await asyncio.gather(
        tool.execute("1", WriteParams(path="a.txt", content="a"), None, None),
        tool.execute("2", WriteParams(path="b.txt", content="b"), None, None),
    )
    assert ops.most_at_once == 2 and ops.met.is_set()


async def test_c117_a_failing_mutation_does_not_block_the_next(tmp_path: Path) -> None:
    path = str(tmp_path / "f.txt")
    order: list[str] = []

    async def failing() -> None:
        order.append("first")
        raise RuntimeError("boom")

    async def succeeding() -> str:
        order.append("second")
        return "ok"

    first = asyncio.ensure_future(with_file_mutation_queue(path, failing))
    second = asyncio.ensure_future(with_file_mutation_queue(path, succeeding))
    with pytest.raises(RuntimeError, match="boom"):
        await first
    assert await second == "ok"
    assert order == ["first", "second"]


async def yield_to_others(rounds: int = 20) -> None:
    """Let every other ready task run its next steps (a yield, not a timed wait)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class GatedEdits(LocalEditOperations):
    """Holds the first write until released, so later edits of the file wait in the queue."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.writing = asyncio.Event()
        self.writes = 0

    async def write_file(self, path: str, data: bytes) -> None:
        self.writes += 1
        if self.writes == 1:
            self.writing.set()
            await self.release.wait()
        await super().write_file(path, data)


async def test_c118_abort_while_waiting_in_the_queue(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("one two three\n")
    ops = GatedEdits()
    tool = create_edit_tool(str(tmp_path), EditToolOptions(operations=ops))
    controller = AbortController()
    first = asyncio.ensure_future(tool.execute("1", edit_params("f.txt", "one", "1"), None, None))
    await ops.writing.wait()
    waiting = asyncio.ensure_future(tool.execute("2", edit_params("f.txt", "two", "2"), controller.signal, None))
    later = asyncio.ensure_future(tool.execute("3", edit_params("f.txt", "three", "3"), None, None))
    await yield_to_others()  # both are now queued behind the first
    controller.abort()
    ops.release.set()
    await first
    with pytest.raises(FileToolError, match=r"^Operation aborted$"):
        await waiting
    await later
    assert target.read_text() == "1 two 3\n"


async def test_fifo_order_and_no_leftover_entries(tmp_path: Path) -> None:
    queue = FileMutationQueue()
    path = str(tmp_path / "f.txt")
    order: list[int] = []

    async def step(n: int) -> None:
        await asyncio.sleep(0.001 * (5 - n))  # later registrations would finish first if not queued
        order.append(n)

    await asyncio.gather(*(queue.run(path, functools.partial(step, n)) for n in range(5)))
    assert order == [0, 1, 2, 3, 4]
    assert len(queue) == 0


async def test_cancelled_waiter_keeps_the_chain_intact(tmp_path: Path) -> None:
    queue = FileMutationQueue()
    path = str(tmp_path / "f.txt")
    gate = asyncio.Event()
    running: list[str] = []

    async def holder() -> None:
        running.append("holder")
        await gate.wait()
        running.append("holder done")

    async def victim() -> None:
        running.append("victim")

    async def third() -> None:
        running.append("third")

    first = asyncio.ensure_future(queue.run(path, holder))
    await asyncio.sleep(0)
    cancelled = asyncio.ensure_future(queue.run(path, victim))
    last = asyncio.ensure_future(queue.run(path, third))
    await asyncio.sleep(0)
    cancelled.cancel()
    await yield_to_others()
    assert running == ["holder"]  # the third must not overtake the holder
    gate.set()
    await asyncio.gather(first, last)
    assert running == ["holder", "holder done", "third"]
    assert len(queue) == 0


def test_key_follows_symlinks_and_falls_back_for_missing_files(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("")
    (tmp_path / "link.txt").symlink_to(real)
    assert mutation_key(str(tmp_path / "link.txt")) == os.path.realpath(real)
    missing = tmp_path / "missing" / "x.txt"
    assert mutation_key(str(missing)) == str(missing)
    relative = os.path.relpath(real)
    assert mutation_key(relative) == os.path.realpath(real)


def test_key_raises_on_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OSError):
        mutation_key(str(tmp_path / "a"))


async def test_default_queue_is_per_event_loop() -> None:
    assert default_mutation_queue() is default_mutation_queue()
