"""The router client against a loopback llama.cpp router."""

from __future__ import annotations

import socket

import pytest

from pi.app.llama.client import LlamaClient, LlamaConnectionError, LlamaError, Progress
from tests.support.http_server import ScriptedServer, json_response
from tests.support.llama_router import LlamaRouter, router_model


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_list_load_and_unload_follow_the_router_state(router: LlamaRouter) -> None:
    router.models = [router_model("a", "loaded"), router_model("b")]
    client = LlamaClient(router.url + "/v1", "secret")
    assert [(m["id"], m["status"]["value"]) for m in await client.list()] == [("a", "loaded"), ("b", "unloaded")]
    seen: list[Progress] = []
    entry = await client.load_and_wait("b", seen.append)
    assert entry["status"]["value"] == "loaded" and seen == [Progress("Loading model")]
    await client.unload_and_wait("a")
    assert {m["id"]: m["status"]["value"] for m in await client.list()} == {"a": "unloaded", "b": "loaded"}
    load = next(r for r in router.requests if r.path == "/models/load")
    assert load.body == {"model": "b"} and load.headers["authorization"] == "Bearer secret"
    assert load.headers["content-type"] == "application/json"


async def test_a_failed_load_says_how_the_model_exited(router: LlamaRouter) -> None:
    router.models = [router_model("bad")]
    router.fail_loading = {"bad"}
    with pytest.raises(LlamaError, match=r"^Model exited with code 1$"):
        await LlamaClient(router.url).load_and_wait("bad", lambda _p: None)


async def test_a_download_reports_byte_progress_and_returns_the_rescanned_list(router: LlamaRouter) -> None:
    seen: list[Progress] = []
    models = await LlamaClient(router.url).download_and_wait("ggml-org/tiny-GGUF:Q4_K_M", seen.append)
    assert [m["id"] for m in models] == ["ggml-org/tiny-GGUF:Q4_K_M"]
    assert Progress("Downloading model", 0.5, "512.0 KiB / 1.00 MiB") in seen
    assert "/models?reload=1" in router.paths("GET")
    assert next(r for r in router.requests if r.method == "POST").body == {"model": "ggml-org/tiny-GGUF:Q4_K_M"}


async def test_the_server_message_of_an_error_is_passed_on(router: LlamaRouter) -> None:
    with pytest.raises(LlamaError, match=r"^model not found$"):
        await LlamaClient(router.url).load("missing")


async def test_an_unreachable_router_names_the_server() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(LlamaConnectionError, match=rf"^Could not reach llama.cpp server at {url}: "):
        await LlamaClient(url).list()


async def test_a_server_not_in_router_mode_is_told_apart() -> None:
    server = ScriptedServer().start()
    try:
        server.queue(json_response(200, {"object": "list", "data": [{"id": "single", "object": "model"}]}))
        with pytest.raises(LlamaError, match=r"^Server is not running in llama.cpp router mode$"):
            await LlamaClient(server.url).list()
        server.queue(json_response(200, {"models": []}))
        with pytest.raises(LlamaError, match=r"^llama.cpp returned an invalid model catalog$"):
            await LlamaClient(server.url).list()
        server.queue(json_response(503, "unavailable"))
        with pytest.raises(LlamaError, match=r"^llama.cpp returned HTTP 503$"):
            await LlamaClient(server.url).list()
    finally:
        server.stop()
