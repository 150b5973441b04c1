"""The `pi` process end to end: auth.json `env` of an API-key entry (delta-1.6 §7.2.2)."""

from __future__ import annotations

import json

from tests.support.cli_env import Env
from tests.support.openai_chunks import text_reply


def _setup(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    base = {k: v for k, v in models["providers"]["fake"].items() if k != "apiKey"}
    headers = {"X-Account": "$PI_TEST_ACCOUNT", "X-Command": '!printf %s "$PI_TEST_ACCOUNT"'}
    models["providers"]["fake"] = {**base, "headers": headers}
    models["providers"]["other"] = {**base, "apiKey": "other-key", "headers": {"X-Account": "$PI_TEST_ACCOUNT"}}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    auth = {
        "fake": {
            "type": "api_key",
            "key": "$PI_TEST_TOKEN",
            "env": {"PI_TEST_TOKEN": "t0k", "PI_TEST_ACCOUNT": "acct-7"},
        }
    }
    (env.agent_dir / "auth.json").write_text(json.dumps(auth))


def test_the_env_of_a_stored_key_resolves_that_providers_key_and_headers(env: Env) -> None:
    _setup(env)
    env.server.queue(text_reply("ok"))
    done = env.run("-p", "--provider", "fake", "--model", "fake-model", "hi")
    assert done.returncode == 0, done.stderr
    headers = env.server.requests[-1].headers
    assert headers["authorization"] == "Bearer t0k"
    assert headers["x-account"] == "acct-7"
    assert headers["x-command"] == "acct-7"


def test_the_env_of_a_stored_key_is_not_seen_by_another_provider(env: Env) -> None:
    _setup(env)
    env.server.queue(text_reply("ok"))
    done = env.run("-p", "--provider", "other", "--model", "fake-model", "hi")
    assert done.returncode == 0, done.stderr
    headers = env.server.requests[-1].headers
    assert headers["authorization"] == "Bearer other-key"
    assert headers.get("x-account") != "acct-7"


def test_a_cached_command_is_run_again_under_another_credential_env() -> None:
    from pi.app.key_values import resolve_config_value

    command = '!printf %s "$PI_TEST_CACHED_ENV"'
    assert resolve_config_value(command, env={"PI_TEST_CACHED_ENV": "one"}) == "one"
    assert resolve_config_value(command, env={"PI_TEST_CACHED_ENV": "two"}) == "two"
    assert resolve_config_value(command, env={"PI_TEST_CACHED_ENV": "one"}) == "one"
