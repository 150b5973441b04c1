"""The `models` global of scripts, run in a real worker process against a registry of typed models.

The registry here is a small in-process object with the `ctx.model_registry` methods, so the
tests can see how many runs are in flight at once; the end-to-end tests run the session's own.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

from pi.app.codemode.models_global import MAX_MODEL_CALLS
from pi.app.codemode.options import parse_script
from pi.app.codemode.script_result import CallRecord, build_result
from pi.app.codemode.script_runner import ScriptRunner

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
MODELS: dict[str, list[dict[str, Any]]] = {
    "chat": [{"provider": "acme", "id": "talker", "api": "openai-completions", "headers": {"X-Key": "secret"}}],
    "classifier": [
        {"provider": "acme", "id": "judge", "api": "acme-classify", "headers": {"X-Key": "secret"}},
        {"provider": "other", "id": "judge-2", "api": "acme-classify"},
    ],
    "image": [{"provider": "acme", "id": "painter", "api": "acme-images"}],
}
QUESTIONS = (
    '{state: {text: "hi"}, questions: {tone: {type: "bool", instructions: "Friendly?", '
    'criteria: {true: "yes", false: "no"}}}}'
)


class Registry:
    """The `ctx.model_registry` methods the global uses, over `MODELS`."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.most_in_flight = 0
        self.gate = asyncio.Event()
        self.contexts: list[Any] = []

    def get_models_of_type(self, kind: str, provider: str | None = None) -> list[dict[str, Any]]:
        return [m for m in MODELS[kind] if provider in (None, m["provider"])]

    def get_available_of_type(self, kind: str, provider: str | None = None) -> list[dict[str, Any]]:
        return [m for m in self.get_models_of_type(kind, provider) if m["provider"] == "acme"]

    def get_model_of_type(self, kind: str, provider: str, model_id: str) -> dict[str, Any] | None:
        return next((m for m in MODELS[kind] if (m["provider"], m["id"]) == (provider, model_id)), None)

    async def classify(self, model: dict[str, Any], context: Any, options: dict[str, Any]) -> dict[str, Any]:
        assert options["signal"].aborted is False
        self.contexts.append(context)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await self.gate.wait()
        self.in_flight -= 1
        usage = {"input": 1, "output": 1, "cost": {"total": 0.25}}
        return {"model": model["id"], "answers": {"tone": {"type": "bool", "probability": 0.9}}, "usage": usage}

    async def generate_images(self, model: dict[str, Any], context: Any, options: dict[str, Any]) -> dict[str, Any]:
        return {"output": [{"type": "image", "data": PNG, "mimeType": "image/png"}], "stopReason": "stop"}


async def _unused_tool(name: str, args: dict[str, Any], signal: Any) -> dict[str, Any]:
    raise AssertionError(f"no tool call expected, got {name}")


async def run_script(code: str, registry: Registry, on_progress: Any = None) -> tuple[str, list[CallRecord]]:
    source = parse_script(code)
    runner = ScriptRunner(
        source, [], {}, _unused_tool, None, on_progress, model_registry=registry, tool_call_id="call_1"
    )
    run = await runner.run()
    text = str(build_result(run, source.max_output_tokens)["content"][0]["text"])
    return text.split("Output:\n", 1)[1], run.calls


async def test_catalog_lookups_drop_headers_and_filter_by_provider() -> None:
    code = (
        'const all = await models.getModelsOfType("classifier");\n'
        'const mine = await models.getAvailableOfType("classifier");\n'
        'const other = await models.getModelsOfType("classifier", "other");\n'
        'const one = await models.getModelOfType("image", "acme", "painter");\n'
        'const none = await models.getModelOfType("image", "acme", "nope");\n'
        "return {all: all.map(m => m.id), headers: all.map(m => 'headers' in m), mine: mine.map(m => m.id),\n"
        "  other: other.map(m => m.id), one: one.id, none: none === undefined}"
    )
    out, calls = await run_script(code, Registry())
    assert json.loads(out) == {
        "all": ["judge", "judge-2"],
        "headers": [False, False],
        "mine": ["judge"],
        "other": ["judge-2"],
        "one": "painter",
        "none": True,
    }
    assert calls == []


async def test_mistakes_reject_inside_the_script_with_what_to_do() -> None:
    cases = [
        'await models.getModelsOfType("video")',
        'await models.getModelOfType("image", "acme/painter")',
        f"await models.classify(undefined, {QUESTIONS})",
        f'await models.classify(await models.getModelOfType("chat", "acme", "talker"), {QUESTIONS})',
        'await models.classify({provider: "acme", id: "missing"}, {})',
        'await models.classify({provider: "acme", id: "judge"}, {state: {}, questions: {}})',
        'await models.generateImages({provider: "acme", id: "painter"}, {prompt: "a cat"})',
    ]
    code = "const out = [];\n" + "".join(
        f"try {{ {case}; out.push('resolved') }} catch (e) {{ out.push(e.message) }}\n" for case in cases
    )
    out, calls = await run_script(code + "return out", Registry())
    messages = json.loads(out)
    assert messages[0] == 'model type must be "chat", "image" or "classifier", not "video"'
    assert messages[1].startswith("models.getModelOfType takes three strings (type, provider, id)")
    assert messages[2].startswith("models.classify() needs a classifier model first, but was given undefined")
    assert '"acme/talker" is a chat model' in messages[3]
    assert 'There is no classifier model "acme/missing"' in messages[4]
    assert 'models.getAvailableOfType("classifier") lists' in messages[4]
    assert "context.questions to map question ids" in messages[5]
    assert messages[6].startswith("models.generateImages() needs context.input to be a non-empty array")
    assert calls == []


async def test_at_most_four_model_runs_are_in_flight_and_the_rest_wait_in_order() -> None:
    registry = Registry()

    def progress(calls: list[CallRecord]) -> None:
        if len(calls) == 6:  # every run has been asked for: let the ones in flight finish
            registry.gate.set()

    code = (
        'const judge = await models.getModelOfType("classifier", "acme", "judge");\n'
        f"const results = await Promise.all([1, 2, 3, 4, 5, 6].map(() => models.classify(judge, {QUESTIONS})));\n"
        "return results.map(r => r.answers.tone.probability)"
    )
    out, calls = await run_script(code, registry, progress)
    assert json.loads(out) == [0.9] * 6
    assert registry.most_in_flight == MAX_MODEL_CALLS == 4
    assert [c.to_json() | {"durationMs": 0} for c in calls] == [
        {
            "id": f"call_1/models.classify/{n}",
            "name": "models.classify",
            "args": "acme/judge",
            "status": "ok",
            "durationMs": 0,
            "cost": 0.25,
        }
        for n in range(1, 7)
    ]
    assert registry.contexts[0]["state"] == {"text": "hi"}


async def test_generated_images_the_script_never_shows_get_a_note() -> None:
    code = (
        'const painter = await models.getModelOfType("image", "acme", "painter");\n'
        'const result = await models.generateImages(painter, {input: [{type: "text", text: "a cat"}]});\n'
        "return result.output.length"
    )
    out, calls = await run_script(code, Registry())
    assert out == (
        "1\nNote: models.generateImages() returned 1 image that the script did not show. "
        "Show each image block of result.output with image(block)."
    )
    assert [c.name for c in calls] == ["models.generateImages"]
    shown = code.replace("return result.output.length", "image(result.output[0])")
    out, _ = await run_script(shown, Registry())
    assert "Note:" not in out and out.startswith("[Image saved to ")
