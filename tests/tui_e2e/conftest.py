from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.harness import TmuxPi, tmux_available


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def make_pi(server: ScriptedServer, tmp_path: Path) -> Iterator[object]:
    if not tmux_available():
        pytest.fail("tmux is needed for the terminal UI tests (.ci/run installs it)")
    made: list[TmuxPi] = []

    def make(settings: dict[str, object] | None = None, extended_keys: bool = True) -> TmuxPi:
        pi = TmuxPi(server, tmp_path / f"run{len(made)}", dict(settings or {}), extended_keys)
        made.append(pi)
        return pi

    yield make
    for pi in made:
        pi.close()
