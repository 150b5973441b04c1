"""A loopback PEP 503 "simple" index serving wheels built in the test, for pip to install from."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.loopback_http import LoopbackHTTP, QuietHandler


def build_wheel(
    name: str, version: str, files: dict[str, str], entry_points: str = "", requires: tuple[str, ...] = ()
) -> tuple[str, bytes]:
    """A minimal pure-Python wheel (file name, bytes): the modules plus METADATA, WHEEL, entry points and RECORD."""
    module = name.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    members = dict(files)
    members[f"{info}/METADATA"] = metadata
    members[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    if entry_points:
        members[f"{info}/entry_points.txt"] = entry_points
    record = []
    for path, text in members.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    members[f"{info}/RECORD"] = "\n".join(record) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in members.items():
            archive.writestr(path, text)
    return f"{module}-{version}-py3-none-any.whl", buffer.getvalue()


class SimpleIndex:
    """Projects → wheels; `/simple/<name>/` lists links, `/files/<wheel>` serves them."""

    def __init__(self) -> None:
        self.wheels: dict[str, dict[str, bytes]] = {}
        self.port = 0
        self.requests: list[str] = []
        """Paths requested so far, in order."""

    def add(self, project: str, filename: str, data: bytes) -> None:
        self.wheels.setdefault(project, {})[filename] = data

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/simple"

    def page(self, path: str) -> bytes | None:
        parts = [p for p in path.split("?")[0].split("/") if p]
        if len(parts) == 2 and parts[0] == "simple" and parts[1] in self.wheels:
            links = "".join(f'<a href="/files/{f}">{f}</a>\n' for f in sorted(self.wheels[parts[1]]))
            return f"<!DOCTYPE html><html><body>\n{links}</body></html>\n".encode()
        if len(parts) == 2 and parts[0] == "files":
            for files in self.wheels.values():
                if parts[1] in files:
                    return files[parts[1]]
        return None


@contextmanager
def serve(index: SimpleIndex) -> Iterator[SimpleIndex]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            index.requests.append(self.path)
            body = index.page(self.path)
            self.send_response(200 if body is not None else 404)
            is_page = self.path.startswith("/simple")
            self.send_header("Content-Type", "text/html" if is_page else "application/octet-stream")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    with LoopbackHTTP(Handler) as server:
        index.port = server.port
        yield index
