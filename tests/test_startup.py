"""`pi --version` and `pi --help` must stay instant: they load no provider, no pydantic, no httpx."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi.version import __version__

PI = Path(sys.executable).parent / "pi"
HEAVY_PREFIXES = ("pydantic", "pydantic_core", "httpx", "httpcore", "pi.ai")


def imported_modules(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """Every module imported by `python -m pi <args>`, read from -X importtime."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi", *args], capture_output=True, text=True, check=True, env=env
    )
    names = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":  # the header line
                names.append(name)
    return names


def test_version_prints_the_version_and_exits_zero() -> None:
    assert PI.exists()
    out = subprocess.run([str(PI), "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    assert out.stdout == f"{__version__}\n"
    assert out.stderr == ""


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_quick_flags_import_nothing_heavy(flag: str) -> None:
    names = imported_modules(flag)
    assert "pi.app.cli" in names  # the parse worked, so an empty list cannot pass by accident
    heavy = [n for n in names if n in HEAVY_PREFIXES or n.startswith(tuple(p + "." for p in HEAVY_PREFIXES))]
    assert heavy == []
    assert not any(n.startswith("pi.ai.providers") for n in names)


def test_importing_pi_ai_loads_no_provider_and_no_http_client() -> None:
    code = (
        "import sys, pi.ai\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('pi.ai.providers', 'httpx', 'pi.ai.models')))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_executable_skips_pydantic_plugin_discovery(tmp_path: Path) -> None:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path), "HOME": str(tmp_path), "PI_OFFLINE": "1"}
    names = imported_modules("--list-models", "claude", env=env)
    assert "pydantic" in names and "pi.ai.types" in names  # models were built, so pydantic did look
    assert "importlib.metadata" not in names


def test_library_users_keep_pydantic_plugins() -> None:
    code = (
        "import sys, pi.app.sdk, pi.ai.types\n"
        "from pydantic.plugin import _loader\n"
        "print(hasattr(_loader, 'entry_points'), 'importlib.metadata' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
