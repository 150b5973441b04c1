"""models.json header values that name a variable or a command: resolved per request, never sent as written.

A value that cannot be resolved (an unset `$VAR`, a failing `!command`) is left out of the request;
the `pi` process talks to loopback servers of both wire protocols to show what actually goes out.
"""

from __future__ import annotations

import json
import subprocess

from tests.support.cli_env import PI, Env
from tests.support.http_server import RecordedRequest
from tests.support.openai_chunks import text_reply
from tests.tui_e2e.anthropic_chunks import anthropic_reply

TEMPLATES = {
    "X-Set": "$PI_HDR_SET",
    "X-Braced": "pre-${PI_HDR_SET}-post",
    "X-Unset": "$PI_HDR_UNSET",
    "X-Unset-Braced": "${PI_HDR_UNSET}",
    "X-Failing-Command": "!exit 3",
    "X-Literal": "plain",
}


def _provider(env: Env, name: str, api: str, base_url: str, model_id: str) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"][name] = {
        "baseUrl": base_url,
        "api": api,
        "apiKey": "secret-key",
        "headers": TEMPLATES,
        "models": [{"id": model_id, "contextWindow": 100000, "maxTokens": 4096}],
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def _run(env: Env, provider: str, model_id: str) -> subprocess.CompletedProcess[str]:
    variables = {k: v for k, v in env.vars.items() if k != "PI_HDR_UNSET"}
    variables["PI_HDR_SET"] = "from-env"
    return subprocess.run(
        [*PI, "-p", "--provider", provider, "--model", model_id, "hi"],
        cwd=env.cwd,
        env=variables,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


def _assert_resolved_only(request: RecordedRequest) -> None:
    headers = request.headers
    assert headers["x-set"] == "from-env"
    assert headers["x-braced"] == "pre-from-env-post"
    assert headers["x-literal"] == "plain"
    for name in ("x-unset", "x-unset-braced", "x-failing-command"):
        assert name not in headers
    sent = json.dumps(headers)
    assert "$" not in sent and "PI_HDR_UNSET" not in sent and "exit 3" not in sent


def test_openai_completions_sends_resolved_headers_and_leaves_out_unresolved_ones(env: Env) -> None:
    _provider(env, "tmpl", "openai-completions", f"{env.server.url}/v1", "tmpl-model")
    env.server.queue(text_reply("fine"))
    done = _run(env, "tmpl", "tmpl-model")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "fine\n"
    assert (
        'Failed to resolve header "X-Unset" for provider "tmpl" from environment variable: PI_HDR_UNSET '
        "(the header is not sent)" in done.stderr
    )
    assert 'Failed to resolve header "X-Failing-Command" for provider "tmpl" from shell command: exit 3' in done.stderr
    assert len(env.server.requests) == 1
    _assert_resolved_only(env.server.requests[0])
    assert env.server.requests[0].headers["authorization"] == "Bearer secret-key"


def test_anthropic_messages_sends_resolved_headers_and_leaves_out_unresolved_ones(env: Env) -> None:
    _provider(env, "claude-tmpl", "anthropic-messages", env.server.url, "claude-local-1")
    env.server.queue(anthropic_reply("fine"))
    done = _run(env, "claude-tmpl", "claude-local-1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "fine\n"
    assert len(env.server.requests) == 1
    request = env.server.requests[0]
    assert request.path.endswith("/v1/messages")
    _assert_resolved_only(request)
    assert request.headers["x-api-key"] == "secret-key"


def test_a_built_in_providers_model_override_headers_are_resolved_too(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["groq"] = {
        "baseUrl": f"{env.server.url}/v1",
        "apiKey": "secret-key",
        "modelOverrides": {
            "llama-3.3-70b-versatile": {"headers": {"X-Set": "$PI_HDR_SET", "X-Unset": "$PI_HDR_UNSET"}}
        },
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    env.server.queue(text_reply("fine"))
    done = _run(env, "groq", "llama-3.3-70b-versatile")
    assert done.returncode == 0, done.stderr
    headers = env.server.requests[0].headers
    assert headers["x-set"] == "from-env"
    assert "x-unset" not in headers and "$PI_HDR_UNSET" not in json.dumps(headers)
