"""Shared test doubles for the OAuth tests: a fake clock, a scripted login UI, loopback stubs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from pi.app.oauth.errors import LoginCancelled
from pi.app.oauth.interaction import DeviceCode, SelectOption
from tests.support.http_server import ScriptedServer


class FakeClock:
    """Time that only moves when slept through; records every sleep."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.t = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


@dataclass
class ScriptedInteraction:
    """Answers prompts from lists; `on_auth_url` runs as a task when a sign-in URL is shown."""

    texts: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    pasted: str | None = None
    """What `manual_code` returns; None = wait until cancelled (the callback wins)."""
    on_auth_url: Callable[[str], Any] | None = None
    events: list[tuple[str, Any]] = field(default_factory=list)
    manual_cancelled: bool = False
    manual_started: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)

    async def text(self, message: str, placeholder: str | None = None, allow_empty: bool = False) -> str:
        self.events.append(("text", message))
        if not self.texts:
            raise LoginCancelled()
        return self.texts.pop(0)

    async def secret(self, message: str) -> str:
        self.events.append(("secret", message))
        if not self.secrets:
            raise LoginCancelled()
        return self.secrets.pop(0)

    async def select(self, message: str, options: list[SelectOption]) -> str | None:
        return options[0].id if options else None

    async def manual_code(self, message: str) -> str:
        self.events.append(("manual_code", message))
        self.manual_started.set()
        if self.pasted is not None:
            return self.pasted
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.manual_cancelled = True
            raise
        raise AssertionError("unreachable")

    def auth_url(self, url: str, instructions: str | None = None) -> None:
        self.events.append(("auth_url", url))
        self.events.append(("instructions", instructions))
        if self.on_auth_url is not None:
            result = self.on_auth_url(url)
            if asyncio.iscoroutine(result):
                self.tasks.append(asyncio.get_running_loop().create_task(result))

    def device_code(self, code: DeviceCode) -> None:
        self.events.append(("device_code", code))

    def progress(self, message: str) -> None:
        self.events.append(("progress", message))

    def info(self, message: str) -> None:
        self.events.append(("info", message))

    def urls(self) -> list[str]:
        return [value for kind, value in self.events if kind == "auth_url"]


@pytest.fixture
def stub() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
