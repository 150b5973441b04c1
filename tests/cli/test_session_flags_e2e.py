"""The session flags through the real `pi` process: files that are not sessions, another project's
session, a shared ``--session-dir``, and custom ids (delta §1.1, §1.7, §4.1)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli_env import MODEL, PI, Env
from tests.support.cli_env import env as env  # the fixture
from tests.support.openai_chunks import text_reply

NOT_A_SESSION = "Error: Session file is not a valid pi session: {path}\n"


def _header(cwd: Path, session_id: str = "abc-1") -> str:
    return json.dumps(
        {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)}
    )


def _user_line(text: str) -> str:
    message = {"role": "user", "content": text, "timestamp": 1767225600000}
    return json.dumps(
        {
            "type": "message",
            "id": "0badf00d",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": message,
        }
    )


def _session_files(env: Env) -> list[Path]:
    return sorted((env.agent_dir / "sessions").rglob("*.jsonl"))


def _user_texts(request_body: dict[str, object]) -> list[str]:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    out = []
    for message in messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        out.append(content if isinstance(content, str) else "".join(part["text"] for part in content))
    return out


def _start_session_in(env: Env, directory: Path, session_id: str, *extra: str) -> None:
    """A session of `directory` with one exchange (`first` / `in A`), made by `pi` itself."""
    env.server.queue(text_reply("in A"))
    done = subprocess.run(
        [*PI, *extra, "--session-id", session_id, *MODEL, "-p", "first"],
        cwd=directory,
        env=env.vars,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda cwd: "hello\n", id="text"),
        pytest.param(lambda cwd: '{"foo": 1}\n{"bar": 2}\n', id="json-not-a-session"),
        pytest.param(lambda cwd: f"{_user_line('hi')}\n{_header(cwd)}\n", id="header-on-line-2"),
        pytest.param(lambda cwd: f"\ufeff{_header(cwd)}\n{_user_line('hi')}\n", id="bom-before-header"),
    ],
)
def test_session_flag_on_a_file_that_is_not_a_session_is_one_error_line(env: Env, content: object) -> None:
    path = env.cwd / "bad.jsonl"
    assert callable(content)
    path.write_text(content(env.cwd), encoding="utf-8")
    before = path.read_bytes()
    done = env.run("--session", str(path), *MODEL, "-p", "hi")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", NOT_A_SESSION.format(path=path))
    assert env.server.requests == [] and path.read_bytes() == before


def test_fork_of_a_file_that_is_not_a_session_is_one_error_line(env: Env) -> None:
    path = env.cwd / "bad.jsonl"
    path.write_text("hello\n")
    done = env.run("--fork", str(path), *MODEL, "-p", "hi")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"Error: Cannot fork: source session file is empty or invalid: {path}\n"
    assert env.server.requests == [] and _session_files(env) == []


def test_declining_another_projects_session_reads_the_answer_from_stdin(env: Env, tmp_path: Path) -> None:
    project_a = tmp_path / "dirA"
    project_a.mkdir()
    _start_session_in(env, project_a, "projA-777")
    before = _session_files(env)
    done = env.run("--session", "projA-777", *MODEL, "-p", "where", stdin="n\n")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == (
        f"Session found in different project: {project_a}\nFork this session into current directory? [y/N] Aborted.\n"
    )
    assert len(env.server.requests) == 1 and _session_files(env) == before


def test_no_answer_on_stdin_declines_the_fork(env: Env, tmp_path: Path) -> None:
    """pi 1.6.0 with stdin at its end: the question, nothing done, exit 0."""
    project_a = tmp_path / "dirA"
    project_a.mkdir()
    _start_session_in(env, project_a, "projA-777")
    before = _session_files(env)
    done = env.run("--session", "projA", *MODEL, "-p", "where", stdin="")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith(
        f"Session found in different project: {project_a}\nFork this session into current directory? [y/N] "
    )
    assert done.stderr.endswith("Aborted.\n")
    assert len(env.server.requests) == 1 and _session_files(env) == before


def test_agreeing_forks_the_session_here_and_the_rest_of_stdin_is_the_prompt(env: Env, tmp_path: Path) -> None:
    project_a = tmp_path / "dirA"
    project_a.mkdir()
    _start_session_in(env, project_a, "projA-777")
    (source,) = _session_files(env)
    env.server.queue(text_reply("forked reply"))
    done = env.run("--session", "projA-777", *MODEL, "-p", "where", stdin="y\npiped ")
    assert (done.returncode, done.stdout) == (0, "forked reply\n"), done.stderr
    assert _user_texts(env.server.requests[-1].json()) == ["first", "pipedwhere"]
    (fork,) = [path for path in _session_files(env) if path != source]
    header = json.loads(fork.read_text().splitlines()[0])
    assert (header["cwd"], header["parentSession"]) == (str(env.cwd), str(source))


def test_session_id_of_another_cwd_in_a_shared_session_dir_offers_the_fork(env: Env, tmp_path: Path) -> None:
    """delta §4.1.8 scopes only the local lookup to the cwd; the global one searches the whole directory."""
    shared = tmp_path / "shared-sessions"
    project_a = tmp_path / "dirA"
    project_a.mkdir()
    _start_session_in(env, project_a, "one-1", "--session-dir", str(shared))
    (source,) = shared.glob("*.jsonl")
    done = env.run("--session-dir", str(shared), "--session", "one-1", *MODEL, "-p", "by id", stdin="n\n")
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert done.stderr.startswith(f"Session found in different project: {project_a}\n")
    env.server.queue(text_reply("forked"))
    done = env.run("--session-dir", str(shared), "--session", "one", *MODEL, "-p", "by id", stdin="yes\n")
    assert (done.returncode, done.stdout) == (0, "forked\n"), done.stderr
    assert _user_texts(env.server.requests[-1].json()) == ["first", "by id"]
    (fork,) = [path for path in shared.glob("*.jsonl") if path != source]
    assert json.loads(fork.read_text().splitlines()[0])["cwd"] == str(env.cwd)


@pytest.mark.parametrize("session_id", ["bad id!", "ends-with-dot.", "-leading-dash", "a/b"])
def test_an_invalid_session_id_gets_the_message_pi_gives(env: Env, session_id: str) -> None:
    done = env.run("--session-id", session_id, *MODEL, "-p", "hi")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "Error: Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
        "and start and end with an alphanumeric character\n"
    )
    assert env.server.requests == [] and _session_files(env) == []


def test_rpc_mode_does_not_take_a_command_line_as_the_answer(env: Env, tmp_path: Path) -> None:
    """stdin carries the RPC commands and stdout the protocol: the session is reported, nothing else."""
    project_a = tmp_path / "dirA"
    project_a.mkdir()
    _start_session_in(env, project_a, "projA-777")
    before = _session_files(env)
    command = json.dumps({"type": "prompt", "message": "y"}) + "\n"
    done = env.run("--mode", "rpc", "--session", "projA-777", *MODEL, stdin=command)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"Error: Session found in different project: {project_a}\n"
        "RPC mode cannot ask whether to fork it; run with --fork projA-777 to continue a copy here.\n"
    )
    assert len(env.server.requests) == 1 and _session_files(env) == before
