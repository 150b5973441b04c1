from __future__ import annotations

import asyncio
import io
import os

import pytest

from pi.app.oauth.console import ConsoleInteraction
from pi.app.oauth.errors import LoginCancelled
from pi.app.oauth.interaction import DeviceCode, SelectOption


async def test_prints_url_and_device_code_and_reads_answers() -> None:
    out = io.StringIO()
    ui = ConsoleInteraction(io.StringIO("\n  typed  \n"), out)
    ui.auth_url("https://example.test/auth", "Extra hint")
    ui.device_code(DeviceCode("AB-12", "https://example.test/device"))
    assert await ui.text("Value:") == "typed"
    text = out.getvalue()
    assert "Open this URL to sign in:\n  https://example.test/auth\nExtra hint\n" in text
    assert "Open https://example.test/device and enter code: AB-12\nWaiting for authentication...\n" in text
    assert await ui.select("Method", [SelectOption("a", "A"), SelectOption("b", "B")]) == "a"


async def test_end_of_input_cancels() -> None:
    with pytest.raises(LoginCancelled):
        await ConsoleInteraction(io.StringIO(""), io.StringIO()).manual_code("Paste:")


async def test_a_pending_paste_can_be_abandoned() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd) as reader, os.fdopen(write_fd, "w") as writer:
        task = asyncio.ensure_future(ConsoleInteraction(reader, io.StringIO()).manual_code("Paste:"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        writer.write("late\n")
