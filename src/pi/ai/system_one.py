"""The System One classifier protocol, spoken by TypeSafe, OpenRouter, OpenCode, Vercel's gateway and
Copilot (``typesafe-system-one``), and by Cloudflare Workers AI (``cloudflare-workers-ai-system-one``).

Request: ``{model, state, questions}`` where each question keeps its ``type``, ``instructions`` and
``criteria``, except that ``bool`` is written ``noul`` on the wire. ``typesafe-system-one`` posts it
to ``<base>/systemone`` (Copilot: ``<base>/v1/systemone``); Cloudflare posts
``{model, input: {state, questions}}`` to ``<base>/run`` and wraps the answer in its envelope
(``{success, result: {answers, usage}}``, or for third-party models
``{success, result: {state: "Completed", result: {answers, usage}}}``; ``success: false`` carries
``errors: [{message}]``).

Answers by question id: ``{type: "choice", choice, probabilities: {option: p}, confidence}``,
``{type: "score", score, confidence}``, ``{type: "noul", noul: p}``.

Images travel in one of three ways (``compat.imageInput``, else detected): ``assets`` (named
``<image-N>`` PNG/JPEG assets, their names put before the state; TypeSafe also wants the
``TypeSafe-Danger-Zone-Images: true`` header), ``images`` (up to 4 data URLs; Cloudflare's Clef) or
``state-image-urls`` (``image_url`` parts before the state; OpenRouter).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

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

TYPESAFE_API = "typesafe-system-one"
CLOUDFLARE_API = "cloudflare-workers-ai-system-one"
COPILOT = "github-copilot"
IMAGE_OPT_IN_HEADER = "TypeSafe-Danger-Zone-Images"
MAX_DATA_URL_IMAGES = 4
_ASSET_FORMATS = {"image/png": "png", "image/jpeg": "jpeg"}
_DATA_URL_TYPES = {"image/png", "image/jpeg", "image/webp"}


def _path(model: ClassifierModel) -> str:
    """Where the protocol is served under the base URL: Copilot's chat APIs have no version prefix, its
    System One endpoint has (the base URL is the account's endpoint after a login, so it is added here)."""
    if model.api == CLOUDFLARE_API:
        return "/run"
    return "/v1/systemone" if model.provider == COPILOT else "/systemone"


def label_of(model: ClassifierModel) -> str:
    return "Cloudflare Workers AI" if model.api == CLOUDFLARE_API else "System One API"


def _image_handling(model: ClassifierModel) -> tuple[str, bool]:
    """(how images travel, whether the opt-in header goes along) for `model`."""
    if model.api == CLOUDFLARE_API:
        detected = ("images" if model.id.startswith("@cf/cloudflare/clef") else "assets", False)
    elif model.provider == "openrouter" or "openrouter.ai" in model.base_url:
        detected = ("state-image-urls", False)
    else:
        detected = ("assets", True)
    mode = model.compat_value("imageInput")
    opt_in = model.compat_value("sendImageOptInHeader")
    return (
        mode if isinstance(mode, str) else detected[0],
        opt_in if isinstance(opt_in, bool) else detected[1],
    )


def wire_request(model: ClassifierModel, request: ClassifierInput) -> tuple[dict[str, Any], bool]:
    """The ``{state, questions, ...}`` body part, and whether the image opt-in header is needed."""
    questions = {
        qid: {**question, "type": "noul"} if question["type"] == "bool" else question
        for qid, question in request.questions.items()
    }
    body: dict[str, Any] = {"state": request.state, "questions": questions}
    if not request.images:
        return body, False
    label = label_of(model)
    if "image" not in model.input:
        raise RequestFailed(f"{label} does not support image input for {model.id}")
    mode, opt_in = _image_handling(model)
    urls = [f"data:{image.mime_type};base64,{image.data}" for image in request.images]
    if mode == "images":
        if len(urls) > MAX_DATA_URL_IMAGES:
            raise RequestFailed(f"{label} accepts at most {MAX_DATA_URL_IMAGES} images for {model.id}, got {len(urls)}")
        bad = [image.mime_type for image in request.images if image.mime_type not in _DATA_URL_TYPES]
        if bad:
            raise RequestFailed(f"{label} accepts PNG, JPEG, and WebP images for {model.id}, got {bad[0]}")
        body["images"] = urls
    elif mode == "state-image-urls":
        body["state"] = [*({"type": "image_url", "image_url": {"url": url}} for url in urls), request.state]
    else:
        assets: dict[str, Any] = {}
        for index, image in enumerate(request.images, start=1):
            fmt = _ASSET_FORMATS.get(image.mime_type)
            if fmt is None:
                raise RequestFailed(f"{label} accepts PNG and JPEG images for {model.id}, got {image.mime_type}")
            assets[f"<image-{index}>"] = {"type": "image", "format": fmt, "data_base64": image.data}
        body["assets"] = assets
        body["state"] = [*assets, request.state]
    return body, opt_in


def _probabilities(value: Any, qid: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise UnexpectedResponse(f"invalid probabilities for {qid}")
    return {str(key): number(p, f"probability for {qid}.{key}") for key, p in value.items()}


def parse_answers(value: Any, request: ClassifierInput) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise UnexpectedResponse("no answers object")
    out: dict[str, dict[str, Any]] = {}
    for qid, question in request.questions.items():
        answer = value.get(qid)
        if not isinstance(answer, dict):
            raise UnexpectedResponse(f"no answer for {qid}")
        kind = answer.get("type")
        if question["type"] == "choice":
            if kind != "choice" or not isinstance(answer.get("choice"), str):
                raise UnexpectedResponse(f"no choice answer for {qid}")
            out[qid] = {
                "type": "choice",
                "choice": answer["choice"],
                "probabilities": _probabilities(answer.get("probabilities"), qid),
                "confidence": number(answer.get("confidence"), f"confidence for {qid}"),
            }
        elif question["type"] == "score":
            if kind != "score":
                raise UnexpectedResponse(f"no score answer for {qid}")
            out[qid] = {
                "type": "score",
                "score": number(answer.get("score"), f"score for {qid}"),
                "confidence": number(answer.get("confidence"), f"confidence for {qid}"),
            }
        else:
            if kind != "noul":
                raise UnexpectedResponse(f"no bool answer for {qid}")
            out[qid] = {"type": "bool", "probability": number(answer.get("noul"), f"probability for {qid}")}
    return out


def _cloudflare_output(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise UnexpectedResponse("not a JSON object")
    if body.get("success") is False:
        errors = body.get("errors")
        messages = [e["message"] for e in errors or [] if isinstance(e, dict) and isinstance(e.get("message"), str)]
        raise RequestFailed(
            f"Cloudflare Workers AI error: {'; '.join(messages)}"
            if messages
            else "Cloudflare Workers AI request failed"
        )
    result = body.get("result")
    if not isinstance(result, dict):
        raise UnexpectedResponse("no result object")
    if "answers" in result:
        return result
    if result.get("state") != "Completed":
        raise RequestFailed(f"Cloudflare Workers AI run did not complete (state: {result.get('state')}); retry later")
    inner = result.get("result")
    if not isinstance(inner, dict):
        raise UnexpectedResponse("no result in the completed run")
    return inner


async def classify(model: ClassifierModel, request: ClassifierInput, options: StreamOptions) -> ClassifierResult:
    result = ClassifierResult(api=model.api, provider=model.provider, model=model.id)
    label = label_of(model)
    url = ""
    try:
        cloudflare = model.api == CLOUDFLARE_API
        url = f"{base_url(model, options)}{_path(model)}"
        wire, opt_in = wire_request(model, request)
        body = {"model": model.id, "input": wire} if cloudflare else {"model": model.id, **wire}
        if opt_in:
            options = replace(options, headers={IMAGE_OPT_IN_HEADER: "true", **(options.headers or {})})
        answer = await post_json(model, url, body, options)
        output = _cloudflare_output(answer) if cloudflare else answer
        if not isinstance(output, dict):
            raise UnexpectedResponse("not a JSON object")
        result.usage = token_usage(model, output.get("usage"))  # billed even when the answers are unusable
        result.answers = parse_answers(output.get("answers"), request)
    except Exception as error:
        result.fail(failure_text(label, model, url, error))
    return result


__all__ = ["CLOUDFLARE_API", "IMAGE_OPT_IN_HEADER", "TYPESAFE_API", "classify", "parse_answers", "wire_request"]
