"""Importing extensions afresh, running setup, and the start-up failure policy (extension spec §1.1, §1.3)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from pi.app.extensions.discovery import DiscoveryOptions, discover_extensions
from pi.app.extensions.errors import RUNTIME_NOT_INITIALIZED
from pi.app.extensions.events import SessionStartEvent
from pi.app.extensions.loader import module_name, startup_failure_lines

from .conftest import load_files, write


async def test_async_setup_is_awaited_and_provider_applies_at_bind(tmp_path: Path) -> None:
    """AC 2 at this layer: the provider registered after the sleep is queued, then applied at bind."""
    path = write(
        tmp_path / "slow.py",
        """
        import asyncio

        async def setup(pi):
            await asyncio.sleep(0.01)
            pi.register_provider("loop", {"baseUrl": "http://127.0.0.1:1", "models": []})

            @pi.on("session_start")
            def started(event, ctx):
                ctx.record("started")
        """,
    )
    loaded = await load_files(path)
    ext = loaded.loader.registry.extensions[0]
    assert [c.args[0] for c in ext.pending_providers] == ["loop"]
    applied: list[Any] = []

    class Actions:
        def register_provider(self, name: str, config: Any) -> None:
            applied.append((name, config["baseUrl"]))

    await loaded.loader.runtime.bind_core(Actions())  # type: ignore[arg-type]
    assert applied == [("loop", "http://127.0.0.1:1")]
    await loaded.runner.emit(SessionStartEvent(reason="startup"))
    assert loaded.recorder.seen == ["started"]


async def test_failing_provider_registration_is_an_extension_error(tmp_path: Path) -> None:
    path = write(tmp_path / "p.py", "def setup(pi):\n    pi.register_provider('bad', {})\n")
    loaded = await load_files(path)

    class Actions:
        def register_provider(self, name: str, config: Any) -> None:
            raise ValueError("no models")

    await loaded.loader.runtime.bind_core(Actions())  # type: ignore[arg-type]
    assert [(e.extension_path, e.event, e.error) for e in loaded.errors] == [
        (str(path), "register_provider", "no models")
    ]


async def test_setup_raising_gives_the_doubled_prefix_and_the_hint(tmp_path: Path) -> None:
    """AC 3 at this layer."""
    path = write(tmp_path / "boom.py", "def setup(pi):\n    raise ValueError('boom')\n")
    loaded = await load_files(path)
    assert loaded.messages == [f'Failed to load extension "{path}": Failed to load extension: boom']
    assert startup_failure_lines(loaded.result.diagnostics) == [
        f'Error: Failed to load extension "{path}": Failed to load extension: boom',
        'Hint: Start without extensions using "pi -ne".',
    ]
    assert loaded.loader.registry.extensions == []


def test_warnings_alone_are_not_a_startup_failure() -> None:
    from pi.app.extensions.types import Diagnostic

    assert startup_failure_lines([Diagnostic("warning", "w")]) == []


async def test_import_error_and_missing_factory(tmp_path: Path) -> None:
    broken = write(tmp_path / "broken.py", "import nothing_by_this_name_exists\n")
    empty = write(tmp_path / "empty.py", "setup = 3\n")
    loaded = await load_files(broken, empty)
    assert loaded.messages == [
        f'Failed to load extension "{broken}": Failed to load extension: No module named '
        "'nothing_by_this_name_exists'",
        f'Failed to load extension "{empty}": Extension does not export a valid factory function: {empty}',
    ]


async def test_failed_setup_commits_nothing_and_its_pi_goes_inactive(tmp_path: Path) -> None:
    path = write(
        tmp_path / "half.py",
        """
        captured = []

        def setup(pi):
            captured.append(pi)
            pi.register_tool({"name": "t", "description": "d", "parameters": {"type": "object"},
                              "execute": lambda *a: None})
            pi.register_command("c", lambda args, ctx: None)
            pi.register_flag("f", type="boolean", default=True)
            pi.events.on("chan", lambda data: captured.append("bus handler ran"))
            pi.on("session_start", lambda e, c: None)
            raise RuntimeError("late failure")
        """,
    )
    loaded = await load_files(path)
    registry = loaded.loader.registry
    assert registry.tools() == {} and registry.commands() == [] and registry.flags() == {}
    assert not registry.has_handlers("session_start")
    module = next(m for name, m in sys.modules.items() if name.startswith("pi_ext_") and getattr(m, "captured", None))
    pi = module.captured[0]
    with pytest.raises(Exception) as caught:
        pi.get_flag("f")
    assert str(caught.value) == f'Extension "{path}" failed to load and its API is no longer active.'
    loaded.loader.bus.emit("chan", None, loaded.loader.runtime)
    assert module.captured == [pi], "the failed extension's bus subscription must be gone"


async def test_actions_raise_until_bound(tmp_path: Path) -> None:
    """AC 4: calling an action method inside setup raises the exact message."""
    path = write(tmp_path / "early.py", "def setup(pi):\n    pi.get_active_tools()\n")
    loaded = await load_files(path)
    assert loaded.messages == [
        f'Failed to load extension "{path}": Failed to load extension: {RUNTIME_NOT_INITIALIZED}'
    ]


async def test_fresh_module_per_generation_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    write(pkg / "helper.py", "COUNT = [0]\n")
    write(
        pkg / "__init__.py",
        """
        from .helper import COUNT

        def setup(pi):
            COUNT[0] += 1

            @pi.on("session_start")
            def started(event, ctx):
                ctx.record((__name__, COUNT[0]))
        """,
    )
    first = await load_files(pkg)
    second = await load_files(pkg)
    await first.runner.emit(SessionStartEvent(reason="startup"))
    await second.runner.emit(SessionStartEvent(reason="reload"))
    (name1, count1), (name2, count2) = first.recorder.seen[0], second.recorder.seen[0]
    assert count1 == 1 and count2 == 1, "the second load must not reuse the first module's state"
    assert name1 != name2
    assert name1 == module_name(pkg / "__init__.py", first.loader.runtime.generation)
    assert f"{name2}.helper" in sys.modules


async def test_single_file_directory_is_not_on_sys_path(tmp_path: Path) -> None:
    write(tmp_path / "sibling_helper_mod.py", "X = 1\n")
    path = write(tmp_path / "uses.py", "import sibling_helper_mod\n\ndef setup(pi):\n    pass\n")
    loaded = await load_files(path)
    assert loaded.messages == [
        f"Failed to load extension \"{path}\": Failed to load extension: No module named 'sibling_helper_mod'"
    ]


async def test_second_pass_reuses_loaded_instances(tmp_path: Path) -> None:
    """The trust bootstrap pass and the final pass share instances: setup runs once."""
    path = write(tmp_path / "once.py", "def setup(pi):\n    pi.register_command('once', lambda a, c: None)\n")
    loaded = await load_files(path)
    first = loaded.loader.registry.extensions[0]
    options = DiscoveryOptions(
        cwd=tmp_path, agent_dir=tmp_path / "none", project_trusted=False, cli_paths=[str(path)], entry_points=False
    )
    again = await loaded.loader.load(discover_extensions(options).enabled())
    assert again.extensions == [first]
    assert [name for name, _ in loaded.loader.registry.commands()] == ["once"]
