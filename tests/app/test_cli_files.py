"""`@file` arguments through the real `pi`: images are attached to the first message."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

from pi.app.file_args import FileArgError, process_file_args
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def _png(width: int = 2, height: int = 2) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _with_vision(env: Env) -> None:
    config = json.loads((env.agent_dir / "models.json").read_text())
    config["providers"]["fake"]["models"][0]["input"] = ["text", "image"]
    (env.agent_dir / "models.json").write_text(json.dumps(config))


def test_image_file_is_attached_and_named(env: Env) -> None:
    _with_vision(env)
    png = _png()
    (env.cwd / "shot.png").write_bytes(png)
    (env.cwd / "empty.txt").write_bytes(b"")
    env.server.queue(text_reply("a red square"))
    done = env.run("-p", *MODEL, "@shot.png", "@empty.txt", "what is this?")
    assert done.returncode == 0, done.stderr
    user = next(m for m in env.server.requests[0].json()["messages"] if m["role"] == "user")
    parts = user["content"]
    texts = [p["text"] for p in parts if p["type"] == "text"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert texts[0].startswith(f'<file name="{env.cwd / "shot.png"}">')
    assert texts[0].endswith("what is this?")
    assert "empty.txt" not in texts[0]  # empty files are skipped
    assert images == [f"data:image/png;base64,{base64.b64encode(png).decode()}"]


def test_at_file_in_rpc_mode_is_an_error(env: Env) -> None:
    (env.cwd / "a.txt").write_text("x")
    done = env.run("--mode", "rpc", *MODEL, "@a.txt")
    assert done.returncode == 1
    assert "Error: @file arguments are not supported in RPC mode" in done.stderr


def test_image_for_a_text_only_model_is_replaced_by_a_note(env: Env) -> None:
    (env.cwd / "shot.png").write_bytes(_png())
    env.server.queue(text_reply("ok"))
    assert env.run("-p", *MODEL, "@shot.png", "look").returncode == 0
    user = json.dumps(next(m for m in env.server.requests[0].json()["messages"] if m["role"] == "user"))
    assert "image_url" not in user
    assert "(image omitted: model does not support images)" in user


def test_text_files_lose_their_byte_order_mark(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_bytes("\ufeffhello\n".encode())
    files = process_file_args(["note.txt"], tmp_path)
    assert files.text == f'<file name="{tmp_path / "note.txt"}">\nhello\n\n</file>\n'


def test_unreadable_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileArgError) as caught:
        process_file_args(["/proc/self/mem"], tmp_path)  # exists, but reading it from offset 0 fails
    assert str(caught.value).startswith("Error: Could not read file /proc/self/mem: ")


def test_names_resolve_like_the_read_tool(tmp_path: Path) -> None:
    (tmp_path / "Screenshot 2026-01-02 at 10.00.00\u202fAM.txt").write_text("shot")
    files = process_file_args(["Screenshot 2026-01-02 at 10.00.00 AM.txt"], tmp_path)
    assert "\nshot\n" in files.text
    absolute = process_file_args([str(tmp_path / "Screenshot 2026-01-02 at 10.00.00\u202fAM.txt")], tmp_path)
    assert absolute.text == files.text
