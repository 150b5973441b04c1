"""The `pi` process end to end: provider ids with `/` (delta-1.6 §1.4.2) and cost tiers (§7.1.5)."""

from __future__ import annotations

import json

from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply


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
