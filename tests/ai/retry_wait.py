"""Abort exactly while the HTTP layer waits before a retry, without guessing how long that takes."""

from __future__ import annotations

import asyncio

import pytest

from pi.ai import http
from pi.ai.abort import AbortController, AbortSignal


def abort_when_retry_wait_starts(monkeypatch: pytest.MonkeyPatch, controller: AbortController) -> asyncio.Event:
    """Abort `controller` as soon as a retry wait begins; the returned event says that it began."""
    began = asyncio.Event()
    original = http.abortable_sleep

    async def sleep(seconds: float, signal: AbortSignal | None) -> bool:
        began.set()
        asyncio.get_running_loop().call_soon(controller.abort)
        return await original(seconds, signal)

    monkeypatch.setattr(http, "abortable_sleep", sleep)
    return began
