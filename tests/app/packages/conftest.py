from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi.app.packages.cli import run_package_command_async
from tests.app.packages.index_server import SimpleIndex, serve


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class PackageWorld:
    """A temp agent dir and project dir; `run` runs a package command as the CLI would."""

    agent_dir: Path
    cwd: Path
    trusted: bool = True

    async def run(self, *argv: str) -> Result:
        out, err = io.StringIO(), io.StringIO()
        code = await run_package_command_async(
            list(argv), agent_dir=self.agent_dir, cwd=self.cwd, project_trusted=self.trusted, out=out, err=err
        )
        return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PackageWorld:
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    agent = tmp_path / "home" / ".pi" / "agent"
    cwd = tmp_path / "project"
    agent.mkdir(parents=True)
    cwd.mkdir()
    return PackageWorld(agent, cwd)


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleIndex]:
    """A running loopback index that pip (started by the code under test) uses instead of PyPI."""
    with serve(SimpleIndex()) as running:
        monkeypatch.setenv("PIP_INDEX_URL", running.url)
        monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
        monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
        monkeypatch.setenv("PIP_NO_INPUT", "1")
        monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
        yield running
