"""The installed `pi` under test and a throwaway configuration pointing at the loopback server.

By default the `pi` script next to the test interpreter is used; ``PI_UNDER_TEST`` names another
one (CI sets it to the `pi` of an environment where the built wheel was installed).
"""

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

PI = Path(os.environ.get("PI_UNDER_TEST") or Path(sys.executable).parent / "pi")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that run the installed `pi` (through the `installed` fixture) as `installed_pi`.

    The others start `python -m pi` from the test interpreter; `-m installed_pi` selects the ones a
    built wheel's `pi` (``PI_UNDER_TEST``) is tried with."""
    for item in items:
        if "installed" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.installed_pi)


@dataclass
class Installed:
    server: ScriptedServer
    home: Path
    agent_dir: Path
    cwd: Path

    def run(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_")}
        env.update(PI_CODING_AGENT_DIR=str(self.agent_dir), HOME=str(self.home), PI_OFFLINE="1")
        return subprocess.run(
            [str(PI), *args], cwd=self.cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120
        )


@pytest.fixture
def installed(server: ScriptedServer, tmp_path: Path) -> Iterator[Installed]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (tmp_path / "home").mkdir()
    cwd = tmp_path / "project"
    cwd.mkdir()
    models = [{"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}]
    providers = {
        "fake-openai": {"baseUrl": f"{server.url}/v1", "api": "openai-completions", "apiKey": "k1", "models": models},
        "fake-anthropic": {"baseUrl": server.url, "api": "anthropic-messages", "apiKey": "k2", "models": models},
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    yield Installed(server, tmp_path / "home", agent_dir, cwd)
