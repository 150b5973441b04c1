from __future__ import annotations

import base64
import os
import signal
import stat
import time
from pathlib import Path

from pi.tui.clipboard import copy_to_clipboard, native_commands, osc52_sequence

TEXT = "héllo\nwörld ✓"


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _env(bin_dir: Path, **extra: str) -> dict[str, str]:
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", **extra}


def test_osc52_sequence_is_base64_of_utf8() -> None:
    seq = osc52_sequence(TEXT)
    assert seq.startswith("\x1b]52;c;") and seq.endswith("\x07")
    assert base64.b64decode(seq[7:-1]).decode("utf-8") == TEXT


def test_native_command_order_per_platform() -> None:
    assert native_commands({}, "darwin") == [["pbcopy"]]
    assert native_commands({"WAYLAND_DISPLAY": "w", "DISPLAY": ":0"}, "linux") == [
        ["wl-copy"],
        ["xclip", "-selection", "clipboard"],
        ["xsel", "-b", "-i"],
    ]
    assert native_commands({}, "linux") == []


async def test_native_tool_gets_the_text_and_no_osc52(tmp_path: Path) -> None:
    out = tmp_path / "clip"
    _tool(tmp_path, "xclip", f'[ "$1 $2" = "-selection clipboard" ] || exit 3\ncat > "{out}"')
    written: list[str] = []
    result = await copy_to_clipboard(TEXT, written.append, environ=_env(tmp_path, DISPLAY=":0"), platform="linux")
    assert result.native == "xclip" and result.method == "native" and not result.osc52
    assert out.read_text(encoding="utf-8") == TEXT
    assert written == []


async def test_failing_tool_falls_through_to_the_next(tmp_path: Path) -> None:
    out = tmp_path / "clip"
    _tool(tmp_path, "xclip", "cat >/dev/null; exit 1")
    _tool(tmp_path, "xsel", f'cat > "{out}"')
    result = await copy_to_clipboard(TEXT, None, environ=_env(tmp_path, DISPLAY=":0"), platform="linux")
    assert result.native == "xsel"
    assert out.read_text(encoding="utf-8") == TEXT


async def test_without_a_tool_osc52_is_written(tmp_path: Path) -> None:
    written: list[str] = []
    result = await copy_to_clipboard(TEXT, written.append, environ=_env(tmp_path), platform="linux")
    assert result.method == "osc52" and result.native is None
    assert written == [osc52_sequence(TEXT)]


async def test_nothing_possible_is_reported(tmp_path: Path) -> None:
    result = await copy_to_clipboard(TEXT, None, environ=_env(tmp_path), platform="linux")
    assert result.method == "none" and not result.ok


async def test_pi_clipboard_osc52_skips_native_tools(tmp_path: Path) -> None:
    out = tmp_path / "clip"
    _tool(tmp_path, "wl-copy", f'cat > "{out}"')
    written: list[str] = []
    env = _env(tmp_path, WAYLAND_DISPLAY="wayland-0", PI_CLIPBOARD_OSC52="1")
    result = await copy_to_clipboard(TEXT, written.append, environ=env, platform="linux")
    assert result.method == "osc52"
    assert written == [osc52_sequence(TEXT)]
    assert not out.exists()


async def test_a_hung_tool_times_out_and_osc52_is_used(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    _tool(tmp_path, "pbcopy", f'echo $$ > "{marker}"\nexec sleep 60')
    written: list[str] = []
    started = time.monotonic()
    result = await copy_to_clipboard(TEXT, written.append, environ=_env(tmp_path), platform="darwin", timeout=0.3)
    assert time.monotonic() - started < 20
    assert result.method == "osc52"
    pid = int(marker.read_text())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive  # the tool was killed, not left behind


async def test_a_tool_leaving_a_background_server_does_not_block(tmp_path: Path) -> None:
    """xclip and wl-copy fork a child that keeps serving the clipboard with the parent's descriptors."""
    out = tmp_path / "clip"
    server = tmp_path / "server.pid"
    _tool(tmp_path, "wl-copy", f'cat > "{out}"\nsleep 30 &\necho $! > "{server}"')
    started = time.monotonic()
    try:
        result = await copy_to_clipboard(
            TEXT, None, environ=_env(tmp_path, WAYLAND_DISPLAY="w"), platform="linux", timeout=20
        )
        assert time.monotonic() - started < 15
    finally:
        if server.exists():
            os.kill(int(server.read_text()), signal.SIGTERM)
    assert result.native == "wl-copy"
    assert out.read_text(encoding="utf-8") == TEXT
