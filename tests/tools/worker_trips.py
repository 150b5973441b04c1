"""Counting the read tool's trips to a worker thread, for tests that bound the file I/O of one read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest


def count_worker_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each call the read tool's local operations hand to a worker thread."""
    trips: list[str] = []
    original = asyncio.to_thread

    async def counting(func: Callable[..., object], /, *args: object, **kwargs: object) -> object:
        trips.append(getattr(func, "__name__", repr(func)))
        return await original(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counting)  # the module pi.tools.read calls it through
    return trips
