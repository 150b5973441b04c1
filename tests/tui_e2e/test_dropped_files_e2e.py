"""Image files dropped on the terminal (tui.md §5, `drop files to attach`): the terminal pastes their
paths, quoted or escaped as it likes, in a bracketed paste; the prompt that carries them is sent
with the images attached. A path typed by hand, or a pasted path of a text file, stays text."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi


def _png(red: int) -> bytes:
    """A valid 1×1 RGB PNG of the given red value."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes([0, red, 0, 0]))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _paste(pi: TmuxPi, text: str) -> None:
    """What a terminal does on a drop: the text inside bracketed-paste markers (pi asked for them)."""
    pi.tmux("set-buffer", "-b", "drop", "--", text)
    pi.tmux("paste-buffer", "-p", "-d", "-b", "drop", "-t", "main")


def _images(request_body: dict[str, Any]) -> list[dict[str, Any]]:
    content = request_body["messages"][-1]["content"]
    return [block for block in content if isinstance(block, dict) and block.get("type") == "image"]


def _text(request_body: dict[str, Any]) -> str:
    content = request_body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def _shots(pi: TmuxPi) -> tuple[Path, Path]:
    """Two PNG files with spaces in their names, and a model that takes images."""
    models_file = pi.agent_dir / "models.json"
    models = json.loads(models_file.read_text())
    models["providers"]["fakea"]["models"][0]["input"] = ["text", "image"]
    models_file.write_text(json.dumps(models))
    folder = pi.root / "shots"
    folder.mkdir()
    first, second = folder / "My Shot.png", folder / "other one.png"
    first.write_bytes(_png(200))
    second.write_bytes(_png(10))
    return first, second


def test_quoted_and_escaped_dropped_paths_become_attachments(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    first, second = _shots(pi)
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.type("compare")
    _paste(pi, f"'{first}' ")  # GNOME Terminal / Konsole style
    pi.wait_for("My Shot.png'")
    pi.type("with")
    _paste(pi, str(second).replace(" ", "\\ "))  # iTerm2 / Terminal.app / kitty style
    pi.wait_for("other\\ one.png")
    server.queue(anthropic_reply("Two pictures."))
    pi.keys("Enter")
    pi.wait_for("Two pictures.")
    body = server.requests[-1].json()
    images = _images(body)
    assert [image["source"]["media_type"] for image in images] == ["image/png", "image/png"]
    assert [base64.b64decode(image["source"]["data"]) for image in images] == [first.read_bytes(), second.read_bytes()]
    text = _text(body)
    assert text.startswith("compare") and f"'{first}'" in text and "other\\ one.png" in text


def test_typed_paths_and_text_files_stay_text(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    first, _ = _shots(pi)
    notes = pi.root / "notes.txt"
    notes.write_text("not a picture\n")
    pi.start()
    pi.wait_for("fake-claude • medium")
    pi.type(f"typed {first} and pasted ")
    _paste(pi, str(notes))
    pi.wait_for("notes.txt")
    server.queue(anthropic_reply("Only words."))
    pi.keys("Enter")
    pi.wait_for("Only words.")
    body = server.requests[-1].json()
    assert _images(body) == []
    assert str(first) in _text(body) and str(notes) in _text(body)


def test_a_drop_removed_from_the_editor_is_not_attached(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    first, _ = _shots(pi)
    pi.start()
    pi.wait_for("fake-claude • medium")
    _paste(pi, f"'{first}'")
    pi.wait_for("My Shot.png'")
    pi.keys("C-c")  # clears the editor
    pi.wait_gone("My Shot.png")
    pi.type("just text")
    server.queue(anthropic_reply("Nothing attached."))
    pi.keys("Enter")
    pi.wait_for("Nothing attached.")
    assert _images(server.requests[-1].json()) == []


def test_url_and_unbalanced_spellings_are_read_as_files(tmp_path: Path) -> None:
    """The spellings no tmux run above uses: a `file://` URL, and a quote the terminal left open."""
    import asyncio

    from pi.app.modes.interactive.pasted_images import PastedImages

    shot = tmp_path / "My Shot.png"
    shot.write_bytes(_png(99))
    url = "file://" + str(shot).replace(" ", "%20")
    pasted = PastedImages(tmp_path)
    pasted.note_paste(url)
    (image,) = asyncio.run(pasted.take(f"see {url}"))
    assert base64.b64decode(image.data) == shot.read_bytes()
    pasted.note_paste(f"'{shot}")
    assert len(asyncio.run(pasted.take(f"look '{shot}"))) == 1
    assert asyncio.run(pasted.take(f"look '{shot}")) == []  # taken once: a later prompt does not re-attach


def test_pastes_that_cannot_be_file_names_are_text(tmp_path: Path) -> None:
    """A long run of characters is longer than any file name the system takes: no error, no attachment."""
    import asyncio

    from pi.app.modes.interactive.pasted_images import PastedImages

    pasted = PastedImages(tmp_path)
    for text in ("x" * 1500, "a\x00b", "'" + "y" * 300 + "'"):
        pasted.note_paste(text)
        assert asyncio.run(pasted.take(text)) == []
