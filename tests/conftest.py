from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.http_server import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A loopback server with scripted responses; see tests/support/http_server.py."""
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()
