"""Helpers for extension tests: write extension files into temporary directories and load them for real."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pi.app.extensions.discovery import DiscoveryOptions, ExtensionSource, discover_extensions
from pi.app.extensions.loader import ExtensionLoader, LoadResult, load_extensions
from pi.app.extensions.runner import ExtensionRunner
from pi.app.extensions.types import ExtensionErrorInfo


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@dataclass
class Recorder:
    """Stands in for the ctx: extensions call `ctx.record(...)` from their handlers."""

    seen: list[Any] = field(default_factory=list)

    def record(self, value: Any) -> None:
        self.seen.append(value)


@dataclass
class Loaded:
    loader: ExtensionLoader
    result: LoadResult
    runner: ExtensionRunner
    recorder: Recorder
    errors: list[ExtensionErrorInfo]

    @property
    def messages(self) -> list[str]:
        return [d.message for d in self.result.diagnostics]


async def load_sources(sources: Sequence[ExtensionSource], cwd: Path) -> Loaded:
    loader, result = await load_extensions(sources, cwd)
    runner = ExtensionRunner(loader.runtime)
    recorder = Recorder()
    runner.bind_context(lambda _ext: recorder)
    errors: list[ExtensionErrorInfo] = []
    runner.on_error(errors.append)
    return Loaded(loader, result, runner, recorder, errors)


async def load_files(*files: Path, cwd: Path | None = None) -> Loaded:
    """Load the given extension files as `-e` entries, in order."""
    base = cwd or files[0].parent
    options = DiscoveryOptions(
        cwd=base,
        agent_dir=base / "no-agent",
        project_trusted=False,
        cli_paths=[str(f) for f in files],
        entry_points=False,
    )
    discovered = discover_extensions(options)
    assert not discovered.diagnostics, discovered.diagnostics
    return await load_sources(discovered.enabled(), base)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, Path]:
    """A temporary agent dir and project cwd."""
    agent = tmp_path / "agent"
    cwd = tmp_path / "project"
    agent.mkdir()
    cwd.mkdir()
    return {"agent": agent, "cwd": cwd, "root": tmp_path}
