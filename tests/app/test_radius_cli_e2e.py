"""`pi -p --provider radius` as a real process, with `PI_RADIUS_GATEWAY` at a loopback pi-messages server.

The credential is worked out for each request: `RADIUS_API_KEY`, or the login `/login radius`
stored in auth.json (refreshed at the same gateway when it has expired).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from tests.app.test_print_mode_imports import loaded_modules
from tests.support import pi_messages as pm
from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import ScriptedResponse, json_response, sse
from tests.support.openai_chunks import text_reply

RADIUS = ["--provider", "radius", "--model", "balanced"]


def _run(env: Env, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PI, *args],
        cwd=env.cwd,
        env={**env.vars, "PI_RADIUS_GATEWAY": env.server.url, **extra},
        input="",
        capture_output=True,
        text=True,
        timeout=90,
    )


def _store_login(env: Env, access: str, expires: int) -> None:
    entry = {"type": "oauth", "access": access, "refresh": "radius-refresh-1", "expires": expires}
    (env.agent_dir / "auth.json").write_text(json.dumps({"radius": entry}))


def test_print_mode_answers_through_the_gateway_with_the_api_key(env: Env) -> None:
    env.server.queue(pm.stream(*pm.text_frames(0, ["Hello from ", "Radius."]), pm.done()))
    done = _run(env, "-p", *RADIUS, "say hi", RADIUS_API_KEY="rk-env-123")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello from Radius."
    (request,) = env.server.requests
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer rk-env-123"
    body = request.json()
    assert body["model"] == "balanced"
    assert body["context"]["messages"][-1]["content"] in ("say hi", [{"type": "text", "text": "say hi"}])
    assert isinstance(body["options"]["sessionId"], str)


def test_a_stream_cut_before_done_is_retried_and_only_the_full_reply_is_the_answer(env: Env) -> None:
    cut = ScriptedResponse(chunks=sse({"type": "start"}, *pm.text_frames(0, ["Partial answer that"])[:2]))
    env.server.queue(cut, pm.text_reply("The complete answer."))
    done = _run(env, "-p", *RADIUS, "question", RADIUS_API_KEY="rk-env-123")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The complete answer."
    assert "Partial answer" not in done.stdout
    assert len(env.server.requests) == 2
    first, second = (request.json() for request in env.server.requests)
    assert first == second  # the same request, sent again


def test_an_error_frame_fails_the_run_with_the_gateways_message(env: Env) -> None:
    env.server.queue(pm.stream(pm.error("Your organization disabled this model")))
    done = _run(env, "-p", *RADIUS, "question", RADIUS_API_KEY="rk-env-123")
    assert done.returncode != 0
    assert "Your organization disabled this model" in done.stderr


def test_the_stored_login_is_used_and_refreshed_at_the_gateway(env: Env) -> None:
    _store_login(env, "radius-access-old", expires=int(time.time() * 1000) - 1000)
    token = {"access_token": "radius-access-new", "refresh_token": "radius-refresh-2", "expires_in": 3600}
    env.server.queue(json_response(200, token), pm.text_reply("signed in"))
    done = _run(env, "-p", *RADIUS, "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "signed in"
    refresh, messages = env.server.requests
    assert (refresh.path, messages.path) == ("/v1/oauth/token", "/v1/messages")
    assert "grant_type=refresh_token" in refresh.body.decode() and "client_id=pi-gateway" in refresh.body.decode()
    assert messages.headers["authorization"] == "Bearer radius-access-new"
    stored = json.loads((env.agent_dir / "auth.json").read_text())["radius"]
    assert stored["access"] == "radius-access-new" and stored["refresh"] == "radius-refresh-2"
    assert "radius-access-new" not in done.stdout + done.stderr


def test_without_any_credential_the_error_says_how_to_sign_in(env: Env) -> None:
    done = _run(env, "-p", *RADIUS, "hi")
    assert done.returncode != 0
    assert "radius" in done.stderr.lower()
    assert env.server.requests == []


def test_the_wire_module_loads_only_for_a_radius_model(env: Env, tmp_path: Path) -> None:
    env.server.queue(text_reply("plain"))
    done, modules = loaded_modules(env, tmp_path, "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert "pi.ai.providers.pi_messages" not in modules and "pi.ai.providers.radius" not in modules


def test_pi_radius_gateway_also_moves_the_sign_in() -> None:
    from pi.app.oauth.providers import table_from_env

    assert table_from_env({}).radius.gateway_url == "https://radius.pi.dev"
    assert table_from_env({"PI_RADIUS_GATEWAY": "gw.example.com/"}).radius.gateway_url == "https://gw.example.com"
    moved = table_from_env({"PI_RADIUS_GATEWAY": "http://127.0.0.1:8123"}).radius
    assert moved.gateway_url == "http://127.0.0.1:8123" and moved.client_id == "pi-gateway"
