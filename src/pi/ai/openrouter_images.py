"""The ``openrouter-images`` API: image generation through OpenRouter's chat completions endpoint.

Request: ``POST <base>/chat/completions`` with ``{model, messages: [{role: "user", content}],
stream: false, modalities}``; content is ``text`` parts and ``image_url`` parts (data URLs), and
``modalities`` is ``["image", "text"]`` when the model can also answer with text, else ``["image"]``.
Answer: ``choices[0].message.content`` (text, optional) and ``choices[0].message.images``, each
``{image_url: {url: "data:<mime>;base64,<data>"}}`` (a bare string URL is accepted too), plus the
usual ``usage`` (``prompt_tokens``, ``completion_tokens``, ``prompt_tokens_details.cached_tokens`` /
``cache_write_tokens``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pi.ai.model_types import ImageModel, ImagesResult
from pi.ai.options import StreamOptions
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.typed_requests import RequestFailed, UnexpectedResponse, base_url, failure_text, post_json
from pi.ai.types import Cost, ImageContent, TextContent, Usage

LABEL = "OpenRouter images"
_DATA_URL = re.compile(r"^data:([^;]+);base64,(.+)$", re.DOTALL)


def images_input(context: Any) -> list[TextContent | ImageContent]:
    """The ``input`` blocks of an images context: ``{input: [text or image blocks]}`` or a plain prompt string."""
    raw = context.get("input") if isinstance(context, Mapping) else context
    if isinstance(raw, str):
        return [TextContent(text=raw)]
    if not isinstance(raw, list) or not raw:
        raise RequestFailed('The images context must be {"input": [text and image blocks]} with at least one block')
    out: list[TextContent | ImageContent] = []
    for item in raw:
        if isinstance(item, (TextContent, ImageContent)):
            out.append(item)
        elif isinstance(item, Mapping) and item.get("type") == "text" and isinstance(item.get("text"), str):
            out.append(TextContent(text=item["text"]))
        elif (
            isinstance(item, Mapping)
            and item.get("type") == "image"
            and isinstance(item.get("data"), str)
            and isinstance(item.get("mimeType") or item.get("mime_type"), str)
        ):
            out.append(ImageContent(data=item["data"], mime_type=item.get("mimeType") or item["mime_type"]))
        else:
            raise RequestFailed(
                'Each images input block must be {"type": "text", "text"} or {"type": "image", "data", "mimeType"}'
            )
    return out


def request_body(model: ImageModel, blocks: list[TextContent | ImageContent]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": sanitize_surrogates(block.text)}
        if isinstance(block, TextContent)
        else {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}
        for block in blocks
    ]
    return {
        "model": model.id,
        "messages": [{"role": "user", "content": content}],
        "stream": False,
        "modalities": ["image", "text"] if "text" in model.output else ["image"],
    }


def _usage(model: ImageModel, raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    found = raw.get("prompt_tokens_details")
    details: dict[str, Any] = found if isinstance(found, dict) else {}
    prompt = int(raw.get("prompt_tokens") or 0)
    cached = int(details.get("cached_tokens") or 0)
    written = int(details.get("cache_write_tokens") or 0)
    read = max(0, cached - written) if written > 0 else cached
    fresh = max(0, prompt - read - written)
    output = int(raw.get("completion_tokens") or 0)
    price = model.cost
    cost = Cost(
        input=price.input / 1e6 * fresh,
        output=price.output / 1e6 * output,
        cache_read=price.cache_read / 1e6 * read,
        cache_write=price.cache_write / 1e6 * written,
        total_from_provider=False,
    )
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return Usage(
        input=fresh,
        output=output,
        cache_read=read,
        cache_write=written,
        total_tokens=fresh + output + read + written,
        cost=cost,
    )


def parse_output(answer: Any) -> list[TextContent | ImageContent]:
    if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list):
        raise UnexpectedResponse("no choices")
    if not answer["choices"]:
        return []
    message = answer["choices"][0].get("message") if isinstance(answer["choices"][0], dict) else None
    if not isinstance(message, dict):
        raise UnexpectedResponse("no message in the first choice")
    out: list[TextContent | ImageContent] = []
    if isinstance(message.get("content"), str) and message["content"]:
        out.append(TextContent(text=message["content"]))
    for image in message.get("images") or []:
        ref = image.get("image_url") if isinstance(image, dict) else None
        url = ref if isinstance(ref, str) else ref.get("url") if isinstance(ref, dict) else None
        match = _DATA_URL.match(url) if isinstance(url, str) else None
        if match is not None:
            out.append(ImageContent(mime_type=match.group(1), data=match.group(2)))
    return out


async def generate_images(model: ImageModel, context: Any, options: StreamOptions) -> ImagesResult:
    result = ImagesResult(api=model.api, provider=model.provider, model=model.id)
    url = ""
    try:
        url = f"{base_url(model, options)}/chat/completions"
        answer = await post_json(model, url, request_body(model, images_input(context)), options)
        result.output = parse_output(answer)
        result.response_id = answer.get("id") if isinstance(answer.get("id"), str) else None
        result.usage = _usage(model, answer.get("usage"))
    except Exception as error:
        result.fail(failure_text(LABEL, model, url, error))
    return result


__all__ = ["LABEL", "generate_images", "images_input", "parse_output", "request_body"]
