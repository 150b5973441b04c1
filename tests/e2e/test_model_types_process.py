"""Image and classifier models through the real `pi` process: an extension command classifies and
generates images with catalog models moved to the loopback server, keys from auth.json; and a
plain `pi -p` run loads none of that code."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.app.test_print_mode_imports import loaded_modules
from tests.e2e.test_extensions_checks import extension, logged
from tests.support.cli_env import MODEL, Env, env
from tests.support.http_server import json_response
from tests.support.openai_chunks import text_reply

__all__ = ["env"]

JUDGE = """
async def judge(args, ctx):
    registry = ctx.model_registry
    log(sorted(m.id for m in registry.get_available_of_type("classifier")))
    jev = registry.get_model_of_type("classifier", "typesafe", "jev-latest")
    spam = {"type": "bool", "instructions": "Is it spam?", "criteria": {"true": "ad", "false": "real"}}
    verdict = await registry.classify(jev, {"state": {"message": args}, "questions": {"spam": spam}})
    log(verdict.to_json_dict())
    painted = await registry.generate_images({"provider": "openrouter", "id": "google/gemini-3-pro-image"}, args)
    log(painted.to_json_dict())

def setup(pi):
    pi.register_command("judge", judge)
"""


def point_providers_at_the_server(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["typesafe"] = {"baseUrl": env.server.url}
    models["providers"]["openrouter"] = {"baseUrl": f"{env.server.url}/api/v1"}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    auth = {"typesafe": {"type": "api_key", "key": "ts-key"}, "openrouter": {"type": "api_key", "key": "or-key"}}
    (env.agent_dir / "auth.json").write_text(json.dumps(auth))
    os.chmod(env.agent_dir / "auth.json", 0o600)


def test_an_extension_command_classifies_and_generates_images(env: Env) -> None:
    point_providers_at_the_server(env)
    path = extension(env, "judge.py", JUDGE)
    env.server.queue(
        json_response(200, {"answers": {"spam": {"type": "noul", "noul": 0.875}}, "usage": {"input_tokens": 12}}),
        json_response(
            200,
            {
                "id": "gen-7",
                "choices": [
                    {"message": {"content": "", "images": [{"image_url": {"url": "data:image/png;base64,QUJD"}}]}}
                ],
            },
        ),
    )
    done = env.run("-e", str(path), "-p", *MODEL, "/judge buy cheap pills")
    assert done.returncode == 0, done.stderr
    available, verdict, painted = logged(env)
    assert "jev-latest" in available and "gpt-6-luna" not in available
    assert verdict["stopReason"] == "stop" and verdict["answers"] == {"spam": {"type": "bool", "probability": 0.875}}
    assert verdict["usage"]["input"] == 12 and verdict["provider"] == "typesafe"
    assert painted["stopReason"] == "stop", painted
    assert painted["output"] == [{"type": "image", "data": "QUJD", "mimeType": "image/png"}]
    classify_request, images_request = env.server.requests
    assert classify_request.path == "/systemone" and classify_request.headers["authorization"] == "Bearer ts-key"
    assert classify_request.json()["state"] == {"message": "buy cheap pills"}
    assert images_request.path == "/api/v1/chat/completions"
    assert images_request.headers["authorization"] == "Bearer or-key"
    assert images_request.json()["messages"][0]["content"] == [{"type": "text", "text": "buy cheap pills"}]


def test_a_print_run_with_a_chat_model_loads_no_image_or_classifier_code(env: Env, tmp_path: Path) -> None:
    env.server.queue(text_reply("plain"))
    done, modules = loaded_modules(env, tmp_path, "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    typed = [
        name
        for name in modules
        if name
        in (
            "pi.ai.model_types",
            "pi.ai.model_types_catalog",
            "pi.ai.model_operations",
            "pi.app.typed_models",
            "pi.app.extensions.typed_calls",
        )
    ]
    assert modules and typed == []


LIST = """
async def listing(args, ctx):
    registry = ctx.model_registry
    luna = registry.get_model_of_type("classifier", "openai", "gpt-6-luna")
    result = await registry.classify(luna, {"state": {}, "questions": {"q": {"type": "bool", "instructions": "x"}}})
    log([[m.provider, m.id] for m in registry.get_available_of_type("classifier")], result.error_message)

def setup(pi):
    pi.register_command("listing", listing)
"""


def test_a_chatgpt_login_hides_openai_classifiers_in_a_real_run(env: Env) -> None:
    later = int(time.time() * 1000) + 3_600_000
    login = {"type": "oauth", "access": "chatgpt-token", "refresh": "r", "expires": later}
    auth = {"openai": login, "typesafe": {"type": "api_key", "key": "ts-key"}}
    (env.agent_dir / "auth.json").write_text(json.dumps(auth))
    os.chmod(env.agent_dir / "auth.json", 0o600)
    path = extension(env, "listing.py", LIST)
    done = env.run("-e", str(path), "-p", *MODEL, "/listing")
    assert done.returncode == 0, done.stderr
    ((available, refused),) = logged(env)
    assert ["typesafe", "jev-latest"] in available and all(provider != "openai" for provider, _ in available)
    assert refused.startswith("OpenAI classifier models need an OpenAI API key")
    assert env.server.requests == []
