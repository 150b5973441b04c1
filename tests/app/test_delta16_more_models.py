"""The `pi` process end to end: `/` in provider ids (delta-1.6 §1.4.2), cost tiers, image limits, compat (§7.1.5-6)."""

from __future__ import annotations

import json
from typing import Any

from tests.app.test_cli_files import _png
from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply, tool_reply


def _providers(env: Env, extra: dict[str, dict[str, object]]) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    base = models["providers"]["fake"]
    for name, fields in extra.items():
        models["providers"][name] = {**base, **fields}
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_the_longest_provider_prefix_with_a_slash_wins(env: Env) -> None:
    # "fake" also offers a model whose id is "eu/edge", so the first segment alone would pick it.
    _providers(
        env,
        {
            "fake": {"models": [{"id": "eu/edge"}, {"id": "fake-model"}]},
            "fake/eu": {"apiKey": "eu-key", "models": [{"id": "edge"}]},
        },
    )
    env.server.queue(text_reply("from eu"))
    done = env.run("-p", "--model", "fake/eu/edge", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "from eu\n"
    request = env.server.requests[-1]
    assert request.headers["authorization"] == "Bearer eu-key"
    assert request.json()["model"] == "edge"


def test_a_slash_provider_prefix_takes_a_fuzzy_model_of_that_provider(env: Env) -> None:
    _providers(env, {"team/gw": {"apiKey": "gw-key", "models": [{"id": "gw-large-20250101"}]}})
    env.server.queue(text_reply("fuzzy"))
    done = env.run("-p", "--model", "team/gw/large", "hi")
    assert done.returncode == 0, done.stderr
    assert env.server.requests[-1].json()["model"] == "gw-large-20250101"
    assert env.server.requests[-1].headers["authorization"] == "Bearer gw-key"


def _assistant_costs(stdout: str) -> list[dict[str, float]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return [
        e["message"]["usage"]["cost"]
        for e in events
        if e.get("type") == "message_end" and e["message"].get("role") == "assistant"
    ]


def test_a_cost_tier_prices_the_whole_request_once_its_input_exceeds_the_threshold(env: Env) -> None:
    tiers = [
        {"inputTokensAbove": 1000, "input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0},
        {"inputTokensAbove": 4000, "input": 100, "output": 200, "cacheRead": 0, "cacheWrite": 0},
    ]
    _providers(env, {"fake": {"models": [{"id": "fake-model", "cost": {"input": 1, "output": 2, "tiers": tiers}}]}})
    cases = [(500, 1.0, 2.0), (2000, 10.0, 20.0), (5000, 100.0, 200.0)]
    for prompt_tokens, input_price, output_price in cases:
        env.server.queue(text_reply("ok", prompt_tokens=prompt_tokens, completion_tokens=100))
        done = env.run("--mode", "json", "--provider", "fake", "--model", "fake-model", "hi")
        assert done.returncode == 0, done.stderr
        (cost,) = _assistant_costs(done.stdout)
        assert abs(cost["input"] - input_price * prompt_tokens / 1e6) < 1e-12, (prompt_tokens, cost)
        assert abs(cost["output"] - output_price * 100 / 1e6) < 1e-12, (prompt_tokens, cost)
        assert abs(cost["total"] - cost["input"] - cost["output"]) < 1e-12


IMAGE_PART = '"type": "image_url"'


def _vision_model(env: Env, images: dict[str, object]) -> None:
    model = {"id": "fake-model", "input": ["text", "image"], "inputLimits": {"images": images}}
    _providers(env, {"fake": {"models": [model]}})


def test_images_beyond_the_models_per_message_limit_are_replaced_by_a_note(env: Env) -> None:
    _vision_model(env, {"maxPerMessage": 1})
    for name in ("a.png", "b.png", "c.png"):
        (env.cwd / name).write_bytes(_png())
    env.server.queue(text_reply("seen"))
    done = env.run("-p", "--provider", "fake", "--model", "fake-model", "@a.png", "@b.png", "@c.png", "look")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(env.server.requests[-1].json()["messages"])
    assert sent.count(IMAGE_PART) == 1
    assert sent.count("(image omitted: this model takes at most 1 images per message)") == 2


def test_images_beyond_the_models_per_request_limit_drop_the_oldest_first(env: Env) -> None:
    _vision_model(env, {"maxPerRequest": 2})
    for name in ("a.png", "b.png", "c.png"):
        (env.cwd / name).write_bytes(_png())
    calls = [("read", {"path": name}) for name in ("a.png", "b.png", "c.png")]
    env.server.queue(tool_reply(calls), text_reply("seen"))
    done = env.run("-p", "--provider", "fake", "--model", "fake-model", "look at them")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(env.server.requests[-1].json()["messages"])
    assert sent.count(IMAGE_PART) == 2
    note = "(image omitted: this model takes at most 2 images per request; only the latest are sent)"
    assert sent.count(note) == 1
    assert sent.index(note) < sent.index(IMAGE_PART)


def test_a_model_without_image_limits_gets_every_image(env: Env) -> None:
    _providers(env, {"fake": {"models": [{"id": "fake-model", "input": ["text", "image"]}]}})
    for name in ("a.png", "b.png", "c.png"):
        (env.cwd / name).write_bytes(_png())
    env.server.queue(text_reply("seen"))
    done = env.run("-p", "--provider", "fake", "--model", "fake-model", "@a.png", "@b.png", "@c.png", "look")
    assert done.returncode == 0, done.stderr
    assert json.dumps(env.server.requests[-1].json()["messages"]).count(IMAGE_PART) == 3


def _continue_without_tools(env: Env) -> dict[str, Any]:
    (env.cwd / "note.txt").write_text("hello\n")
    env.server.queue(tool_reply([("read", {"path": "note.txt"})]), text_reply("read it"))
    first = env.run("-p", "--provider", "fake", "--model", "fake-model", "read note.txt")
    assert first.returncode == 0, first.stderr
    env.server.queue(text_reply("again"))
    second = env.run("-c", "-p", "--no-tools", "--provider", "fake", "--model", "fake-model", "and now?")
    assert second.returncode == 0, second.stderr
    body: dict[str, Any] = env.server.requests[-1].json()
    assert any(m.get("role") == "tool" for m in body["messages"])
    return body


def test_tools_are_left_out_without_tools_even_with_tool_history(env: Env) -> None:
    assert "tools" not in _continue_without_tools(env)


def test_requires_tools_with_tool_history_sends_an_empty_tools_list(env: Env) -> None:
    _providers(env, {"fake": {"compat": {"requiresToolsWithToolHistory": True}}})
    assert _continue_without_tools(env)["tools"] == []
