"""The paste-image key (Ctrl+V): copied files, else the clipboard's image as a file path, else its
text.

Files copied in the file manager (macOS) are inserted as their paths: shell-quoted and
space-separated in `!` mode, one a line otherwise. An image is written to
`<tmp>/pi-clipboard-<uuid>.<ext>` and that path inserted, so the prompt attaches it as a dropped
image file (`pasted_images`); text is pasted as a bracketed paste is (large text becomes a `[paste
#N …]` marker). A failure says `Error: Failed to paste from clipboard: …`; an empty clipboard does
nothing.
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


def files_text(paths: tuple[str, ...], *, bash_mode: bool) -> str:
    """Copied files as the editor gets them: a shell's word list in `!` mode, else one path a line."""
    if bash_mode:
        import shlex

        return " ".join(shlex.quote(path) for path in paths)
    return "\n".join(paths)


async def paste_from_clipboard(app: InteractiveApp) -> None:
    from pi.tui.clipboard_read import ClipboardReadError, read_clipboard

    try:
        content = await read_clipboard(app.terminal.environ)
        if content.files:
            text = files_text(content.files, bash_mode=app.editor.is_bash_mode())
        elif content.image is not None:
            text = str(save_image(content.image, content.mime or "image/png"))
        else:
            text = content.text
    except (ClipboardReadError, OSError) as exc:
        app.show_error(f"Failed to paste from clipboard: {exc}")
        return
    if not text:
        return
    app.editor.buffer.paste(text)
    app.pasted_images.note_paste(text)
    app.editor.after_change(typed=False)
    app.request_render()


__all__ = ["files_text", "paste_from_clipboard", "save_image"]
