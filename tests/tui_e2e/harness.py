"""The real `pi` in a tmux pane against the loopback model server, driven with send-keys.

Each test gets a private tmux server (`-L <name>`, config with `extended-keys on`), a temporary
agent directory whose models.json points `fake/fake-model` (OpenAI chat completions) and
`fakea/fake-claude` (Anthropic messages, reasoning) at the scripted server, and a small git
project with AGENTS.md. The pane runs pi and then prints `PI-EXIT=<code>`, so the exit code and the
screen after exit can be read back. Everything synchronises on screen content, never on sleeps.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedServer

WIDTH = 110
HEIGHT = 35
TIMEOUT = 30.0


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"


def write_project(root: Path) -> Path:
    cwd = root / "work"
    (cwd / "src").mkdir(parents=True)
    (cwd / "docs").mkdir()
    (cwd / ".git").mkdir()
    (cwd / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (cwd / "AGENTS.md").write_text("# Agents\nBe concise.\n")
    (cwd / "README.md").write_text("# calc\n")
    (cwd / "src" / "calc.py").write_text(CALC)
    return cwd


def write_agent_dir(root: Path, server_url: str, settings: dict[str, Any]) -> Path:
    agent = root / "agent"
    agent.mkdir()
    models = {
        "providers": {
            "fake": {
                "baseUrl": f"{server_url}/v1",
                "api": "openai-completions",
                "apiKey": "test-key",
                "models": [{"id": "fake-model", "contextWindow": 200000, "maxTokens": 4096}],
            },
            "fakea": {
                "baseUrl": server_url,
                "api": "anthropic-messages",
                "apiKey": "test-key",
                "models": [{"id": "fake-claude", "reasoning": True, "contextWindow": 200000, "maxTokens": 8192}],
            },
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    base = {"defaultProvider": "fakea", "defaultModel": "fake-claude", "retry": {"baseDelayMs": 2000}}
    (agent / "settings.json").write_text(json.dumps({**base, **settings}))
    return agent


@dataclass
class TmuxPi:
    """One pi process in a tmux pane (see the module docstring)."""

    server: ScriptedServer
    root: Path
    settings: dict[str, Any] = field(default_factory=dict)
    extended_keys: bool = True
    socket: str = field(default_factory=lambda: f"pi-e2e-{uuid.uuid4().hex[:10]}")

    def __post_init__(self) -> None:
        self.cwd = write_project(self.root)
        self.agent_dir = write_agent_dir(self.root, self.server.url, self.settings)
        self.home = self.root / "home"
        self.home.mkdir()
        self.write_log = self.root / "tui-write.log"
        self.stderr_log = self.root / "stderr.log"
        self.conf = self.root / "tmux.conf"
        keys = "on" if self.extended_keys else "off"
        self.conf.write_text(f"set -g extended-keys {keys}\nset -g history-limit 5000\n")
        self.started = False

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.conf), *args], capture_output=True, text=True, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def _variables(self, env: dict[str, str] | None, **extra: str) -> str:
        """The `NAME=value` words that pin pi's agent dir, home and logs for one start."""
        variables = {
            "PI_CODING_AGENT_DIR": str(self.agent_dir),
            "PI_OFFLINE": "1",
            "COLORTERM": "truecolor",
            "HOME": str(self.home),
            "PI_TUI_WRITE_LOG": str(self.write_log),
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
            **extra,
            **(env or {}),
        }
        return " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())

    def start(self, *pi_args: str, env: dict[str, str] | None = None) -> None:
        exports = self._variables(env)
        pi = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "pi", *pi_args])
        cd = f"cd {shlex.quote(str(self.cwd))}"
        run = f"env -u TMUX_PANE {exports} {pi} 2>>{shlex.quote(str(self.stderr_log))}"
        script = f"{cd} && echo PI-START && {run}; echo PI-EXIT=$?; sleep 600"
        self.tmux("new-session", "-d", "-s", "main", "-x", str(WIDTH), "-y", str(HEIGHT), "sh", "-c", script)
        self.started = True

    def start_in_shell(self, *pi_args: str, env: dict[str, str] | None = None) -> None:
        """pi typed into an interactive bash (job control: Ctrl+Z stops it, `fg` brings it back).

        Nothing echoes the exit code: a stopped job would report 148 at once. Type
        `echo PI-EXIT=$?` at the prompt after pi ends to read it with `wait_exit`."""
        exports = self._variables(env, PS1="shell$ ")
        shell = f"cd {shlex.quote(str(self.cwd))} && env -u TMUX_PANE {exports} bash --norc --noprofile -i"
        self.tmux("new-session", "-d", "-s", "main", "-x", str(WIDTH), "-y", str(HEIGHT), "sh", "-c", shell)
        self.started = True
        self.wait_for("shell$")
        pi = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "pi", *pi_args])
        self.type(f"{pi} 2>>{shlex.quote(str(self.stderr_log))}")
        self.keys("Enter")

    def close(self) -> None:
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False
            self.socket = f"pi-e2e-{uuid.uuid4().hex[:10]}"  # a later start() gets a server of its own

    # --- input ---------------------------------------------------------------------------------
    def keys(self, *keys: str) -> None:
        """tmux key names (`Enter`, `Escape`, `C-c`, `M-Enter`, `BTab`)."""
        self.tmux("send-keys", "-t", "main", *keys)

    def shift_enter(self) -> None:
        """Shift+Enter as tmux forwards it with extended keys (xterm modifyOtherKeys form)."""
        self.tmux("send-keys", "-t", "main", "-l", "\x1b[27;2;13~")

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)

    # --- output --------------------------------------------------------------------------------
    def screen(self, *, ansi: bool = False, history: bool = False) -> list[str]:
        args = ["capture-pane", "-p", "-t", "main"]
        if ansi:
            args.append("-e")
        if history:
            args += ["-S", "-", "-E", "-"]
        return self.tmux(*args).split("\n")

    def text(self, **kwargs: bool) -> str:
        return "\n".join(self.screen(**kwargs))

    def wait_for(self, marker: str | Callable[[str], bool], timeout: float = TIMEOUT, **kwargs: bool) -> str:
        """Poll the pane until `marker` is on it (or the predicate holds); returns the screen text.

        tmux may be captured between two chunks of one frame (the new notice drawn, the footer below
        it not yet), so a match only counts once the next capture shows the same screen. A screen
        that keeps changing (a spinner) while the predicate keeps holding is accepted after a second;
        a state that is already gone at the next capture (`Elapsed 1.0s`) is returned as it was seen.
        """
        check = (lambda s: marker in s) if isinstance(marker, str) else marker
        deadline = time.monotonic() + timeout
        text = ""
        previous: str | None = None
        matching_since: float | None = None
        while time.monotonic() < deadline:
            text = self.text(**kwargs)
            if check(text):
                now = time.monotonic()
                matching_since = now if matching_since is None else matching_since
                if text == previous or now - matching_since > 1.0:
                    return text
                previous = text
            elif previous is not None:
                return previous
            time.sleep(0.03)
        errors = self.stderr_log.read_text(errors="replace") if self.stderr_log.exists() else ""
        raise AssertionError(f"timed out waiting for {marker!r}; screen was:\n{text}\nstderr:\n{errors}")

    def wait_gone(self, marker: str, timeout: float = TIMEOUT) -> str:
        return self.wait_for(lambda s: marker not in s, timeout)

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        text = self.wait_for(lambda s: any(ln.startswith("PI-EXIT=") for ln in s.split("\n")), timeout, history=True)
        line = next(line for line in text.split("\n") if line.startswith("PI-EXIT="))
        return int(line.split("=", 1)[1].strip())

    def submit(self, text: str) -> None:
        """Type `text` into the editor and press Enter."""
        self.type(text)
        self.keys("Enter")

    def chat(self, text: str, reply: str) -> None:
        """Send a prompt and wait until `reply` is on screen and the run is over."""
        self.submit(text)
        self.wait_for(reply)
        self.wait_idle()

    def wait_idle(self) -> str:
        """The editor's top rule is plain again (no working indicator)."""
        return self.wait_for(lambda s: "Working" not in s and s.count("─" * 50) >= 2)

    def written_after_exit(self) -> str:
        """Everything pi wrote to the terminal, from the write log."""
        return self.write_log.read_text(encoding="utf-8", errors="replace") if self.write_log.exists() else ""
