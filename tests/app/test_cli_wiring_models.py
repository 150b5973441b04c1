"""models.json as 1.6.0 reads it: JSONC, the value syntax of apiKey and headers, and the credential order."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi.app.auth import AuthStorage
from pi.app.jsonc import loads_jsonc
from pi.app.key_values import ConfigValueError, resolve_config_value
from pi.app.model_registry import ModelRegistry
from pi.app.models_file import load_models_file
from tests.support.cli_env import MODEL, PI, Env
from tests.support.openai_chunks import text_reply


def _fake_provider(env: Env, **fields: Any) -> None:
    provider = {
        "baseUrl": f"{env.server.url}/v1",
        "api": "openai-completions",
        "models": [{"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}],
        **fields,
    }
    (env.agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))


def _run(env: Env, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PI, *args],
        cwd=env.cwd,
        env={**env.vars, **(extra_env or {})},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_plain_api_key_is_sent_literally(env: Env) -> None:
    _fake_provider(env, apiKey="OPENAI_API_KEY")
    env.server.queue(text_reply("ok"))
    done = _run(env, "-p", *MODEL, "hi", extra_env={"OPENAI_API_KEY": "sk-from-the-environment"})
    assert done.returncode == 0, done.stderr
    assert env.server.requests[0].headers["authorization"] == "Bearer OPENAI_API_KEY"


def test_a_dollar_api_key_sends_the_variable(env: Env) -> None:
    _fake_provider(env, apiKey="$OPENAI_API_KEY")
    env.server.queue(text_reply("ok"))
    done = _run(env, "-p", *MODEL, "hi", extra_env={"OPENAI_API_KEY": "sk-from-the-environment"})
    assert done.returncode == 0, done.stderr
    assert env.server.requests[0].headers["authorization"] == "Bearer sk-from-the-environment"


def test_an_unset_variable_is_reported_by_name(env: Env) -> None:
    _fake_provider(env, apiKey="${PI_TEST_MISSING_KEY}")
    done = _run(env, "-p", *MODEL, "hi")
    assert done.returncode == 1
    assert 'Failed to resolve API key for provider "fake" from environment variable: PI_TEST_MISSING_KEY' in done.stderr
    assert env.server.requests == []


def test_header_commands_run_for_every_request(env: Env) -> None:
    counter = env.cwd / "count"
    command = f"!n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter}; echo token-$n"
    _fake_provider(env, apiKey="k", headers={"X-Token": command, "X-Tenant": "team-${TENANT}-$$-$!"})
    env.server.queue(text_reply("one"), text_reply("two"))
    done = _run(env, "-p", *MODEL, "first", "second", extra_env={"TENANT": "blue"})
    assert done.returncode == 0, done.stderr
    tokens = [request.headers["x-token"] for request in env.server.requests]
    assert tokens[0] != tokens[1] and tokens[1] == f"token-{counter.read_text().strip()}"
    assert env.server.requests[0].headers["x-tenant"] == "team-blue-$-!"


def test_models_json_with_comments_and_trailing_commas_works(env: Env) -> None:
    text = (
        '\ufeff{\n  // the loopback model\n  "providers": {\n    "fake": {\n'
        f'      "baseUrl": "{env.server.url}/v1", /* local */\n'
        '      "api": "openai-completions",\n      "apiKey": "k",\n'
        '      "models": [{"id": "fake-model",},],\n    },\n  },\n}\n'
    )
    (env.agent_dir / "models.json").write_text(text, encoding="utf-8")
    env.server.queue(text_reply("jsonc ok"))
    done = _run(env, "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "jsonc ok\n"


def test_jsonc_keeps_strings_and_reports_positions() -> None:
    assert loads_jsonc('{"url": "http://x//y", "note": "/* kept */", "list": [1, 2,],}') == {
        "url": "http://x//y",
        "note": "/* kept */",
        "list": [1, 2],
    }
    with pytest.raises(ValueError, match="line 3"):
        loads_jsonc('{\n  // comment\n  "a" 1\n}')


def test_models_json_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text('{"providers": {')
    parsed, error = load_models_file(path)
    assert parsed is None and error is not None
    assert error.startswith("Failed to parse models.json: ") and error.endswith(f"\n\nFile: {path}")
    path.write_text('{"providers": {"x": {"models": [{"id": 3}]}}}')
    parsed, error = load_models_file(path)
    assert parsed is None and error is not None
    assert error.startswith("Invalid models.json schema:\n  - ") and error.endswith(f"\n\nFile: {path}")


def test_value_syntax(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TEST_A", "alpha")
    assert resolve_config_value("PI_TEST_A") == "PI_TEST_A"
    assert resolve_config_value("$PI_TEST_A") == "alpha"
    assert resolve_config_value("pre-${PI_TEST_A}-post/$PI_TEST_A") == "pre-alpha-post/alpha"
    assert resolve_config_value("$$PI_TEST_A costs $5") == "$PI_TEST_A costs $5"
    assert resolve_config_value("$!echo no") == "!echo no"
    assert resolve_config_value("!printf '  spaced  \\n'") == "spaced"
    with pytest.raises(ConfigValueError, match="Failed to resolve key from shell command: exit 3"):
        resolve_config_value("!exit 3", "key", cache=False)
    with pytest.raises(ConfigValueError, match="Failed to resolve key from shell command: true"):
        resolve_config_value("!true", "key", cache=False)
    monkeypatch.delenv("PI_TEST_A")
    with pytest.raises(ConfigValueError, match="from environment variable: PI_TEST_A"):
        resolve_config_value("${PI_TEST_A}", "key")


def test_commands_are_cached_only_when_asked(tmp_path: Path) -> None:
    counter = tmp_path / "n"
    command = f"!echo x >> {counter}; wc -l < {counter}"
    assert resolve_config_value(command, cache=False) == "1"
    assert resolve_config_value(command, cache=False) == "2"
    assert resolve_config_value(command, cache=True) == "3"
    assert resolve_config_value(command, cache=True) == "3"


def test_credential_order_runtime_auth_json_models_json_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"providers": {"openai": {"apiKey": "from-models-json"}}}))
    auth_file = tmp_path / "auth.json"
    registry = ModelRegistry(AuthStorage(auth_file), models)
    assert registry.get_api_key("openai") == "from-models-json"
    auth_file.write_text(json.dumps({"openai": {"type": "api_key", "key": "from-auth-json"}}))
    registry = ModelRegistry(AuthStorage(auth_file), models)
    assert registry.get_api_key("openai") == "from-auth-json"
    registry.auth.set_runtime_api_key("openai", "from-flag")
    assert registry.get_api_key("openai") == "from-flag"
    models.write_text(json.dumps({"providers": {"openai": {"baseUrl": "http://proxy"}}}))
    assert ModelRegistry(AuthStorage(tmp_path / "none.json"), models).get_api_key("openai") == "from-env"
