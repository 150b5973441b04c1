"""Shape checks for what a script passes to `models.classify` and `models.generateImages`.

A wrong shape fails inside the script with the expected shape spelled out, instead of reaching the
provider and coming back as an opaque request error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CLASSIFIER_SHAPE = (
    '{ state: {...}, images?: [{ type: "image", data: <base64>, mimeType }], questions: { <id>: '
    '{ type: "choice", instructions, criteria: { <label>: <meaning> } } | { type: "score", instructions, '
    'criteria: [<lowest>, ..., <highest>] } | { type: "bool", instructions, criteria: { true: <meaning>, '
    "false: <meaning> } } } }"
)
IMAGES_SHAPE = (
    '{ input: [{ type: "text", text: <prompt> }, ...optional { type: "image", data: <base64>, mimeType } '
    "reference images] }"
)


def describe_value(value: Any) -> str:
    """A script value in a message: `undefined`, `a string`, `an array`, or its keys (`{ prompt }`)."""
    if value is None:
        return "undefined"
    if isinstance(value, list):
        return "an empty array" if not value else "an array"
    if isinstance(value, Mapping):
        keys = [str(k) for k in value]
        if not keys:
            return "{}"
        return "{ " + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "") + " }"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "a value"


class ContextShapeError(ValueError):
    """A context the call cannot take; the message shows the shape it expects."""


def _image_block(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "image"
        and isinstance(block.get("data"), str)
        and isinstance(block.get("mimeType"), str)
    )


def _strings(values: Any) -> bool:
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _question_problem(at: str, question: Any) -> str | None:
    if not isinstance(question, Mapping):
        return f"{at} should be a question object but is {describe_value(question)}"
    kind, criteria = question.get("type"), question.get("criteria")
    if not isinstance(question.get("instructions"), str):
        return f"{at}.instructions should be a string"
    if kind == "choice":
        if not isinstance(criteria, Mapping) or not _strings(list(criteria.values())):
            return f'{at} is a "choice" question: criteria should map each label to what it means'
    elif kind == "score":
        if not _strings(criteria):
            return f'{at} is a "score" question: criteria should be the levels as strings, lowest first'
    elif kind == "bool":
        if not isinstance(criteria, Mapping) or not _strings([criteria.get("true"), criteria.get("false")]):
            return f'{at} is a "bool" question: criteria should be {{ true: string, false: string }}'
    else:
        return f'{at}.type should be "choice", "score" or "bool", not {describe_value(kind)}'
    return None


def _classifier_problem(context: Any) -> str | None:
    if not isinstance(context, Mapping):
        return f"takes a context object second, but was given {describe_value(context)}"
    if not isinstance(context.get("state"), Mapping):
        return f"needs context.state to be an object, not {describe_value(context.get('state'))}"
    images = context.get("images")
    if images is not None:
        if not isinstance(images, list):
            return f"needs context.images to be an array, not {describe_value(images)}"
        for index, image in enumerate(images):
            if not _image_block(image):
                return f"needs context.images[{index}] to be an image block, not {describe_value(image)}"
    questions = context.get("questions")
    if not isinstance(questions, Mapping) or not questions:
        return f"needs context.questions to map question ids to questions, not {describe_value(questions)}"
    for key, question in questions.items():
        problem = _question_problem(f"context.questions.{key}", question)
        if problem is not None:
            return problem
    return None


def check_classifier_context(context: Any) -> Any:
    """The context unchanged, or `ContextShapeError` naming the first problem and the expected shape."""
    problem = _classifier_problem(context)
    if problem is not None:
        raise ContextShapeError(f"models.classify() {problem}. The context looks like {CLASSIFIER_SHAPE}.")
    return context


def check_images_context(context: Any) -> Any:
    """The context unchanged, or `ContextShapeError` naming the first problem and the expected shape."""
    problem: str | None = None
    if not isinstance(context, Mapping):
        problem = f"takes a context object second, but was given {describe_value(context)}"
    elif not isinstance(context.get("input"), list) or not context["input"]:
        problem = f"needs context.input to be a non-empty array of blocks, not {describe_value(context.get('input'))}"
    else:
        for index, block in enumerate(context["input"]):
            text_block = (
                isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
            )
            if not text_block and not _image_block(block):
                problem = f"needs context.input[{index}] to be a text or image block, not {describe_value(block)}"
                break
    if problem is not None:
        raise ContextShapeError(f"models.generateImages() {problem}. The context looks like {IMAGES_SHAPE}.")
    return context


__all__ = ["ContextShapeError", "check_classifier_context", "check_images_context", "describe_value"]
