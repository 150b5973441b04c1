"""An HTTP response as the wire APIs read it: status, headers, and a body decoded as it streams.

The body is read chunk by chunk (an SSE reply can run for minutes) and undone of its
``Content-Encoding`` on the way (gzip or deflate, which we offer): a provider or a proxy in between
may compress even an event stream. Failures below HTTP, while connecting or halfway through the
body, arrive as `TransportError`, one type for the providers to catch whatever the transport
underneath raised.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Protocol


class TransportError(Exception):
    """A request that failed below HTTP: no connection, a timeout, a connection dropped or garbled."""


class TransportTimeout(TransportError):
    """Connecting, sending, or waiting for the next bytes of the answer took longer than allowed."""


class Headers(Mapping[str, str]):
    """Response headers, looked up in any case; a repeated header reads as its values joined by ", "."""

    __slots__ = ("_values", "raw")

    def __init__(self, raw: list[tuple[str, str]]) -> None:
        self.raw = raw
        """The headers as received: (name, value) pairs in order, names as the server spelled them."""
        values: dict[str, str] = {}
        for name, value in raw:
            key = name.lower()
            values[key] = f"{values[key]}, {value}" if key in values else value
        self._values = values

    @classmethod
    def from_bytes(cls, raw: list[tuple[bytes, bytes]]) -> Headers:
        return cls([(name.decode("latin-1"), value.decode("latin-1")) for name, value in raw])

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Headers({self.raw!r})"


class BodyStream(Protocol):
    """What the transport hands over for a body: its raw chunks, and a way to stop reading."""

    def __aiter__(self) -> AsyncIterator[bytes]: ...

    async def aclose(self) -> None: ...


class _Decoder(Protocol):
    def decompress(self, data: bytes) -> bytes: ...

    def flush(self) -> bytes: ...


class _DeflateDecoder:
    """``Content-Encoding: deflate`` is meant as zlib data, yet some servers send raw deflate: take either."""

    def __init__(self) -> None:
        self._decoder = zlib.decompressobj()
        self._first = True

    def decompress(self, data: bytes) -> bytes:
        if self._first and data:
            self._first = False
            try:
                return self._decoder.decompress(data)
            except zlib.error:
                self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._decoder.decompress(data)

    def flush(self) -> bytes:
        return self._decoder.flush()


def _decoder_for(encoding: str) -> _Decoder | None:
    """A decoder for the (last) content coding, or None for identity and codings we did not offer."""
    coding = encoding.rsplit(",", 1)[-1].strip().lower()
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if coding == "deflate":
        return _DeflateDecoder()
    return None


class Response:
    """One answer: read `status_code` and `headers` at once, the body with `aiter_bytes` or `aread`.

    The caller closes it (`aclose`) when done; reading the body to its end also gives the connection
    back to the pool for the next request.
    """

    __slots__ = ("__weakref__", "_decoder", "_stream", "headers", "is_closed", "status_code", "url")

    def __init__(self, status_code: int, headers: Headers, stream: BodyStream, url: str) -> None:
        self.status_code = status_code
        self.headers = headers
        self.url = url
        self.is_closed = False
        self._stream = stream
        self._decoder = _decoder_for(headers.get("content-encoding", ""))

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body's chunks as sent, still compressed if it was."""
        try:
            async for chunk in self._stream:
                if chunk:
                    yield chunk
        finally:
            await self.aclose()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's chunks with the content coding undone."""
        decoder = self._decoder
        if decoder is None:
            async for chunk in self.aiter_raw():
                yield chunk
            return
        try:
            async for chunk in self.aiter_raw():
                data = decoder.decompress(chunk)
                if data:
                    yield data
            rest = decoder.flush()
        except zlib.error as exc:
            raise TransportError(f"The response body could not be decompressed ({exc}).") from exc
        if rest:
            yield rest

    async def aread(self) -> bytes:
        """The whole (decoded) body."""
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        if not self.is_closed:
            self.is_closed = True
            await self._stream.aclose()


__all__ = ["BodyStream", "Headers", "Response", "TransportError", "TransportTimeout"]
