"""Serialise every mutation of one file, so parallel tool calls never lose an update.

Tool calls of one assistant message run concurrently. Two `edit` calls on the same file each read,
change and write it back; without a queue the second write silently discards the first. Every
mutation (the whole read-modify-write, abort checks included) therefore runs inside
`with_file_mutation_queue`, which lets mutations of different files overlap but runs those of one
file one after the other, in the order they were registered.

The queue key is the canonical path (symlinks followed), so `a.txt`, `./a.txt`, `/abs/a.txt` and a
link to it share one chain once the file exists. `read` and `bash` never wait here.
"""

from __future__ import annotations

import asyncio
import errno
import os
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

_MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR})


def mutation_key(path: str) -> str:
    """The canonical absolute path of `path`; the absolute path itself while the file does not exist.

    Any other failure (a symlink loop, a permission problem) is raised: guessing a key there could
    let two writers of one file run at once.
    """
    absolute = os.path.abspath(path)
    try:
        return os.path.realpath(absolute, strict=True)
    except OSError as exc:
        if exc.errno in _MISSING_ERRNOS:
            return absolute
        raise


class FileMutationQueue:
    """One FIFO chain per file key; chains of different keys run independently.

    Registration (computing the key and attaching to the tail) happens synchronously, before the
    first await, so two callers can never attach to the same tail. A finished, failed or cancelled
    mutation always releases the next one, and a drained chain leaves no entry behind.
    """

    def __init__(self) -> None:
        self._tails: dict[str, asyncio.Future[None]] = {}

    def __len__(self) -> int:
        """Number of files with mutations running or waiting."""
        return len(self._tails)

    async def run(self, path: str, fn: Callable[[], Awaitable[T]]) -> T:
        key = mutation_key(path)
        loop = asyncio.get_running_loop()
        previous = self._tails.get(key)
        done: asyncio.Future[None] = loop.create_future()
        self._tails[key] = done

        def release(_: object = None) -> None:
            if not done.done():
                done.set_result(None)
            if self._tails.get(key) is done:
                del self._tails[key]

        try:
            if previous is not None and not previous.done():
                await asyncio.shield(previous)
            return await fn()
        finally:
            if previous is None or previous.done():
                release()
            else:
                # Cancelled while waiting: hand over only once the one ahead has finished too.
                previous.add_done_callback(release)


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, FileMutationQueue] = weakref.WeakKeyDictionary()


def default_mutation_queue() -> FileMutationQueue:
    """The process-wide queue (one per event loop, since futures belong to a loop)."""
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = FileMutationQueue()
        _queues[loop] = queue
    return queue


async def with_file_mutation_queue(
    path: str, fn: Callable[[], Awaitable[T]], queue: FileMutationQueue | None = None
) -> T:
    """Run `fn` once every earlier mutation of the same file has finished.

    Extension tools that change files should use this too, so they cannot race `edit` and `write`.
    """
    return await (queue or default_mutation_queue()).run(path, fn)


__all__ = ["FileMutationQueue", "default_mutation_queue", "mutation_key", "with_file_mutation_queue"]
