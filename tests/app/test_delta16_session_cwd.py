"""The `pi` process end to end: a session opened with --session runs in its stored cwd (delta-1.6 §1.1.6–7)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.support.cli_env import MODEL, PI, Env
from tests.support.openai_chunks import text_reply, tool_reply


def _first_session(env: Env) -> Path:
    env.server.queue(text_reply("noted"))
    done = env.run("-p", *MODEL, "remember this place")
    assert done.returncode == 0, done.stderr
    (session,) = sorted((env.agent_dir / "sessions").rglob("*.jsonl"))
    return session


def _elsewhere(env: Env) -> Path:
    other = env.cwd.parent / "elsewhere"
    other.mkdir()
    return other


def _run_from(env: Env, cwd: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run([*PI, *args], cwd=cwd, env=env.vars, input="", capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_tools_run_in_the_sessions_own_directory(env: Env) -> None:
    session = _first_session(env)
    other = _elsewhere(env)
    env.server.queue(tool_reply([("bash", {"command": "pwd"})]), text_reply("done"))
    code, _, err = _run_from(env, other, "-p", *MODEL, "--session", str(session), "where am I?")
    assert code == 0, err
    tool_result = env.server.requests[-1].json()["messages"][-1]
    assert tool_result["role"] == "tool"
    assert str(env.cwd) in str(tool_result["content"])
    assert str(other) not in str(tool_result["content"])
    system = env.server.requests[-1].json()["messages"][0]
    assert f"<cwd>\n{env.cwd}\n</cwd>" in str(system["content"])


def test_continue_stays_in_the_launch_directory(env: Env) -> None:
    _first_session(env)
    other = _elsewhere(env)
    env.server.queue(text_reply("fresh"))
    code, _, err = _run_from(env, other, "-p", *MODEL, "-c", "hi")
    assert code == 0, err
    system = env.server.requests[-1].json()["messages"][0]
    assert f"<cwd>\n{other}\n</cwd>" in str(system["content"])


def test_a_deleted_session_directory_is_an_error_without_a_request(env: Env) -> None:
    session = _first_session(env)
    other = _elsewhere(env)
    before = len(env.server.requests)
    shutil.rmtree(env.cwd)
    code, out, err = _run_from(env, other, "-p", *MODEL, "--session", str(session), "hi")
    assert code == 1
    assert out == ""
    assert err.strip() == (
        f"Stored session working directory does not exist: {env.cwd}\n"
        f"Session file: {session}\n"
        f"Current working directory: {other}"
    )
    assert len(env.server.requests) == before
    assert json.loads(session.read_text().splitlines()[0])["cwd"] == str(env.cwd)
