"""The wording of refused requests, as pi 1.6.0 printed it for each body (measured side by side with
the same loopback server; each row is one observed `errorMessage`)."""

from __future__ import annotations

import json

import pytest

from pi.ai.http_error_text import MAX_BODY_CHARS, anthropic_error_text, openai_error_text

OPENAI_ERROR = json.dumps({"error": {"message": "boom", "type": "invalid_request_error", "code": None}})
ANTHROPIC_ERROR = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "boom"}})


@pytest.mark.parametrize(
    ("body", "completions", "anthropic"),
    [
        ('{"message": "boom"}', '400: {"message":"boom"}', "400 boom"),
        (
            OPENAI_ERROR,
            '400: {"message":"boom","type":"invalid_request_error","code":null}',
            '400 {"error":{"message":"boom","type":"invalid_request_error","code":null}}',
        ),
        (
            ANTHROPIC_ERROR,
            '400: {"type":"invalid_request_error","message":"boom"}',
            '400 {"type":"error","error":{"type":"invalid_request_error","message":"boom"}}',
        ),
        ('{"error":"boom"}', '400 "boom"', '400 {"error":"boom"}'),
        ('{"error":{}}', "400 {}", '400 {"error":{}}'),
        ("[1,2]", "400 [1,2]", "400 [1,2]"),
        ("{}", "400 {}", "400 {}"),
        ('{"message": 5}', '400: {"message":5}', "400 5"),
        (
            '{\n  "error": {\n    "message": "boom é"\n  }\n}',
            '400: {"message":"boom é"}',
            '400 {"error":{"message":"boom é"}}',
        ),
        ("plain boom", "400 plain boom", "400 plain boom"),
        ("", "400 status code (no body)", "400 status code (no body)"),
    ],
)
def test_each_body_is_worded_as_pi_words_it(body: str, completions: str, anthropic: str) -> None:
    assert openai_error_text(400, body) == completions
    assert anthropic_error_text(400, body) == anthropic


def test_the_responses_api_names_the_provider_before_the_status() -> None:
    prefix = "fake API error"
    assert openai_error_text(400, OPENAI_ERROR, prefix) == (
        'fake API error (400): {"message":"boom","type":"invalid_request_error","code":null}'
    )
    assert openai_error_text(400, "plain boom", prefix) == "fake API error (400): 400 plain boom"
    assert openai_error_text(400, "", prefix) == "fake API error (400): 400 status code (no body)"
    assert openai_error_text(400, '{"error":"boom"}', prefix) == 'fake API error (400): 400 "boom"'


def test_a_long_error_object_is_cut_with_a_note_of_how_much() -> None:
    body = json.dumps({"error": {"message": "x" * 5000}})
    text = openai_error_text(400, body)
    shown = json.dumps({"message": "x" * 5000}, separators=(",", ":"))
    assert text == f"400: {shown[:MAX_BODY_CHARS]}... [truncated {len(shown) - MAX_BODY_CHARS} chars]"
    assert text.endswith("... [truncated 1014 chars]")
