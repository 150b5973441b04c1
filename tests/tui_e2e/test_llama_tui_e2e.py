"""`/llama` in the real terminal UI (tmux): the router's models with their state, and loading one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_server import ScriptedServer
from tests.support.llama_router import LlamaRouter, router_model
from tests.tui_e2e.harness import TmuxPi, tmux_available


@pytest.fixture
def router() -> Iterator[LlamaRouter]:
    server = LlamaRouter().start()
    yield server
    server.stop()


@pytest.fixture
def tui(server: ScriptedServer, tmp_path: Path) -> Iterator[TmuxPi]:
    if not tmux_available():
        pytest.fail("tmux is needed for the terminal UI tests (.ci/run installs it)")
    pi = TmuxPi(server, tmp_path / "run")
    try:
        yield pi
    finally:
        pi.close()


def test_llama_lists_the_router_models_and_loads_one(tui: TmuxPi, router: LlamaRouter) -> None:
    router.models = [router_model("zeta-1b"), router_model("alpha-4b", "loaded", meta={"n_ctx": 8192})]
    tui.start(env={"LLAMA_BASE_URL": router.url})
    tui.wait_for("fake-claude")
    tui.type("/llama")
    tui.keys("Enter")

    def listed(text: str) -> bool:
        return all(
            part in text
            for part in (
                "llama.cpp models",
                router.url,
                "alpha-4b  ·  loaded · 8k context",
                "zeta-1b",
                "Download model…",
            )
        )

    text = tui.wait_for(listed)
    assert "conflicts with built-in" not in text
    assert text.index("alpha-4b") < text.index("zeta-1b") < text.index("Download model…")
    tui.keys("Down", "Enter")
    tui.wait_for(lambda t: "1 model is loaded" in t and "Unload all and load" in t)
    tui.keys("Down", "Enter")  # keep alpha-4b loaded
    text = tui.wait_for(lambda t: "Loaded zeta-1b" in t and "zeta-1b  ·  loaded" in t)
    assert "alpha-4b  ·  loaded" in text
    tui.keys("Escape")
    tui.wait_gone("Download model…")
    tui.keys("C-d")
    assert tui.wait_exit() == 0
    assert "/models/load" in router.paths("POST") and "/models/unload" not in router.paths("POST")
