"""The `pi` process end to end: models.json fields and non-vision handling of delta-1.6 §7.1.5, §7.5, §8.1.1."""

from __future__ import annotations

import json

from tests.app.test_cli_files import _png
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _model_fields(env: Env, **fields: object) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"][0].update(fields)
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_sampling_params_of_the_model_are_merged_into_the_request(env: Env) -> None:
    _model_fields(env, samplingParams={"temperature": 0.25, "top_k": 7})
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    body = env.server.requests[-1].json()
    assert body["temperature"] == 0.25 and body["top_k"] == 7


def test_reading_an_image_with_a_text_only_model_sends_a_placeholder_without_a_note(env: Env) -> None:
    _model_fields(env, input=["text"])
    (env.cwd / "dot.png").write_bytes(_png())
    env.server.queue(tool_reply([("read", {"path": "dot.png"})]), text_reply("seen"))
    done = env.run("-p", *MODEL, "look at it")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(env.server.requests[-1].json()["messages"])
    assert "(tool image omitted: model does not support images)" in sent
    assert "Read image file [image/png]" in sent
    assert "Current model does not support images" not in sent
    assert "image_url" not in sent


def _two_providers(env: Env, *, first_key: bool, second_key: bool) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    base = models["providers"]["fake"]
    for name, keyed in (("fake", first_key), ("fake2", second_key)):
        entry = {k: v for k, v in base.items() if k != "apiKey"}
        entry["models"] = [{"id": "shared-model", "contextWindow": 100000, "maxTokens": 4096}]
        if keyed:
            entry["apiKey"] = "test-key"
        models["providers"][name] = entry
    (env.agent_dir / "models.json").write_text(json.dumps(models))


AMBIGUOUS = 'Model "shared-model" is ambiguous across providers: fake/shared-model, fake2/shared-model.'


def test_a_bare_id_of_several_providers_goes_to_the_one_with_credentials(env: Env) -> None:
    _two_providers(env, first_key=False, second_key=True)
    env.server.queue(text_reply("from the keyed one"))
    done = env.run("-p", "--model", "shared-model", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "from the keyed one\n"
    assert env.server.requests[-1].headers["authorization"] == "Bearer test-key"


def test_an_ambiguous_bare_id_is_an_error_that_says_how_to_choose(env: Env) -> None:
    cases = [
        ((True, True), [], "More than one matching provider is authenticated."),
        ((False, False), [], "No matching provider is authenticated."),
        ((False, True), ["--api-key", "k"], "--api-key does not choose a provider."),
    ]
    for (first, second), extra, hint in cases:
        _two_providers(env, first_key=first, second_key=second)
        done = env.run("-p", "--model", "shared-model", *extra, "hi")
        assert done.returncode == 1
        assert f"{AMBIGUOUS} {hint} Use --provider or provider/model." in done.stderr
    assert env.server.requests == []


def test_a_scope_pattern_of_several_providers_adds_each_and_warns(env: Env) -> None:
    _two_providers(env, first_key=True, second_key=True)
    env.server.queue(text_reply("ok"))
    done = env.run("-p", "--models", "shared-model", "--provider", "fake", "--model", "shared-model", "hi")
    assert done.returncode == 0, done.stderr
    warning = 'Warning: Pattern "shared-model" matches several providers: fake, fake2. Use provider/id to choose one.'
    assert done.stderr.splitlines().count(warning) == 1
