"""`models.classify` and `models.generateImages` from scripts, in a real `pi` run.

An extension registers the provider `studio` with a classifier and an image model and the code that
serves them (`register_provider(..., classifiers=..., images=...)`); the scripts reach them through
the session's `ctx.model_registry`, with the provider's credentials.
"""

from __future__ import annotations

import json
from typing import Any

from tests.app.extensions.cli_support import write_extension
from tests.e2e.test_codemode import codemode_call, result_text
from tests.e2e.test_codemode_checks import CODEMODE
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply

__all__ = ["env"]

STUDIO = """
import asyncio
import base64

PNG = base64.b64encode(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(16)).decode()
state = {"in_flight": 0, "most": 0, "arrived": 0}
four_arrived = asyncio.Event()


class Judge:
    async def classify(self, model, context, options):
        state["arrived"] += 1
        state["in_flight"] += 1
        state["most"] = max(state["most"], state["in_flight"])
        if state["arrived"] >= 4:
            four_arrived.set()
        await four_arrived.wait()
        state["in_flight"] -= 1
        return {
            "api": model.api,
            "provider": model.provider,
            "model": model.id,
            "answers": {"key": {"type": "bool", "probability": 1.0 if options.api_key == "studio-key" else 0.0}},
            "usage": {"input": 3, "output": 1, "totalTokens": 4, "cost": {"total": 0.5}},
            "stopReason": "stop",
            "most": state["most"],
        }


def paint(model, context, options):
    return {
        "api": model.api,
        "provider": model.provider,
        "model": model.id,
        "output": [
            {"type": "text", "text": context["input"][0]["text"]},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
        ],
    }


def setup(pi):
    pi.register_provider(
        "studio",
        {
            "baseUrl": "http://127.0.0.1:9",
            "apiKey": "studio-key",
            "models": [
                {"id": "judge", "name": "Judge", "type": "classifier", "api": "judge-api", "contextWindow": 1000},
                {"id": "painter", "name": "Painter", "type": "image", "api": "paint-api", "output": ["image"]},
            ],
            "classifiers": {"judge-api": Judge()},
            "images": {"paint-api": {"generate_images": paint}},
        },
    )
"""
QUESTIONS = (
    "{state: {n: i}, questions: {key: {type: 'bool', instructions: 'Has a key?', "
    "criteria: {true: 'yes', false: 'no'}}}}"
)


def _run(env: Env, code: str) -> tuple[str, dict[str, Any]]:
    """The script's output as the model got it, and the codemode result's details."""
    studio = write_extension(env.agent_dir.parent, "studio.py", STUDIO)
    env.server.queue(codemode_call(code), text_reply("ok"))
    done = env.run("--mode", "json", *MODEL, *CODEMODE, "-e", str(studio), "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    end = next(e for e in events if e.get("type") == "tool_execution_end" and e.get("toolName") == "codemode")
    return result_text(env.server.requests[-1]).split("Output:\n", 1)[1], end["result"]["details"]


def test_classifier_runs_use_the_provider_credentials_and_at_most_four_run_at_once(env: Env) -> None:
    code = (
        'const [judge] = await models.getAvailableOfType("classifier", "studio");\n'
        "const runs = [1, 2, 3, 4, 5, 6].map((i) => models.classify(judge, " + QUESTIONS + "));\n"
        "const results = await Promise.all(runs);\n"
        "return {ids: (await models.getModelsOfType('classifier', 'studio')).map(m => m.id), type: judge.type,\n"
        "  keys: results.map(r => r.answers.key.probability), most: Math.max(...results.map(r => r.most || 0)),\n"
        "  stop: results[0].stopReason}"
    )
    out, details = _run(env, code)
    result = json.loads(out)
    assert result["ids"] == ["judge"] and result["type"] == "classifier"
    assert result["keys"] == [1.0] * 6  # the registered key reached the implementation
    assert result["stop"] == "stop"
    assert 1 <= result["most"] <= 4
    rows = details["calls"]
    assert [(r["name"], r["args"], r["status"], r.get("cost")) for r in rows] == [
        ("models.classify", "studio/judge", "ok", 0.5)
    ] * 6
    assert [r["id"] for r in rows] == [f"call_0_codemode/models.classify/{n}" for n in range(1, 7)]


def test_generated_images_are_shown_with_image_or_noted(env: Env) -> None:
    make = (
        'const painter = await models.getModelOfType("image", "studio", "painter");\n'
        'const result = await models.generateImages(painter, {input: [{type: "text", text: "a red dot"}]});\n'
    )
    out, _ = _run(env, make + "return result.output[0].text")
    assert out == (
        "a red dot\nNote: models.generateImages() returned 1 image that the script did not show. "
        "Show each image block of result.output with image(block)."
    )
    out, details = _run(env, make + "image(result.output[1])")
    assert out.startswith("[Image saved to ") and "(image/png, " in out and "Note:" not in out
    assert [r["name"] for r in details["calls"]] == ["models.generateImages"]


def test_a_model_of_another_type_is_refused_before_anything_runs(env: Env) -> None:
    code = (
        'const painter = await models.getModelOfType("image", "studio", "painter");\n'
        "try { await models.classify(painter, " + QUESTIONS.replace("n: i", "n: 1") + ") }\n"
        "catch (e) { return e.message }"
    )
    out, details = _run(env, code)
    assert out.startswith('models.classify() needs a classifier model; "studio/painter" is an image model.')
    assert details["calls"] == []
