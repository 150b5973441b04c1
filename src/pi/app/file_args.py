"""``@file`` arguments: text files are inlined into the first message, images attached to it.

The format is pi's: ``<file name="/abs/path">`` ... ``</file>`` around each file's text, prefixed to
the first message, so prompts written for the TypeScript pi behave the same. Names are resolved as
the read tool resolves them (``~``, ``file://`` URLs, the spellings macOS uses in screenshot names),
and a text file's byte-order mark is dropped.

Images are only converted here (formats models cannot take become PNG), never shrunk: the model
they go to is not known yet when the command line is read, and its `inputLimits.images.resize`
profile may be smaller or larger than the defaults. The session fits every prompt image to the
current model's profile as the prompt enters it (`pi.app.session_images.ImageFitter`, which also
honours `images.autoResize: false`), so each attached image is encoded once, with the right limits.
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct, field

from pi.ai.types import ImageContent
from pi.tools.images import IMAGE_SNIFF_BYTES, detect_image_mime_type, process_image
from pi.tools.paths import normalize_path_argument, resolve_read_path


class FileArgError(ValueError):
    pass


class ProcessedFiles(Struct):
    text: str = ""
    images: list[ImageContent] = field(default_factory=list)


def process_file_args(paths: list[str], cwd: Path, auto_resize_images: bool = False) -> ProcessedFiles:
    """The text of `paths` for the first message and the images to attach to it.

    `auto_resize_images=True` shrinks images to the default limits at once; callers that hand the
    images to a session leave it off (see the module docstring)."""
    result = ProcessedFiles()
    parts: list[str] = []
    for raw in paths:
        path = Path(resolve_read_path(normalize_path_argument(raw), str(cwd)))
        if not path.exists():
            raise FileArgError(f"Error: File not found: {path}")
        if path.is_dir():
            raise FileArgError(f"Error: {path} is a directory; @ arguments take files (the model can list it)")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FileArgError(f"Error: Could not read file {path}: {exc.strerror or exc}") from exc
        if not data:
            continue
        mime = detect_image_mime_type(data[:IMAGE_SNIFF_BYTES])
        if mime is not None:
            processed = process_image(data, mime, auto_resize=auto_resize_images)
            if processed.ok:
                result.images.append(ImageContent(data=processed.data, mime_type=processed.mime_type))
                note = "\n".join(processed.hints)
                parts.append(f'<file name="{path}">{note}</file>\n')
            else:
                parts.append(f'<file name="{path}">{processed.message}</file>\n')
            continue
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        parts.append(f'<file name="{path}">\n{text}\n</file>\n')
    result.text = "".join(parts)
    return result


__all__ = ["FileArgError", "ProcessedFiles", "process_file_args"]
