"""What a classifier is asked: a JSON state, optional images, and named questions about it.

Questions come in three kinds, each with ``instructions`` and ``criteria``:
``choice`` (criteria: option -> description), ``score`` (criteria: the levels, lowest first) and
``bool`` (criteria: ``{true, false}``, what each answer means). The input is checked before any
request, so a mistake is reported without spending a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field

from pi.ai.typed_requests import RequestFailed
from pi.ai.types import ImageContent

QUESTION_KINDS = ("choice", "score", "bool")


class ClassifierInput(Struct):
    state: Any
    questions: dict[str, dict[str, Any]]
    images: list[ImageContent] = field(default_factory=list)


def _question(qid: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise RequestFailed(f'Question "{qid}" must be an object with type, instructions and criteria')
    kind = raw.get("type")
    if kind not in QUESTION_KINDS:
        raise RequestFailed(f'Question "{qid}": type must be "choice", "score" or "bool", got {kind!r}')
    instructions = raw.get("instructions")
    if not isinstance(instructions, str):
        raise RequestFailed(f'Question "{qid}": instructions must be a string')
    criteria = raw.get("criteria")
    if kind == "choice" and not (isinstance(criteria, Mapping) and criteria):
        raise RequestFailed(
            f'Question "{qid}": a choice needs criteria {{option: description}} with at least one option'
        )
    if kind == "score" and not (isinstance(criteria, list) and all(isinstance(c, str) for c in criteria)):
        raise RequestFailed(f'Question "{qid}": a score needs criteria as a list of level descriptions')
    if kind == "bool":
        given: Mapping[str, Any] = criteria if isinstance(criteria, Mapping) else {}
        criteria = {"true": str(given.get("true") or ""), "false": str(given.get("false") or "")}
    elif kind == "choice" and isinstance(criteria, Mapping):
        criteria = {str(key): str(text or "") for key, text in criteria.items()}
    return {"type": kind, "instructions": instructions, "criteria": criteria}


def _image(raw: Any) -> ImageContent:
    if isinstance(raw, ImageContent):
        return raw
    if isinstance(raw, Mapping) and isinstance(raw.get("data"), str):
        mime = raw.get("mimeType") or raw.get("mime_type")
        if isinstance(mime, str):
            return ImageContent(data=raw["data"], mime_type=mime)
    raise RequestFailed('Each classifier image must be {"type": "image", "data": <base64>, "mimeType": ...}')


def classifier_input(context: Any) -> ClassifierInput:
    """The checked input of one classify call (`context` as a mapping: ``{state, questions, images?}``)."""
    if isinstance(context, ClassifierInput):
        return context
    if not isinstance(context, Mapping):
        raise RequestFailed("The classifier context must be an object {state, questions, images?}")
    questions = context.get("questions")
    if not isinstance(questions, Mapping) or not questions:
        raise RequestFailed("The classifier context needs questions: {id: {type, instructions, criteria}}")
    images = context.get("images") or []
    if not isinstance(images, list):
        raise RequestFailed("The classifier images must be a list")
    return ClassifierInput(
        state=context.get("state"),
        questions={str(qid): _question(str(qid), raw) for qid, raw in questions.items()},
        images=[_image(item) for item in images],
    )


__all__ = ["QUESTION_KINDS", "ClassifierInput", "classifier_input"]
