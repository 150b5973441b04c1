"""The ``openai-decisions`` API: OpenAI's Decisions endpoint, ``POST <base>/decisions``.

The request is ``{model, input, questions}``. ``input`` is the state as JSON text, or, with
images, one user message whose content is that text (``input_text``) followed by ``input_image``
parts with data URLs (at most 128). Question kinds map to ``choice`` (``choices: [{value,
description?}]``), ``score`` (``levels: [{label}]``) and ``predicate`` (bool; the meanings of true
and false are added to its instructions, the endpoint has no criteria for it). The answer lists
``answers`` by ``name`` (``choice`` + ``probabilities: [{value, probability}]`` + ``confidence``;
``score`` + ``confidence``; ``probability``; or ``type: "refusal"``) and ``usage``.

Only API keys are accepted there: a Sign in with ChatGPT token is refused, which is why the
registry hides these models while such a login is in use.
"""

from __future__ import annotations

import json
from typing import Any

from pi.ai.classifier_input import ClassifierInput
from pi.ai.model_types import ClassifierModel, ClassifierResult
from pi.ai.options import StreamOptions
from pi.ai.typed_requests import (
    RequestFailed,
    UnexpectedResponse,
    base_url,
    failure_text,
    number,
    post_json,
    token_usage,
)

LABEL = "OpenAI Decisions"
MAX_IMAGES = 128
NO_RETRY = frozenset({504})
"""The gateway in front of the endpoint answers 504 when a request runs too long (very large inputs);
the same input would time out again, so it is not retried."""


def _predicate_instructions(question: dict[str, Any]) -> str:
    meanings = [
        f"True means: {question['criteria']['true']}" if question["criteria"]["true"] else "",
        f"False means: {question['criteria']['false']}" if question["criteria"]["false"] else "",
    ]
    lines = [line for line in meanings if line]
    return f"{question['instructions']}\n\n" + "\n".join(lines) if lines else question["instructions"]


def wire_question(name: str, question: dict[str, Any]) -> dict[str, Any]:
    kind = question["type"]
    if kind == "choice":
        choices = [
            {"value": value, "description": text} if text else {"value": value}
            for value, text in question["criteria"].items()
        ]
        return {"type": "choice", "name": name, "instructions": question["instructions"], "choices": choices}
    if kind == "score":
        levels = [{"label": label} for label in question["criteria"]]
        return {"type": "score", "name": name, "instructions": question["instructions"], "levels": levels}
    return {"type": "predicate", "name": name, "instructions": _predicate_instructions(question)}


def wire_input(request: ClassifierInput) -> Any:
    state = json.dumps(request.state, separators=(",", ":"), ensure_ascii=False)
    if not request.images:
        return state
    if len(request.images) > MAX_IMAGES:
        raise RequestFailed(f"{LABEL} accepts at most {MAX_IMAGES} images, got {len(request.images)}")
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": state}]
    parts += [
        {"type": "input_image", "image_url": f"data:{image.mime_type};base64,{image.data}"} for image in request.images
    ]
    return [{"role": "user", "content": parts}]


def _answer(qid: str, question: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    kind = answer.get("type")
    if kind == "refusal":
        raise RequestFailed(f"{LABEL} refused to answer {qid}")
    if question["type"] == "choice":
        if kind != "choice" or not isinstance(answer.get("choice"), str):
            raise UnexpectedResponse(f"no choice answer for {qid}")
        raw = answer.get("probabilities")
        if not isinstance(raw, list):
            raise UnexpectedResponse(f"invalid probabilities for {qid}")
        probabilities: dict[str, float] = {}
        for entry in raw:
            if not isinstance(entry, dict) or not isinstance(entry.get("value"), str):
                raise UnexpectedResponse(f"invalid probabilities for {qid}")
            probabilities[entry["value"]] = number(entry.get("probability"), f"probability for {qid}.{entry['value']}")
        confidence = number(answer.get("confidence"), f"confidence for {qid}")
        return {"type": "choice", "choice": answer["choice"], "probabilities": probabilities, "confidence": confidence}
    if question["type"] == "score":
        if kind != "score":
            raise UnexpectedResponse(f"no score answer for {qid}")
        score = number(answer.get("score"), f"score for {qid}")
        return {
            "type": "score",
            "score": score,
            "confidence": number(answer.get("confidence"), f"confidence for {qid}"),
        }
    if kind != "predicate":
        raise UnexpectedResponse(f"no predicate answer for {qid}")
    return {"type": "bool", "probability": number(answer.get("probability"), f"probability for {qid}")}


def parse_answers(value: Any, request: ClassifierInput) -> dict[str, dict[str, Any]]:
    if not isinstance(value, list):
        raise UnexpectedResponse("no answers list")
    by_name = {a["name"]: a for a in value if isinstance(a, dict) and isinstance(a.get("name"), str)}
    out: dict[str, dict[str, Any]] = {}
    for qid, question in request.questions.items():
        if qid not in by_name:
            raise UnexpectedResponse(f"no answer for {qid}")
        out[qid] = _answer(qid, question, by_name[qid])
    return out


async def classify(model: ClassifierModel, request: ClassifierInput, options: StreamOptions) -> ClassifierResult:
    result = ClassifierResult(api=model.api, provider=model.provider, model=model.id)
    url = ""
    try:
        url = f"{base_url(model, options)}/decisions"
        body = {
            "model": model.id,
            "input": wire_input(request),
            "questions": [wire_question(qid, q) for qid, q in request.questions.items()],
        }
        answer = await post_json(model, url, body, options, no_retry=NO_RETRY)
        if not isinstance(answer, dict):
            raise UnexpectedResponse("not a JSON object")
        result.usage = token_usage(model, answer.get("usage"))  # billed even when the answers are unusable
        result.answers = parse_answers(answer.get("answers"), request)
    except Exception as error:
        if getattr(error, "status", None) == 504:
            result.fail(
                f"{LABEL} error (504): the request timed out at the gateway. Very large inputs "
                "(above roughly 600K tokens) currently exceed its time limit: send a smaller state."
            )
        else:
            result.fail(failure_text(LABEL, model, url, error))
    return result


__all__ = ["LABEL", "classify", "parse_answers", "wire_input", "wire_question"]
