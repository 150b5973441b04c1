"""One key rule for every wire API: the key passed in, else the provider's own variables, never another's."""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai import stream
from pi.ai.env_api_keys import ENV_KEYS
from pi.ai.types import Context, Model, UserMessage
from tests.support.http_server import ScriptedResponse, ScriptedServer, named_sse, sse

OPENAI_SECRET = "sk-openai-secret"

COMPLETIONS_OK = sse(
    {"id": "c1", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}, "[DONE]"
)
RESPONSES_OK = named_sse(
    ("response.output_item.added", {"type": "response.output_item.added", "item": {"type": "message", "id": "m1"}}),
    ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "ok"}),
    ("response.completed", {"type": "response.completed", "response": {"status": "completed"}}),
)
ANTHROPIC_OK = named_sse(
    ("message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 1, "output_tokens": 0}}}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
    ("message_stop", {"type": "message_stop"}),
)
GOOGLE_OK = sse({"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}]})
REPLIES = {
    "openai-completions": COMPLETIONS_OK,
    "openai-responses": RESPONSES_OK,
    "anthropic-messages": ANTHROPIC_OK,
    "google-generative-ai": GOOGLE_OK,
}


@pytest.fixture(autouse=True)
def only_the_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for names in ENV_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)


def model(server: ScriptedServer, provider: str, api: str) -> Model:
    base = f"{server.url}/v1" if api.startswith("openai") else server.url
    return Model(id="some-model", name="Some model", api=api, provider=provider, base_url=base)


async def ask(server: ScriptedServer, target: Model, **options: Any) -> Any:
    # A reply is ready, so a request that went out (with whatever key) would succeed.
    server.queue(ScriptedResponse(chunks=REPLIES[target.api]))
    events = stream(target, Context(messages=[UserMessage(content="hi")]), **options)
    kinds = [event.type async for event in events]
    return kinds, await events.result()


def leaked(server: ScriptedServer) -> bool:
    return any(OPENAI_SECRET in value for request in server.requests for value in request.headers.values())


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
async def test_groq_never_receives_the_openai_key(server: ScriptedServer, api: str) -> None:
    kinds, message = await ask(server, model(server, "groq", api))
    assert kinds == ["error"]
    assert message.stop_reason == "error"
    assert message.error_message == "No API key for provider: groq\nSet GROQ_API_KEY, or pass an API key."
    assert server.requests == [] and not leaked(server)


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
async def test_a_custom_provider_never_receives_the_openai_key(server: ScriptedServer, api: str) -> None:
    kinds, message = await ask(server, model(server, "my-llm", api))
    assert kinds == ["error"]
    assert message.error_message == (
        'No API key for provider: my-llm\nAdd "apiKey" to the "my-llm" provider in models.json, or pass an API key.'
    )
    assert server.requests == [] and not leaked(server)


@pytest.mark.parametrize(("provider", "api", "variable"), [
    ("anthropic", "anthropic-messages", "ANTHROPIC_AUTH_TOKEN or ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY"),
    ("google", "google-generative-ai", "GEMINI_API_KEY"),
])  # fmt: skip
async def test_other_wire_apis_name_their_own_variables(
    server: ScriptedServer, provider: str, api: str, variable: str
) -> None:
    _, message = await ask(server, model(server, provider, api))
    assert message.stop_reason == "error"
    assert message.error_message == f"No API key for provider: {provider}\nSet {variable}, or pass an API key."
    assert server.requests == []


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
async def test_the_openai_provider_still_reads_openai_api_key(server: ScriptedServer, api: str) -> None:
    kinds, message = await ask(server, model(server, "openai", api))
    assert message.stop_reason == "stop", message.error_message
    assert kinds[-1] == "done"
    assert server.requests[0].headers["authorization"] == f"Bearer {OPENAI_SECRET}"


@pytest.mark.parametrize("api", list(REPLIES))
async def test_a_key_passed_in_is_what_a_custom_provider_receives(server: ScriptedServer, api: str) -> None:
    _, message = await ask(server, model(server, "local-llm", api), api_key="local-placeholder")
    assert message.stop_reason == "stop", message.error_message
    headers = server.requests[0].headers
    assert "local-placeholder" in (headers.get("authorization", "") + headers.get("x-api-key", "")
                                   + headers.get("x-goog-api-key", ""))  # fmt: skip
    assert not leaked(server)
