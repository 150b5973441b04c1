"""Start-up never waits long for a router, has work only when one is configured, and keeps its model list."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider
from pi.app.extensions.builtins import BUILTINS, builtin_factories, builtins_have_work
from pi.app.llama import extension as llama_extension
from pi.app.llama.client import LlamaClient
from pi.app.llama.config import RouterConfig, router_configured
from pi.app.llama.extension import STARTUP_TIMEOUT_S, STARTUP_WAIT_S, LlamaProvider, startup_config
from tests.app.extensions.test_session_binding import make_session
from tests.support.llama_router import LlamaRouter, router_model


class RecordingPi:
    def __init__(self) -> None:
        self.providers: list[tuple[str, dict[str, Any]]] = []

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        self.providers.append((name, config))


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


async def test_a_silent_router_holds_start_up_only_briefly(silent_server: str) -> None:
    pi = RecordingPi()
    provider = LlamaProvider(pi)  # type: ignore[arg-type]
    started = time.monotonic()
    await provider.start(RouterConfig(silent_server, "local", "LLAMA_BASE_URL"))
    assert time.monotonic() - started < STARTUP_WAIT_S + 2.0 < STARTUP_TIMEOUT_S + 2.0
    assert pi.providers == []


async def test_models_of_a_router_that_answers_late_still_arrive(router: LlamaRouter) -> None:
    router.models = [router_model("late", "loaded")]
    pi = RecordingPi()
    provider = LlamaProvider(pi)  # type: ignore[arg-type]
    await provider.start(RouterConfig(router.url, "local", "LLAMA_BASE_URL"))
    assert provider._startup is not None
    await asyncio.wait_for(provider._startup, STARTUP_TIMEOUT_S * 2)
    assert [m["id"] for m in pi.providers[-1][1]["models"]] == ["late", "late"]


def test_the_builtin_is_registered_and_has_work_only_when_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert BUILTINS["llama.cpp"] == "pi.app.llama.extension:create_llama_extension"
    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    assert not builtins_have_work(tmp_path, tmp_path, False)
    (tmp_path / "auth.json").write_text('{"llama.cpp": {"type": "api_key", "env": {"LLAMA_BASE_URL": "http://h:1"}}}')
    assert router_configured(tmp_path) and builtins_have_work(tmp_path, tmp_path, False)
    (tmp_path / "auth.json").write_text('{"openai": {"type": "api_key", "key": "llama.cpp"}}')
    assert not router_configured(tmp_path)
    monkeypatch.setenv("LLAMA_BASE_URL", "http://h:1")
    assert builtins_have_work(tmp_path, tmp_path, False)


def test_a_bad_url_is_reported_and_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_BASE_URL", "ftp://h:1")
    assert startup_config(tmp_path) is None
    monkeypatch.setenv("LLAMA_BASE_URL", "http://h:1/v1")
    config = startup_config(tmp_path)
    assert config is not None and config.server_url == "http://h:1"


async def test_the_model_list_is_kept_in_the_models_store(tmp_path: Path, router: LlamaRouter) -> None:
    (tmp_path / "models-store.json").write_text(json.dumps({"openrouter": {"models": [], "checkedAt": 1}}))
    router.models = [router_model("qwen", "loaded", meta={"n_ctx": 4096}), router_model("off")]
    await LlamaProvider(RecordingPi(), tmp_path).sync(LlamaClient(router.url))  # type: ignore[arg-type]
    stored = json.loads((tmp_path / "models-store.json").read_text())
    assert stored["openrouter"] == {"models": [], "checkedAt": 1}
    chat, classifier = stored["llama.cpp"]["models"]
    assert (chat["id"], chat["provider"], chat["api"], chat["baseUrl"]) == (
        "qwen",
        "llama.cpp",
        "openai-completions",
        f"{router.url}/v1",
    )
    assert chat["contextWindow"] == 4096 and isinstance(stored["llama.cpp"]["checkedAt"], int)
    assert (classifier["type"], classifier["api"], classifier["baseUrl"]) == (
        "classifier",
        "llama-cpp-classify",
        router.url,
    )
    pi = RecordingPi()
    LlamaProvider(pi, tmp_path).restore(RouterConfig("http://moved:1", "local", "LLAMA_BASE_URL"))  # type: ignore[arg-type]
    ((name, config),) = pi.providers
    assert name == "llama.cpp" and config["baseUrl"] == "http://moved:1/v1"
    assert [(m["id"], m.get("baseUrl")) for m in config["models"]] == [("qwen", None), ("qwen", "http://moved:1")]


class SetupPi(RecordingPi):
    """Enough of `ExtensionAPI` for the built-in's `setup`."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[str] = []

    def register_command(self, name: str, handler: Any, description: str | None = None) -> None:
        self.commands.append(name)


@pytest.fixture
def silent_router_configured(silent_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The silent server configured as the router, with a start-up wait and request timeout far longer than
    any test."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("LLAMA_BASE_URL", silent_server)
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    monkeypatch.setattr(llama_extension, "STARTUP_WAIT_S", 600.0)
    monkeypatch.setattr(llama_extension, "STARTUP_TIMEOUT_S", 600.0)
    return silent_server


async def test_a_session_on_another_provider_does_not_wait_for_the_router(
    silent_router_configured: str, faux: FauxProvider, tmp_path: Path
) -> None:
    session = make_session(
        faux, tmp_path, [], builtin_extensions=True, disabled_builtins=("mcp", "codemode", "tool-search")
    )
    # With the old unconditional wait this would hang for STARTUP_WAIT_S (600 s).
    assert await asyncio.wait_for(session.load_extensions(), 30) == []
    assert session.extension_runner is not None
    assert "llama" in [name for name, _ in session.extension_runner.registry.commands()]


async def test_a_builtin_built_for_another_provider_reads_the_router_in_the_background(
    silent_router_configured: str,
) -> None:
    pi = SetupPi()
    setup = builtin_factories(startup_provider="openai")["llama.cpp"]
    await asyncio.wait_for(setup(pi), 30)
    assert pi.commands == ["llama"] and pi.providers == []


@pytest.mark.parametrize("startup_provider", [None, "llama.cpp"])
async def test_no_model_yet_or_a_llama_model_waits_for_the_router(
    silent_router_configured: str, monkeypatch: pytest.MonkeyPatch, startup_provider: str | None
) -> None:
    monkeypatch.setattr(llama_extension, "STARTUP_WAIT_S", 0.3)
    started = time.monotonic()
    await llama_extension.create_llama_extension(startup_provider)(SetupPi())  # type: ignore[arg-type]
    assert time.monotonic() - started >= 0.3
