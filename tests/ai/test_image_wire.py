"""The openrouter-images API against a loopback chat-completions server: request shape, images and
text in the answer, usage, and the errors a bad answer or a refusal gives."""

from __future__ import annotations

import math

from pi.ai.model_operations import generate_images
from pi.ai.model_types import ImageModel
from pi.ai.model_types_catalog import catalog_typed_models
from pi.ai.options import StreamOptions
from pi.ai.types import ImageContent, TextContent
from tests.support.http_server import ScriptedServer, json_response

PNG = "iVBORw0KGgo="


def image_model(server: ScriptedServer, model_id: str = "google/gemini-3-pro-image") -> ImageModel:
    model = next(m for m in catalog_typed_models("openrouter") if m.id == model_id)
    assert isinstance(model, ImageModel)
    return model.model_copy(update={"base_url": f"{server.url}/api/v1"})


ANSWER = {
    "id": "gen-1",
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": "Here is your cat.",
                "images": [
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    {"type": "image_url", "image_url": "https://example.com/not-inline.png"},
                    {"type": "image_url", "image_url": f"data:image/webp;base64,{PNG}"},
                ],
            }
        }
    ],
    "usage": {"prompt_tokens": 100, "completion_tokens": 1290, "prompt_tokens_details": {"cached_tokens": 40}},
}


async def test_a_prompt_and_an_image_become_one_user_message_and_images_come_back(server: ScriptedServer) -> None:
    model = image_model(server)
    assert "text" in model.output
    server.queue(json_response(200, ANSWER))
    context = {"input": [{"type": "text", "text": "a cat"}, {"type": "image", "data": PNG, "mimeType": "image/jpeg"}]}
    result = await generate_images(model, context, StreamOptions(api_key="or-key", max_retries=0))
    assert result.stop_reason == "stop", result.error_message
    request = server.requests[0]
    assert request.path == "/api/v1/chat/completions" and request.headers["authorization"] == "Bearer or-key"
    assert request.json() == {
        "model": "google/gemini-3-pro-image",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a cat"},
                    {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{PNG}"}},
                ],
            }
        ],
        "stream": False,
        "modalities": ["image", "text"],
    }
    assert result.output == [
        TextContent(text="Here is your cat."),
        ImageContent(data=PNG, mime_type="image/png"),
        ImageContent(data=PNG, mime_type="image/webp"),
    ]
    assert result.response_id == "gen-1"
    assert result.usage is not None and (result.usage.input, result.usage.cache_read, result.usage.output) == (
        60,
        40,
        1290,
    )
    expected = 60 * model.cost.input / 1e6 + 1290 * model.cost.output / 1e6 + 40 * model.cost.cache_read / 1e6
    assert math.isclose(result.usage.cost.total, expected)


async def test_an_image_only_model_asks_for_the_image_modality_alone(server: ScriptedServer) -> None:
    model = image_model(server, "black-forest-labs/flux.2-pro")
    assert model.output == ["image"]
    server.queue(json_response(200, {"choices": [{"message": {"content": None, "images": []}}]}))
    result = await generate_images(model, "a lighthouse", StreamOptions(api_key="k", max_retries=0))
    assert result.stop_reason == "stop" and result.output == []
    body = server.requests[0].json()
    assert body["modalities"] == ["image"] and body["messages"][0]["content"] == [
        {"type": "text", "text": "a lighthouse"}
    ]


async def test_errors_name_the_provider_and_the_fix(server: ScriptedServer) -> None:
    model = image_model(server)
    server.queue(
        json_response(200, {"object": "list", "data": []}), json_response(402, {"error": {"message": "no credit"}})
    )
    options = StreamOptions(api_key="k", max_retries=0)
    shape = await generate_images(model, {"input": [{"type": "text", "text": "x"}]}, options)
    assert shape.stop_reason == "error" and shape.error_message is not None
    assert shape.error_message.startswith(
        "OpenRouter images returned an unexpected response (no choices) from provider openrouter"
    )
    assert 'Check that the base URL of provider "openrouter"' in shape.error_message
    refused = await generate_images(model, {"input": [{"type": "text", "text": "x"}]}, options)
    assert refused.error_message is not None and refused.error_message.startswith("OpenRouter images error: 402")
    empty = await generate_images(model, {"input": []}, options)
    assert empty.error_message is not None and "at least one block" in empty.error_message
    assert len(server.requests) == 2
