"""Models that are not for chat: image generators and classifiers, and what running them returns.

A catalog entry without ``type`` is a chat model (`pi.ai.types.Model`). An image model turns text
and images into images (`generate_images`); a classifier model answers structured questions about
a JSON state with probabilities (`classify`). Neither can hold a conversation, so they never
appear where a chat model is expected: the registry keeps them in lists of their own.

Both shapes extend the chat `Model`, so the request machinery that resolves keys, headers and
OAuth logins per model (which reads only ``provider``, ``id``, ``api`` and ``base_url``) serves
them unchanged. Their JSON form leaves out the chat-only fields.
"""

from __future__ import annotations

import time
from typing import Any, Literal, TypeVar

from pydantic import Field

from pi.ai.field_defaults import empty_list
from pi.ai.types import ImageContent, Model, PiModel, TextContent, Usage

ModelType = Literal["chat", "image", "classifier"]
MODEL_TYPES: tuple[ModelType, ...] = ("chat", "image", "classifier")

_CHAT_ONLY = {
    "reasoning",
    "max_tokens",
    "thinking_level_map",
    "prompt_cache",
    "sampling_params",
    "sampling_params_by_thinking_level",
}


class ImageModel(Model):
    """An image-generation model (``type: "image"``)."""

    type: Literal["image"] = "image"
    output: list[Literal["text", "image"]] = Field(default_factory=lambda: list[Literal["text", "image"]](["image"]))
    """Always holds ``"image"``; ``"text"`` means the model may also answer with text blocks."""

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json", exclude=_CHAT_ONLY | {"context_window"})


class ClassifierModel(Model):
    """A structured classifier (``type: "classifier"``).

    ``compat`` may say how images travel (``imageInput``: ``assets``, ``images`` or
    ``state-image-urls``) and whether the image opt-in header is sent (``sendImageOptInHeader``).
    """

    type: Literal["classifier"] = "classifier"

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json", exclude=_CHAT_ONLY)

    def compat_value(self, name: str) -> Any:
        """A System One compat field by its catalog (camelCase) name, or None when unset."""
        if self.compat is None:
            return None
        return (self.compat.model_extra or {}).get(name)


TypedModel = ImageModel | ClassifierModel


def model_type_of(model: Model) -> ModelType:
    """The type of a catalog entry; entries without one are chat models."""
    kind = getattr(model, "type", None) or (model.model_extra or {}).get("type")
    return kind if kind in ("image", "classifier") else "chat"


# --- results --------------------------------------------------------------------------------------


StopReason = Literal["stop", "error", "aborted"]


class ClassifierResult(PiModel):
    """What one `classify` call returns. It never raises: a failure has ``stop_reason`` "error"."""

    api: str
    provider: str
    model: str
    answers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per question id: ``{type: "choice", choice, probabilities, confidence}``,
    ``{type: "score", score, confidence}`` or ``{type: "bool", probability}``."""
    usage: Usage | None = None
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=lambda: int(time.time() * 1000))

    def fail(self, message: str) -> None:
        """Turn this into a failed result: no answers, ``stop_reason`` "error" and `message`; usage is kept."""
        self.answers = {}
        self.stop_reason = "error"
        self.error_message = message


class ImagesResult(PiModel):
    """What one `generate_images` call returns. It never raises: a failure has ``stop_reason`` "error"."""

    api: str
    provider: str
    model: str
    output: list[TextContent | ImageContent] = Field(default_factory=empty_list)
    response_id: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=lambda: int(time.time() * 1000))

    def fail(self, message: str) -> None:
        """Turn this into a failed result: no output, ``stop_reason`` "error" and `message`; usage is kept."""
        self.output = []
        self.stop_reason = "error"
        self.error_message = message


R = TypeVar("R", ClassifierResult, ImagesResult)


def failed_result(shape: type[R], model: Model, message: str, aborted: bool = False) -> R:
    """A `shape` result saying `model`'s call failed (or was aborted) with `message`: these calls never raise."""
    return shape(
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="aborted" if aborted else "error",
        error_message=message,
    )


__all__ = [
    "MODEL_TYPES",
    "ClassifierModel",
    "ClassifierResult",
    "ImageModel",
    "ImagesResult",
    "ModelType",
    "TypedModel",
    "failed_result",
    "model_type_of",
]
