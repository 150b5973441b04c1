from __future__ import annotations

from collections.abc import Iterator

import pytest

from pi.ai.faux import FauxProvider, register_faux_provider
from tests.support.http_server import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A loopback server with scripted responses; see tests/support/http_server.py."""
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def keep_alive_server() -> Iterator[ScriptedServer]:
    """Like `server`, but connections stay open between responses, as with real API servers."""
    srv = ScriptedServer(keep_alive=True).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    """A scripted model registered for the test; see `pi.ai.faux`."""
    provider = register_faux_provider()
    try:
        yield provider
    finally:
        provider.unregister()
