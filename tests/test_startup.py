"""`pi --version` and `pi --help` must stay instant: they load no provider, no pydantic, no httpx."""

from __future__ import annotations

import subprocess
import sys
import time
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


def _best_of(runs: int, command: list[str]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, timeout=60)
        best = min(best, time.perf_counter() - start)
    return best


def test_version_costs_little_more_than_starting_python() -> None:
    """`pi --version` stays well under 50 ms on an idle machine; the bound here is generous for a busy one."""
    baseline = _best_of(5, [sys.executable, "-c", "pass"])
    version = _best_of(5, [str(PI), "--version"])
    took = f"pi --version took {version * 1000:.0f} ms, python alone {baseline * 1000:.0f} ms"
    assert version - baseline < 0.25, took


def test_exit_handlers_run_and_the_code_is_returned() -> None:
    """The executable ends through normal interpreter teardown, so atexit handlers still run."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('teardown ran'))\n"
        "sys.argv = ['pi', '--mode', 'bogus']\n"
        "from pi.app.cli import entry\n"
        "entry()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert 'Invalid mode "bogus"' in out.stderr
    assert out.stderr.endswith("teardown ran")


def test_a_closed_stdout_pipe_is_not_an_error() -> None:
    """`pi --help | head -1`: the reader leaves early; pi exits without a traceback."""
    proc = subprocess.Popen([str(PI), "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before pi writes: its write or its final flush meets a closed pipe
    err = proc.stderr.read()
    assert proc.wait(timeout=60) in (0, 141)
    assert b"Traceback" not in err
