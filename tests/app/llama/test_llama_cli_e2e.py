"""`builtin:llama.cpp` in the real `pi` process, against a loopback llama.cpp router."""

from __future__ import annotations

import json
import socket

from tests.support.cli_env import MODEL, Env
from tests.support.llama_router import LlamaRouter, router_model
from tests.support.openai_chunks import text_reply

LLAMA = ["--provider", "llama.cpp", "--model", "qwen3-0.6b"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _online(url: str, **extra: str) -> dict[str, str]:
    return {"PI_OFFLINE": "", "LLAMA_BASE_URL": url, **extra}


def test_print_mode_chats_with_a_router_model(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded", meta={"n_ctx": 8192}), router_model("gemma")]
    done = env.run("-p", *LLAMA, "hello", extra_env=_online(router.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "router reply from qwen3-0.6b"
    chat = next(r for r in router.requests if r.path == "/v1/chat/completions")
    assert chat.body["model"] == "qwen3-0.6b" and chat.body["stream"] is True
    assert chat.headers["authorization"] == "Bearer local"
    assert router.paths("GET")[0] == "/models"


def test_a_stored_credential_names_the_router_and_its_key(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "sleeping")]
    credential = {"type": "api_key", "key": "router-secret", "env": {"LLAMA_BASE_URL": f"{router.url}/v1"}}
    (env.agent_dir / "auth.json").write_text(json.dumps({"llama.cpp": credential}))
    done = env.run("-p", *LLAMA, "hello", extra_env={"PI_OFFLINE": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "router reply from qwen3-0.6b"
    assert {r.headers.get("authorization") for r in router.requests} == {"Bearer router-secret"}


def test_list_models_shows_the_router_models(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded"), router_model("unloaded-one")]
    done = env.run("--list-models", "llama", extra_env=_online(router.url))
    assert done.returncode == 0, done.stderr
    assert "qwen3-0.6b" in done.stdout and "unloaded-one" not in done.stdout


def test_no_router_running_is_no_error(env: Env) -> None:
    env.server.queue(text_reply("fine"))
    done = env.run("-p", *MODEL, "hello", extra_env=_online(f"http://127.0.0.1:{_closed_port()}"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fine" and "llama" not in done.stderr.lower()


def test_offline_asks_the_router_nothing(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded")]
    env.server.queue(text_reply("one"), text_reply("two"))
    for extra, flags in (({"PI_OFFLINE": "1"}, []), ({}, ["--offline"])):
        done = env.run("-p", *flags, *MODEL, "hello", extra_env={**_online(router.url), **extra})
        assert done.returncode == 0, done.stderr
    assert router.requests == []


def test_no_extensions_and_a_disabled_builtin_ask_the_router_nothing(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded")]
    env.server.queue(text_reply("one"))
    done = env.run("-p", "-ne", *MODEL, "hello", extra_env=_online(router.url))
    assert done.returncode == 0, done.stderr
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "extensions": ["-builtin:llama.cpp"]}))
    refused = env.run("-p", *LLAMA, "hello", extra_env=_online(router.url))
    assert refused.returncode == 1 and "llama.cpp" in refused.stderr
    assert router.requests == []


def test_a_hugging_face_model_id_names_the_model_with_its_quantization(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("ggml-org/tiny-GGUF:Q4_K_M", "loaded")]
    done = env.run("-p", "--model", "llama.cpp/ggml-org/tiny-GGUF:Q4_K_M", "hello", extra_env=_online(router.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "router reply from ggml-org/tiny-GGUF:Q4_K_M"


def test_the_last_model_list_is_used_offline_and_while_the_router_is_down(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded")]
    first = env.run("--list-models", "llama", extra_env=_online(router.url))
    assert first.returncode == 0 and "qwen3-0.6b" in first.stdout, first.stderr
    asked = len(router.requests)
    offline = env.run("--list-models", "llama", extra_env=_online(router.url, PI_OFFLINE="1"))
    assert offline.returncode == 0 and "qwen3-0.6b" in offline.stdout, offline.stderr
    assert len(router.requests) == asked
    down = env.run("--list-models", "llama", extra_env=_online(f"http://127.0.0.1:{_closed_port()}"))
    assert down.returncode == 0 and "qwen3-0.6b" in down.stdout, down.stderr


def test_the_builtin_alone_loads_with_no_extensions(env: Env, router: LlamaRouter) -> None:
    router.models = [router_model("qwen3-0.6b", "loaded")]
    done = env.run("-p", "-ne", "-e", "builtin:llama.cpp", *LLAMA, "hello", extra_env=_online(router.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "router reply from qwen3-0.6b"
