"""The paste-image key (Ctrl+V): the clipboard's image as a file path in the editor, else its text.

An image is written to `<tmp>/pi-clipboard-<uuid>.<ext>` and that path inserted, so the prompt
attaches it as any file path would; text is pasted as a bracketed paste is (large text becomes a
`[paste #N …]` marker). A failure says `Error: Failed to paste from clipboard: …`; an empty
clipboard does nothing.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def save_image(data: bytes, mime: str, folder: Path | None = None) -> Path:
    directory = folder or Path(tempfile.gettempdir())
    path = directory / f"pi-clipboard-{uuid.uuid4()}.{_EXTENSIONS.get(mime, 'png')}"
    path.write_bytes(data)
    return path


async def paste_from_clipboard(app: InteractiveApp) -> None:
    from pi.tui.clipboard_read import ClipboardReadError, read_clipboard

    try:
        content = await read_clipboard(app.terminal.environ)
        if content.image is not None:
            text = str(save_image(content.image, content.mime or "image/png"))
        else:
            text = content.text
    except (ClipboardReadError, OSError) as exc:
        app.show_error(f"Failed to paste from clipboard: {exc}")
        return
    if not text:
        return
    app.editor.buffer.paste(text)
    app.editor.after_change(typed=False)
    app.request_render()


__all__ = ["paste_from_clipboard", "save_image"]
