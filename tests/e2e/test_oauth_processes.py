"""Subscription logins across real `pi` processes: sign in, prompt, refresh once, and keep tokens secret.

The token endpoints are a loopback stub (`PI_OAUTH_ENDPOINTS`), the model server another; the
sign-in's browser step is this test fetching the loopback callback URL the login printed.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pexpect
import pytest

from tests.app.oauth.wire import anthropic_reply
from tests.support.http_server import ScriptedServer, json_response
from tests.support.openai_chunks import text_reply

PI = [sys.executable, "-m", "pi"]
OPENROUTER_KEY = "sk-or-v1-SECRET-minted-by-login-7f3a"
ANTHROPIC_OLD = "sk-ant-oat01-SECRET-old-91c2"
ANTHROPIC_NEW = "sk-ant-oat01-SECRET-new-44bd"
ANTHROPIC_REFRESH = "sk-ant-ort01-SECRET-refresh-0e11"


@pytest.fixture
def stub() -> Iterator[ScriptedServer]:
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


class World:
    def __init__(self, root: Path, model_server: ScriptedServer, stub: ScriptedServer) -> None:
        self.root = root
        self.agent = root / "agent"
        self.home = root / "home"
        self.cwd = root / "project"
        self.tmp = root / "tmp"
        for path in (self.home, self.cwd, self.tmp):
            path.mkdir()
        self.agent.mkdir(mode=0o700)
        providers = {
            "openrouter": {"baseUrl": f"{model_server.url}/v1"},
            "anthropic": {"baseUrl": model_server.url},
        }
        (self.agent / "models.json").write_text(json.dumps({"providers": providers}))
        (self.agent / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}}))
        self.env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and k[:3] != "PI_"}
        self.env.update(
            PI_CODING_AGENT_DIR=str(self.agent),
            HOME=str(self.home),
            TMPDIR=str(self.tmp),
            BROWSER="true",
            PI_OAUTH_ENDPOINTS=json.dumps({"openrouter": stub.url, "anthropic": stub.url}),
        )

    def pi(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*PI, *args], cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def run(self, *args: str) -> tuple[int, str, str]:
        proc = self.pi(*args)
        out, err = proc.communicate(timeout=90)
        return proc.returncode, out, err


@pytest.fixture
def world(tmp_path: Path, server: ScriptedServer, stub: ScriptedServer) -> World:
    return World(tmp_path, server, stub)


def _catalog_id(provider: str, api: str) -> str:
    from pi.ai.models import get_models

    return next(m.id for m in get_models(provider) if m.api == api)


def _login_openrouter(world: World) -> str:
    """`pi auth login openrouter` in a terminal; the 'browser' is this test visiting the callback URL."""
    child = pexpect.spawn(
        PI[0], [*PI[1:], "auth", "login", "openrouter"], cwd=str(world.cwd), env=world.env, encoding="utf-8", timeout=60
    )
    try:
        child.expect(r"Open this URL to sign in:\r?\n  (\S+)")
        url = str(child.match.group(1))
        callback = parse_qs(urlsplit(url).query)["callback_url"][0]
        page = httpx.get(callback, params={"code": "code-from-openrouter"}, timeout=30)
        assert page.status_code == 200 and "Signed in to OpenRouter" in page.text
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    return str(child.before)


def test_login_and_prompt_keep_every_token_out_of_everything_but_auth_json(
    world: World, server: ScriptedServer, stub: ScriptedServer
) -> None:
    stub.queue(json_response(200, {"key": OPENROUTER_KEY}))
    transcript = _login_openrouter(world)
    assert "Logged in to OpenRouter. Credentials saved to" in transcript
    assert json.loads(stub.requests[0].body)["code"] == "code-from-openrouter"
    auth_path = world.agent / "auth.json"
    stored = json.loads(auth_path.read_text())["openrouter"]
    assert stored == {"type": "oauth", "refresh": "", "access": OPENROUTER_KEY, "expires": 9007199254740991}

    server.queue(text_reply("routed reply"))
    code, out, err = world.run(
        "-p", "--provider", "openrouter", "--model", _catalog_id("openrouter", "openai-completions"), "hello"
    )
    assert code == 0, err
    assert "routed reply" in out
    assert server.requests[-1].headers["authorization"] == f"Bearer {OPENROUTER_KEY}"

    # A stale subscription token is refreshed during the next prompt; the rotated tokens stay secret too.
    data = json.loads(auth_path.read_text())
    soon = int(time.time() * 1000) + 60_000
    data["anthropic"] = {"type": "oauth", "access": ANTHROPIC_OLD, "refresh": ANTHROPIC_REFRESH, "expires": soon}
    auth_path.write_text(json.dumps(data))
    stub.queue(
        json_response(
            200, {"access_token": ANTHROPIC_NEW, "refresh_token": "sk-ant-ort01-SECRET-r2", "expires_in": 3600}
        )
    )
    server.queue(anthropic_reply("claude reply"))
    code, out2, err2 = world.run(
        "-p", "--provider", "anthropic", "--model", _catalog_id("anthropic", "anthropic-messages"), "hi"
    )
    assert code == 0, err2
    assert server.requests[-1].headers["authorization"] == f"Bearer {ANTHROPIC_NEW}"

    # And a refresh that fails says so without the token.
    data = json.loads(auth_path.read_text())
    data["anthropic"]["expires"] = 0
    auth_path.write_text(json.dumps(data))
    stub.queue(json_response(400, {"error": "invalid_grant", "error_description": "bad refresh"}))
    code, out3, err3 = world.run(
        "-p", "--provider", "anthropic", "--model", _catalog_id("anthropic", "anthropic-messages"), "again"
    )
    assert code == 1
    assert "OAuth refresh failed for anthropic" in out3 + err3

    session_file = next((world.agent / "sessions").rglob("*.jsonl"))
    code, _, err4 = world.run("--export", str(session_file), str(world.cwd / "export.html"))
    assert code == 0 and (world.cwd / "export.html").is_file(), err4

    assert oct(os.stat(auth_path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(world.agent).st_mode & 0o777) == "0o700"
    secrets = (OPENROUTER_KEY, ANTHROPIC_OLD, ANTHROPIC_NEW, ANTHROPIC_REFRESH, "sk-ant-ort01-SECRET-r2")
    for output in (transcript, out, err, out2, err2, out3, err3, err4):
        assert not any(s in output for s in secrets)
    written = [p for p in world.root.rglob("*") if p.is_file() and p != auth_path]
    assert any(p.suffix == ".jsonl" for p in written), "the prompts wrote no session file"
    for path in written:
        content = path.read_bytes()
        leaked = [s for s in secrets if s.encode() in content]
        assert not leaked, f"{path} contains {leaked}"


def _lock_waiters(inode: int) -> int:
    with open("/proc/locks") as locks:
        return sum(1 for line in locks if "->" in line and f":{inode} " in line)


def test_two_pi_processes_refresh_a_stale_login_once(
    world: World, server: ScriptedServer, stub: ScriptedServer
) -> None:
    """Check 53 across processes: both wait on the auth.json lock, one refreshes, both send the new token."""
    auth_path = world.agent / "auth.json"
    soon = int(time.time() * 1000) + 4 * 60_000
    auth_path.write_text(
        json.dumps({"anthropic": {"type": "oauth", "access": ANTHROPIC_OLD, "refresh": "r0", "expires": soon}})
    )
    os.chmod(auth_path, 0o600)
    stub.queue(json_response(200, {"access_token": ANTHROPIC_NEW, "refresh_token": "r1", "expires_in": 3600}))
    server.queue(anthropic_reply("first"), anthropic_reply("second"))
    lock_path = world.agent / "auth.json.lock"
    model = _catalog_id("anthropic", "anthropic-messages")
    with open(lock_path, "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        procs = [world.pi("-p", "--provider", "anthropic", "--model", model, "hello") for _ in range(2)]
        deadline = time.monotonic() + 60
        while _lock_waiters(os.stat(lock_path).st_ino) < 2:
            assert time.monotonic() < deadline, "the processes never reached the auth.json lock"
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.02)
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    results = [p.communicate(timeout=90) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert sorted(out.strip() for out, _ in results) == ["first", "second"]
    assert len(stub.requests) == 1
    assert [r.headers["authorization"] for r in server.requests] == [f"Bearer {ANTHROPIC_NEW}"] * 2
    assert json.loads(auth_path.read_text())["anthropic"]["refresh"] == "r1"


def test_auth_logout_with_nothing_stored_exits_zero(world: World) -> None:
    """Check 56."""
    code, out, err = world.run("auth", "logout", "openrouter")
    assert (code, err) == (0, "")
    assert "No stored credentials for OpenRouter." in out
