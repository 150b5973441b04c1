"""Running the real `pi` process in a throwaway config directory against the loopback model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.http_server import ScriptedServer

PI = [sys.executable, "-m", "pi"]


@dataclass
class Env:
    server: ScriptedServer
    agent_dir: Path
    cwd: Path

    @property
    def vars(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["PI_CODING_AGENT_DIR"] = str(self.agent_dir)
        env["HOME"] = str(self.agent_dir.parent / "home")
        return env

    def run(
        self, *args: str, stdin: str | None = None, timeout: float = 60, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`pi args...` in the project, with `extra_env` on top of the test environment."""
        return subprocess.run(
            [*PI, *args],
            cwd=self.cwd,
            env={**self.vars, **(extra_env or {})},
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture
def env(server: ScriptedServer, tmp_path: Path) -> Iterator[Env]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (tmp_path / "home").mkdir()
    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": f"{server.url}/v1",
                        "api": "openai-completions",
                        "apiKey": "test-key",
                        "models": [{"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}],
                    }
                }
            }
        )
    )
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}}))
    yield Env(server, agent_dir, cwd)


MODEL = ["--provider", "fake", "--model", "fake-model"]
