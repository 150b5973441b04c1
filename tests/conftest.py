"""Fixtures shared by the whole suite, and the environment every process the tests start inherits."""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.ai.faux import FauxProvider, register_faux_provider
from tests.support.http_server import ScriptedServer


def _share_compiled_modules() -> None:
    """Let the `pi` processes the tests start reuse each other's compiled modules.

    The suite starts well over a thousand `python -m pi` processes from the checkout, where no
    bytecode is written when PYTHONDONTWRITEBYTECODE is set (as on some CI machines): each of them
    would compile pi's modules from source again, which costs more CPU than most of the tests. With
    a bytecode directory outside the tree, every module is compiled once and then loaded as an
    installed package loads it. Python checks each cached file against its source, so an edit is
    never served stale. Set at import, before pytest-xdist starts its workers, so that they and
    every process they start inherit it.
    """
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    cache = Path(tempfile.gettempdir()) / f"pi-tests-bytecode-{os.getuid()}"
    cache.mkdir(mode=0o700, exist_ok=True)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_share_compiled_modules()


def _hear_interrupts() -> None:
    """Make sure the `pi` processes the tests start can be interrupted, however the suite was started.

    A shell starts a background job (``cmd &``, ``nohup``) with SIGINT ignored, every process it starts
    inherits that, and Python leaves an ignored SIGINT ignored: the tests that interrupt pi would wait
    for a process that never hears them. With a handler installed here, each `exec` resets SIGINT to
    its default in the children, as in a suite started from a terminal.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_hear_interrupts()


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
