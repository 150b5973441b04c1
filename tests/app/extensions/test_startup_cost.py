"""A run without extensions pays nothing for the extension machinery; `pi --version` not even the check."""

from __future__ import annotations

from pathlib import Path

from tests.app.test_print_mode_imports import loaded_modules
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply

MACHINERY = (
    "pi.app.extensions.loader",
    "pi.app.extensions.runner",
    "pi.app.extensions.events",
    "pi.app.extensions.api",
    "pi.app.session_extensions",
    "pi.app.mcp.extension",
)


def test_print_run_without_extensions_imports_no_machinery(env: Env, tmp_path: Path) -> None:
    env.server.queue(text_reply("Done."))
    done, modules = loaded_modules(env, tmp_path, "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert [name for name in MACHINERY if name in modules] == []


def test_version_imports_nothing_of_extensions(env: Env, tmp_path: Path) -> None:
    done, modules = loaded_modules(env, tmp_path, "--version")
    assert done.returncode == 0
    assert [name for name in modules if "extension" in name] == []


def test_an_extension_loads_the_machinery(env: Env, tmp_path: Path) -> None:
    extension = tmp_path / "ext.py"
    extension.write_text("def setup(pi):\n    pass\n")
    env.server.queue(text_reply("Done."))
    done, modules = loaded_modules(env, tmp_path, "-e", str(extension), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert "pi.app.extensions.loader" in modules and "pi.app.mcp.extension" in modules
