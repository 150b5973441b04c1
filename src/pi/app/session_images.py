"""Images entering a session, fitted to the model they go to: its `inputLimits.images.resize` profile.

A model may take smaller images than pi's defaults (2000×2000 pixels, 4.5 MiB of base64, JPEG
quality 80). Every image that enters the transcript, whether attached to a prompt or returned by a
tool, is checked against the current model's profile as it enters, and re-encoded only when it
exceeds it: an image is encoded once, never again for each request. The `read` tool already
encodes with the profile (its `image_resize` option), so its images pass this check unchanged.
An image that cannot be brought within the limits is replaced by a note saying so.

`images.autoResize: false` in settings.json turns the shrinking off (images are sent as they are).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import inspect
import io
import logging
from collections.abc import Callable, Sequence

from msgspec.structs import replace

from pi.agent.hooks import AfterToolCall, AfterToolCallContext, AfterToolCallResult
from pi.agent.tool import ToolContent
from pi.ai.abort import AbortSignal
from pi.ai.input_limits import image_resize_profile
from pi.ai.types import ImageContent, ImageResize, Model, TextContent
from pi.app.settings import SettingsManager

log = logging.getLogger(__name__)


class ImageFitter:
    """Checks images against the current model's resize profile and shrinks the ones that exceed it."""

    def __init__(self, model: Callable[[], Model | None], settings: SettingsManager) -> None:
        self._model = model
        self._settings = settings

    def enabled(self) -> bool:
        images = self._settings.get("images")
        return not (isinstance(images, dict) and images.get("autoResize") is False)

    def profile(self) -> ImageResize:
        """The current model's profile, or the defaults when it names none (or there is no model)."""
        model = self._model()
        return image_resize_profile(model) if model is not None else ImageResize()

    def read_profile(self) -> ImageResize | None:
        """For the `read` tool: the model's own profile, or None when the defaults apply."""
        model = self._model()
        limits = model.input_limits if model is not None else None
        return limits.images.resize if limits is not None and limits.images is not None else None

    async def fit_prompt(
        self, text: str, images: Sequence[ImageContent] | None
    ) -> tuple[str, list[ImageContent] | None]:
        """`text` and `images` of a prompt with the images fitted.

        What the model should know goes to the end of the text: the size note of each image shrunk
        (how to map coordinates back), the reason for each image left out.
        """
        if not images or not self.enabled():
            return text, list(images) if images is not None else None
        given = list(images)
        blocks = await asyncio.to_thread(self.fit_blocks, list[ToolContent](given))
        return _split(text, given, blocks)

    def fit_prompt_now(self, text: str, images: Sequence[ImageContent] | None) -> tuple[str, list[ImageContent] | None]:
        """`fit_prompt` for callers that cannot wait (steering queued from a synchronous call)."""
        if not images or not self.enabled():
            return text, list(images) if images is not None else None
        given = list(images)
        return _split(text, given, self.fit_blocks(list[ToolContent](given)))

    def fit_blocks(self, blocks: list[ToolContent]) -> list[ToolContent] | None:
        """`blocks` with every oversized image re-encoded, its size note after it.

        None when nothing had to change. Blocking: decoding and encoding are CPU work.
        """
        profile = self.profile()
        out: list[ToolContent] = []
        changed = False
        for block in blocks:
            if not isinstance(block, ImageContent) or _fits(block, profile):
                out.append(block)
                continue
            changed = True
            out.extend(_refit(block, profile))
        return out if changed else None

    def after_tool_call(self, inner: AfterToolCall) -> AfterToolCall:
        """`inner` (the session's tool-result chain), then the images of the final result fitted."""

        async def fitted(ctx: AfterToolCallContext, signal: AbortSignal | None) -> AfterToolCallResult | None:
            result = inner(ctx, signal)
            if inspect.isawaitable(result):
                result = await result
            patch: AfterToolCallResult | None = result
            content = patch.content if patch is not None and patch.content is not None else ctx.result.content
            if not self.enabled() or not any(isinstance(block, ImageContent) for block in content):
                return patch
            blocks = await asyncio.to_thread(self.fit_blocks, list(content))
            if blocks is None:
                return patch
            return replace(patch, content=blocks) if patch is not None else AfterToolCallResult(content=blocks)

        return fitted


def _split(
    text: str, images: list[ImageContent], blocks: list[ToolContent] | None
) -> tuple[str, list[ImageContent] | None]:
    """A prompt's text and images from fitted blocks: the notes go to the end of the text."""
    if blocks is None:
        return text, images
    notes = [block.text for block in blocks if isinstance(block, TextContent)]
    kept = [block for block in blocks if isinstance(block, ImageContent)]
    return ("\n".join([text, *notes]) if notes else text), kept


def _decoded(image: ImageContent) -> bytes | None:
    try:
        return base64.b64decode(image.data, validate=False)
    except (binascii.Error, ValueError):
        return None


def _fits(image: ImageContent, profile: ImageResize) -> bool:
    """Within the byte limit and, when Pillow can tell, within the pixel box (header only, no decoding)."""
    if len(image.data) >= profile.max_bytes:
        return False
    try:
        from PIL import Image
    except ImportError:
        return True
    data = _decoded(image)
    if data is None:
        return True  # not ours to judge: the provider reports a broken attachment itself
    try:
        with Image.open(io.BytesIO(data)) as opened:
            width, height = opened.size
    except Exception:
        return True
    return width <= profile.max_width and height <= profile.max_height


def _refit(image: ImageContent, profile: ImageResize) -> list[ToolContent]:
    from pi.tools.images import process_image

    data = _decoded(image)
    if data is None:
        return [image]
    processed = process_image(data, image.mime_type, profile=profile)
    if not processed.ok:
        log.info("an image could not be fitted to the model's limits: %s", processed.message)
        return [TextContent(text=processed.message)]
    blocks: list[ToolContent] = [ImageContent(data=processed.data, mime_type=processed.mime_type)]
    if processed.hints:
        blocks.append(TextContent(text="\n".join(processed.hints)))
    return blocks


__all__ = ["ImageFitter"]
