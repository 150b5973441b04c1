"""The image limits a model's API accepts, with pi's defaults where the catalog names none.

Code that attaches images (pasted files, `read`, tool results) shrinks and counts them with these,
so that one oversized picture never fails a whole request.
"""

from __future__ import annotations

from pi.ai.types import ImageResize, Model


def image_resize_profile(model: Model) -> ImageResize:
    """Largest width, height and base64 length, and the JPEG quality to re-encode at, for `model`.

    Unset fields keep the defaults: 2000×2000 pixels, 4.5 MiB of base64, JPEG quality 80.
    """
    limits = model.input_limits
    resize = limits.images.resize if limits is not None and limits.images is not None else None
    return resize.model_copy() if resize is not None else ImageResize()


def max_images(model: Model) -> tuple[int | None, int | None]:
    """(per message, per request) image counts the API takes; None where it states no limit."""
    images = model.input_limits.images if model.input_limits is not None else None
    if images is None:
        return None, None
    return images.max_per_message, images.max_per_request


__all__ = ["image_resize_profile", "max_images"]
