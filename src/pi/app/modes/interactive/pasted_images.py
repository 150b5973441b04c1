"""Image files dropped or pasted into the editor, attached to the prompt that carries their paths.

Dropping a file on a terminal pastes its path, spelled as that terminal spells it: plain, with
backslash-escaped spaces (`/shots/My\\ Shot.png`), in single or double quotes, or as a `file://`
URL; several files come space-separated (copied files pasted with Ctrl+V come one a line). The path
text goes into the editor as any paste does, and when the prompt is sent, each pasted path that
still appears in it and names an image file (detected by its bytes, not its name) is attached to the
message as an image. The clipboard image key inserts the path of the image it saved and is treated
the same way.

Only pasted text counts: a path typed by hand stays text (the model can read it with its tools).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.ai.types import ImageContent

_MAX_PASTE = 4096
"""A drop is a few paths; longer pastes are text, not files, and are not scanned."""


def pasted_paths(text: str) -> list[str]:
    """The file names in a pasted `text`, unquoted and unescaped as a shell would (see the module docstring)."""
    text = text.strip()
    if not text or len(text) > _MAX_PASTE:
        return []
    if "\n" in text:  # one path a line, as copied files are pasted
        return [line.strip() for line in text.split("\n") if line.strip()]
    try:
        words = shlex.split(text)
    except ValueError:  # an unbalanced quote: the whole paste as one name
        words = [text.strip("'\"")]
    return [word for word in words if word]


class PastedImages:
    """The pastes seen since the last prompt, and the image files they name."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._pastes: list[tuple[str, list[Path]]] = []

    def note_paste(self, text: str) -> None:
        """Remember a paste that names existing files (anything else is plain text, kept as it is)."""
        from pi.tools.paths import normalize_path_argument, resolve_read_path

        files = []
        for name in pasted_paths(text):
            try:
                path = Path(resolve_read_path(normalize_path_argument(name), str(self.cwd)))
                if path.is_file():
                    files.append(path)
            except (OSError, ValueError):  # not a name the system takes (too long, a NUL byte): plain text
                continue
        if files:
            self._pastes.append((text.strip(), files))

    def clear(self) -> None:
        self._pastes.clear()

    async def take(self, prompt: str, *, auto_resize: bool = True) -> list[ImageContent]:
        """The images named by pastes still present in `prompt`; the pastes are forgotten either way."""
        from pi.ai.types import ImageContent
        from pi.tools.images import IMAGE_SNIFF_BYTES, detect_image_mime_type, process_image_async

        pastes, self._pastes = self._pastes, []
        images: list[ImageContent] = []
        seen: set[Path] = set()
        for spelling, files in pastes:
            if spelling not in prompt:
                continue
            for path in files:
                if path in seen:
                    continue
                seen.add(path)
                try:
                    data = path.read_bytes()
                except OSError:
                    continue
                mime = detect_image_mime_type(data[:IMAGE_SNIFF_BYTES])
                if mime is None:
                    continue
                processed = await process_image_async(data, mime, auto_resize=auto_resize)
                if processed.ok:
                    images.append(ImageContent(data=processed.data, mime_type=processed.mime_type))
        return images


__all__ = ["PastedImages", "pasted_paths"]
