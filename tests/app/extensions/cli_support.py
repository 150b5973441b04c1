"""Driving the real `pi` process with extensions: writing extension files and an RPC client."""

from __future__ import annotations

import json
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, PI, Env


def write_extension(directory: Path, name: str, source: str) -> Path:
    """Write `source` (dedented) as `directory/name` and return the path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    return path


class Rpc:
    """`pi --mode rpc` as a child process, read line by line until what a test waits for."""

    def __init__(self, env: Env, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*PI, "--mode", "rpc", *MODEL, *args],
            cwd=env.cwd,
            env=env.vars,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.seen: list[dict[str, Any]] = []

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate: Any, timeout: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"pi exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
            obj: dict[str, Any] = json.loads(line)
            self.seen.append(obj)
            if predicate(obj):
                return obj
        raise AssertionError("timed out waiting for RPC output")

    def wait_for(self, predicate: Any) -> dict[str, Any]:
        """The first line already read that matches, else the next one read that does."""
        return next((o for o in self.seen if predicate(o)), None) or self.read_until(predicate)

    def response(self, command_id: str) -> dict[str, Any]:
        return self.read_until(lambda o: o.get("type") == "response" and o.get("id") == command_id)

    def ui_request(self, method: str) -> dict[str, Any]:
        return self.read_until(lambda o: o.get("type") == "extension_ui_request" and o.get("method") == method)

    def close(self) -> int:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def run_pi(
    env: Env, *args: str, extra_env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`pi args...` in the test project with additional environment variables (extension start-ups take longer)."""
    return env.run(*args, stdin=stdin, timeout=90, extra_env=extra_env)


__all__ = ["Rpc", "run_pi", "write_extension"]
