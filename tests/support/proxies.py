"""Loopback proxies that open a tunnel and then relay bytes: an HTTP CONNECT proxy and a SOCKS5 proxy.

Each records what the client asked for (the tunnel's target and the credentials it sent), so a test
can check both that a request went through the proxy and how it asked. A proxy can be told to refuse
(CONNECT with a status, SOCKS5 with a reply code) to check what the client says then.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from typing import ClassVar, Self


@dataclass
class Tunnel:
    target: str
    credentials: str | None = None


def _relay(a: socket.socket, b: socket.socket) -> None:
    def pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    other = threading.Thread(target=pump, args=(b, a), daemon=True)
    other.start()
    pump(a, b)
    other.join(timeout=30)


def _read_exact(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        piece = sock.recv(count - len(data))
        if not piece:
            raise ConnectionError("client went away")
        data += piece
    return data


@dataclass
class _Proxy:
    """A threaded loopback proxy; subclasses name their URL scheme and connection handler."""

    tunnels: list[Tunnel] = field(default_factory=list)
    refuse: int | None = None
    server: socketserver.ThreadingTCPServer | None = None
    SCHEME: ClassVar[str] = ""

    def handle(self, client: socket.socket) -> None:
        raise NotImplementedError

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"{self.SCHEME}://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                with contextlib.suppress(ConnectionError, OSError):
                    proxy.handle(self.request)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()


class ConnectProxy(_Proxy):
    """An HTTP proxy that only tunnels: CONNECT host:port, answered 200 (or `refuse`), then bytes both ways."""

    SCHEME = "http"

    def handle(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            piece = client.recv(4096)
            if not piece:
                return
            head += piece
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        self.tunnels.append(Tunnel(target, headers.get("proxy-authorization")))
        if method != "CONNECT" or self.refuse is not None:
            status = self.refuse or 405
            client.sendall(f"HTTP/1.1 {status} No\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode())
            return
        host, _, port = target.rpartition(":")
        upstream = socket.create_connection((host.strip("[]"), int(port)))
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        _relay(client, upstream)


class Socks5Proxy(_Proxy):
    """A SOCKS5 proxy taking no login or a username and password, connecting by host name."""

    SCHEME = "socks5"

    def handle(self, client: socket.socket) -> None:
        version, count = _read_exact(client, 2)
        methods = _read_exact(client, count)
        credentials = None
        if 2 in methods:
            client.sendall(b"\x05\x02")
            _read_exact(client, 1)
            user = _read_exact(client, _read_exact(client, 1)[0]).decode()
            password = _read_exact(client, _read_exact(client, 1)[0]).decode()
            credentials = f"{user}:{password}"
            client.sendall(b"\x01\x00")
        else:
            client.sendall(b"\x05\x00")
        _, command, _, address_type = _read_exact(client, 4)
        assert version == 5 and command == 1 and address_type == 3
        host = _read_exact(client, _read_exact(client, 1)[0]).decode()
        port = int.from_bytes(_read_exact(client, 2), "big")
        self.tunnels.append(Tunnel(f"{host}:{port}", credentials))
        if self.refuse is not None:
            client.sendall(bytes([5, self.refuse, 0, 1, 0, 0, 0, 0, 0, 0]))
            return
        upstream = socket.create_connection((host, port))
        client.sendall(b"\x05\x00\x00\x01\x7f\x00\x00\x01" + port.to_bytes(2, "big"))
        _relay(client, upstream)
