"""Classifier wire APIs against loopback servers speaking their real protocols: OpenAI Decisions,
System One (TypeSafe's and OpenRouter's image forms, Cloudflare's envelope) and llama.cpp's
next-token read-out, plus the errors a bad answer gives."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.ai.model_operations import classify
from pi.ai.model_types import ClassifierModel
from pi.ai.model_types_catalog import catalog_typed_models
from pi.ai.options import StreamOptions
from tests.support.http_server import ScriptedResponse, ScriptedServer, json_response
from tests.support.loopback_http import LoopbackHTTP, QuietHandler

QUESTIONS: dict[str, Any] = {
    "mood": {"type": "choice", "instructions": "How does the user feel?", "criteria": {"happy": "pleased", "sad": ""}},
    "urgency": {"type": "score", "instructions": "How urgent?", "criteria": ["not", "somewhat", "very"]},
    "spam": {"type": "bool", "instructions": "Is it spam?", "criteria": {"true": "an ad", "false": "a real message"}},
}
CONTEXT = {"state": {"message": "I love it"}, "questions": QUESTIONS}
PNG = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def catalog(provider: str, model_id: str, server: ScriptedServer, path: str = "") -> ClassifierModel:
    model = next(m for m in catalog_typed_models(provider) if m.id == model_id)
    assert isinstance(model, ClassifierModel)
    return model.model_copy(update={"base_url": f"{server.url}{path}"})


def options(**kwargs: Any) -> StreamOptions:
    return StreamOptions(api_key="sk-test", max_retries=0, **kwargs)


# -- OpenAI Decisions --------------------------------------------------------------------------------


DECISIONS_ANSWER = {
    "answers": [
        {
            "name": "mood",
            "type": "choice",
            "choice": "happy",
            "probabilities": [{"value": "happy", "probability": 0.9}, {"value": "sad", "probability": 0.1}],
            "confidence": 0.8,
        },
        {"name": "urgency", "type": "score", "score": 0.4, "confidence": 0.5},
        {"name": "spam", "type": "predicate", "probability": 0.05},
    ],
    "usage": {"input_tokens": 1000, "output_tokens": 3},
}


async def test_openai_decisions_request_and_answers(server: ScriptedServer) -> None:
    model = catalog("openai", "gpt-6-luna", server, "/v1")
    server.queue(json_response(200, DECISIONS_ANSWER))
    result = await classify(model, {**CONTEXT, "images": [PNG]}, options())
    assert result.stop_reason == "stop", result.error_message
    request = server.requests[0]
    assert request.path == "/v1/decisions"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = request.json()
    assert body["model"] == "gpt-6-luna"
    assert body["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": '{"message":"I love it"}'},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            ],
        }
    ]
    assert body["questions"] == [
        {
            "type": "choice",
            "name": "mood",
            "instructions": "How does the user feel?",
            "choices": [{"value": "happy", "description": "pleased"}, {"value": "sad"}],
        },
        {
            "type": "score",
            "name": "urgency",
            "instructions": "How urgent?",
            "levels": [{"label": "not"}, {"label": "somewhat"}, {"label": "very"}],
        },
        {
            "type": "predicate",
            "name": "spam",
            "instructions": "Is it spam?\n\nTrue means: an ad\nFalse means: a real message",
        },
    ]
    assert result.answers == {
        "mood": {"type": "choice", "choice": "happy", "probabilities": {"happy": 0.9, "sad": 0.1}, "confidence": 0.8},
        "urgency": {"type": "score", "score": 0.4, "confidence": 0.5},
        "spam": {"type": "bool", "probability": 0.05},
    }
    assert result.usage is not None and result.usage.input == 1000
    assert math.isclose(result.usage.cost.total, 1000 * 0.1 / 1e6)


async def test_openai_decisions_text_only_input_is_the_state_as_json_text(server: ScriptedServer) -> None:
    model = catalog("openai", "gpt-6-luna", server, "/v1")
    server.queue(json_response(200, DECISIONS_ANSWER))
    await classify(model, CONTEXT, options())
    assert server.requests[0].json()["input"] == '{"message":"I love it"}'


async def test_a_refusal_and_a_missing_answer_are_errors_that_keep_the_billed_usage(server: ScriptedServer) -> None:
    model = catalog("openai", "gpt-6-luna", server, "/v1")
    refused = {"answers": [{"name": "spam", "type": "refusal"}], "usage": {"input_tokens": 10, "output_tokens": 0}}
    server.queue(json_response(200, refused), json_response(200, {"answers": []}))
    spam_only = {"state": {}, "questions": {"spam": QUESTIONS["spam"]}}
    first = await classify(model, spam_only, options())
    assert first.stop_reason == "error" and first.error_message == "OpenAI Decisions refused to answer spam"
    assert first.usage is not None and first.usage.input == 10 and first.answers == {}
    second = await classify(model, spam_only, options())
    assert second.error_message is not None
    assert second.error_message.startswith("OpenAI Decisions returned an unexpected response (no answer for spam)")
    assert "provider openai" in second.error_message and 'base URL of provider "openai"' in second.error_message


async def test_decisions_do_not_retry_a_gateway_timeout_but_retry_an_overload(server: ScriptedServer) -> None:
    model = catalog("openai", "gpt-6-luna", server, "/v1")
    server.queue(
        json_response(504, "<html>Gateway Time-out</html>"),
        json_response(503, {"error": {"message": "busy"}}),
        json_response(200, DECISIONS_ANSWER),
    )
    retrying = StreamOptions(api_key="sk-test", max_retries=2)
    timed_out = await classify(model, CONTEXT, retrying)
    assert len(server.requests) == 1 and timed_out.stop_reason == "error"
    assert timed_out.error_message is not None
    assert timed_out.error_message.startswith("OpenAI Decisions error (504): the request timed out at the gateway.")
    recovered = await classify(model, CONTEXT, retrying)
    assert recovered.stop_reason == "stop", recovered.error_message
    assert len(server.requests) == 3


async def test_a_server_that_is_not_a_classifier_names_the_provider_and_the_fix(server: ScriptedServer) -> None:
    model = catalog("typesafe", "jev-latest", server)
    server.queue(ScriptedResponse(status=200, chunks=[b"<html>hello</html>"], headers={"content-type": "text/html"}))
    result = await classify(model, CONTEXT, options())
    assert result.stop_reason == "error"
    assert result.error_message == (
        f"System One API returned an unexpected response (the answer is not JSON) from provider typesafe at "
        f'{server.url}/systemone. Check that the base URL of provider "typesafe" points at a System One API '
        "server (models.json or the extension that registered it), then retry."
    )


async def test_http_refusal_and_missing_key_say_what_to_do(server: ScriptedServer) -> None:
    model = catalog("typesafe", "jev-latest", server)
    server.queue(json_response(401, {"error": {"message": "bad key"}}))
    refused = await classify(model, CONTEXT, options())
    assert refused.error_message is not None and refused.error_message.startswith("System One API error: 401")
    assert "check the API key" in refused.error_message
    no_key = await classify(model, CONTEXT, StreamOptions())
    assert no_key.error_message is not None and no_key.error_message.startswith("No API key for provider: typesafe.")
    assert len(server.requests) == 1


async def test_invalid_questions_fail_before_any_request(server: ScriptedServer) -> None:
    model = catalog("typesafe", "jev-latest", server)
    bad = await classify(model, {"state": {}, "questions": {"q": {"type": "rank", "instructions": "x"}}}, options())
    assert bad.error_message == 'Question "q": type must be "choice", "score" or "bool", got \'rank\''
    text_only = catalog("github-copilot", "microsoft-decision-1", server)
    images = await classify(text_only, {**CONTEXT, "images": [PNG]}, options())
    assert images.error_message is not None and "does not accept image input" in images.error_message
    assert server.requests == []


# -- System One ----------------------------------------------------------------------------------------


SYSTEM_ONE_ANSWERS = {
    "mood": {"type": "choice", "choice": "sad", "probabilities": {"happy": 0.3, "sad": 0.7}, "confidence": 0.4},
    "urgency": {"type": "score", "score": 1.5, "confidence": 0.6},
    "spam": {"type": "noul", "noul": 0.2},
}


async def test_typesafe_sends_bool_as_noul_and_images_as_assets_with_the_opt_in_header(
    server: ScriptedServer,
) -> None:
    model = catalog("typesafe", "jev-latest", server)
    server.queue(json_response(200, {"answers": SYSTEM_ONE_ANSWERS, "usage": {"input_tokens": 5, "output_tokens": 1}}))
    result = await classify(model, {**CONTEXT, "images": [PNG]}, options())
    assert result.stop_reason == "stop", result.error_message
    request = server.requests[0]
    assert request.path == "/systemone"
    assert request.headers["typesafe-danger-zone-images"] == "true"
    body = request.json()
    assert body["model"] == "jev-latest"
    assert body["questions"]["spam"]["type"] == "noul" and body["questions"]["mood"] == QUESTIONS["mood"]
    assert body["assets"] == {"<image-1>": {"type": "image", "format": "png", "data_base64": "iVBORw0KGgo="}}
    assert body["state"] == ["<image-1>", {"message": "I love it"}]
    assert result.answers["spam"] == {"type": "bool", "probability": 0.2}
    assert result.answers["mood"]["choice"] == "sad"


async def test_openrouter_puts_images_into_the_state_and_sends_no_opt_in(server: ScriptedServer) -> None:
    model = catalog("openrouter", "~typesafe/jev-latest", server, "/api/v1")
    server.queue(json_response(200, {"answers": SYSTEM_ONE_ANSWERS}))
    result = await classify(model, {**CONTEXT, "images": [PNG]}, options())
    assert result.stop_reason == "stop", result.error_message
    request = server.requests[0]
    assert request.path == "/api/v1/systemone" and "typesafe-danger-zone-images" not in request.headers
    assert request.json()["state"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"message": "I love it"},
    ]


async def test_cloudflare_posts_to_run_and_unwraps_both_envelopes(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acct-1")
    clef = next(m for m in catalog_typed_models("cloudflare-workers-ai") if m.id == "@cf/cloudflare/clef")
    assert isinstance(clef, ClassifierModel)
    clef = clef.model_copy(update={"base_url": f"{server.url}/accounts/{{CLOUDFLARE_ACCOUNT_ID}}/ai"})
    jev = clef.model_copy(update={"id": "typesafe/jev", "compat": None})
    server.queue(
        json_response(200, {"success": True, "result": {"model": clef.id, "answers": SYSTEM_ONE_ANSWERS}}),
        json_response(
            200, {"success": True, "result": {"state": "Completed", "result": {"answers": SYSTEM_ONE_ANSWERS}}}
        ),
        json_response(200, {"success": False, "errors": [{"message": "quota exceeded"}]}),
    )
    direct = await classify(clef, {**CONTEXT, "images": [PNG]}, options())
    wrapped = await classify(jev, CONTEXT, options())
    failed = await classify(jev, CONTEXT, options())
    assert direct.stop_reason == "stop" and wrapped.stop_reason == "stop", (direct, wrapped)
    first = server.requests[0]
    assert first.path == "/accounts/acct-1/ai/run"
    assert first.json()["model"] == "@cf/cloudflare/clef"
    assert first.json()["input"]["images"] == ["data:image/png;base64,iVBORw0KGgo="]
    assert first.json()["input"]["questions"]["spam"]["type"] == "noul"
    assert wrapped.answers["urgency"] == {"type": "score", "score": 1.5, "confidence": 0.6}
    assert failed.error_message == "Cloudflare Workers AI error: quota exceeded"


async def test_cloudflare_without_an_account_id_says_which_variable_to_set(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    clef = catalog_typed_models("cloudflare-workers-ai")[0]
    assert isinstance(clef, ClassifierModel)
    result = await classify(clef, CONTEXT, options())
    assert result.error_message is not None and "set CLOUDFLARE_ACCOUNT_ID" in result.error_message


async def test_an_abort_ends_the_call_with_an_aborted_result(server: ScriptedServer) -> None:
    model = catalog("typesafe", "jev-latest", server)
    server.queue(ScriptedResponse(status=200, chunks=[], headers={"content-type": "text/event-stream"}, hold_open=30))
    controller = AbortController()
    task = asyncio.ensure_future(classify(model, CONTEXT, options(signal=controller.signal)))
    deadline = asyncio.get_running_loop().time() + 30
    while not server.requests and asyncio.get_running_loop().time() < deadline:  # until the request arrived
        await asyncio.sleep(0.01)
    assert server.requests and not task.done()
    controller.abort()
    result = await asyncio.wait_for(task, 10)
    assert result.stop_reason == "aborted"


# -- llama.cpp -----------------------------------------------------------------------------------------


class LlamaServer:
    """A loopback llama-server: /tokenize from a vocabulary, /apply-template, and scripted /completion read-outs."""

    def __init__(self, vocabulary: dict[str, list[int]], readouts: list[dict[int, float]]) -> None:
        self.vocabulary = vocabulary
        self.readouts = list(readouts)
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        stub = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                stub.requests.append((self.path, body, {k.lower(): v for k, v in self.headers.items()}))
                if self.path == "/tokenize":
                    answer: Any = {"tokens": stub.vocabulary[body["content"]]}
                elif self.path == "/apply-template":
                    answer = {"prompt": "<|user|>" + body["messages"][1]["content"] + "<|assistant|><think>"}
                else:
                    top = stub.readouts.pop(0)
                    answer = {
                        "completion_probabilities": [
                            {"top_logprobs": [{"id": i, "logprob": v} for i, v in top.items()]}
                        ]
                    }
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = LoopbackHTTP(Handler).start()

    @property
    def url(self) -> str:
        return self.server.url


def llama_model(url: str) -> ClassifierModel:
    return ClassifierModel(id="qwen", name="Qwen", api="llama-cpp-classify", provider="llama-cpp", base_url=f"{url}/v1")


async def test_llama_cpp_reads_the_label_probabilities() -> None:
    vocabulary = {"\n": [10], "\nYes": [10, 501], "\nNo": [10, 502]}
    readouts = [{501: math.log(0.6), 7: -1.0}, {501: math.log(0.6), 502: math.log(0.2)}]
    stub = LlamaServer(vocabulary, readouts)
    try:
        context = {"state": {"message": "buy now"}, "questions": {"spam": QUESTIONS["spam"]}}
        result = await classify(llama_model(stub.url), context, StreamOptions(max_retries=0))
    finally:
        stub.server.stop()
    assert result.stop_reason == "stop", result.error_message
    assert math.isclose(result.answers["spam"]["probability"], 0.75)
    paths = [path for path, _, _ in stub.requests]
    assert sorted(paths[:-2]) == ["/apply-template", "/tokenize", "/tokenize", "/tokenize", "/tokenize"]
    assert paths[-2:] == ["/completion", "/completion"]
    template = next(body for path, body, _ in stub.requests if path == "/apply-template")
    assert template["chat_template_kwargs"] == {"enable_thinking": False} and template["model"] == "qwen"
    assert [m["role"] for m in template["messages"]] == ["system", "user"]
    assert "Is it spam?" in template["messages"][1]["content"]
    first, second = (body for path, body, _ in stub.requests if path == "/completion")
    assert first["prompt"].endswith("<think></think>")
    assert first["n_predict"] == 1 and first["n_probs"] == 256 and first["temperature"] == 0
    assert second["n_probs"] == 4096
    assert all("authorization" not in headers for _, _, headers in stub.requests)


async def test_llama_cpp_rejects_images_and_too_few_options_before_any_request(server: ScriptedServer) -> None:
    model = llama_model(server.url)
    images = await classify(model, {**CONTEXT, "images": [PNG]}, StreamOptions())
    one = {"state": {}, "questions": {"q": {"type": "choice", "instructions": "x", "criteria": {"only": ""}}}}
    single = await classify(model, one, StreamOptions())
    assert images.error_message is not None and "does not accept image input" in images.error_message
    assert single.error_message == "A choice question needs 2 to 62 options, got 1"
    assert server.requests == []
