"""One loopback HTTP server on a free port, served from a daemon thread.

Every fake server of the tests (model APIs, a llama.cpp router, OAuth gateways, package indexes)
differs only in its request handler; binding, serving, the base URL and shutting down are here.
Being a thread, it serves in-process tests and `pi` subprocesses alike.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseRequestHandler
from types import TracebackType
from typing import Any, Self


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that keeps the test output free of access-log lines."""

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackHTTP:
    """`handler` served on 127.0.0.1 at a port the kernel picks; `start()` first, `stop()` when done.

    With `tls` (a server context) it speaks https.
    """

    def __init__(self, handler: Callable[..., BaseRequestHandler], tls: ssl.SSLContext | None = None) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, or ``https://`` with `tls`."""
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the socket and wait for the serving thread (idempotent)."""
        if self._thread.is_alive():
            self.httpd.shutdown()
            self._thread.join()
        self.httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


__all__ = ["LoopbackHTTP", "QuietHandler"]
