"""The `pi` process end to end: --name, --session-id, --session <new file>, --no-context-files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def _session_files(env: Env) -> list[Path]:
    return sorted((env.agent_dir / "sessions").rglob("*.jsonl")) if (env.agent_dir / "sessions").exists() else []


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_name_is_the_first_entry_after_the_header(env: Env) -> None:
    env.server.queue(text_reply("ok"))
    done = env.run("-p", *MODEL, "--name", "Fix the\nparser", "hi")
    assert done.returncode == 0, done.stderr
    [file] = _session_files(env)
    lines = _lines(file)
    assert lines[0]["type"] == "session"
    assert lines[1]["type"] == "session_info" and lines[1]["name"] == "Fix the parser"
    assert lines[1]["parentId"] is None
    assert any(line.get("message", {}).get("role") == "user" for line in lines[2:])


def test_short_name_flag_works_in_json_mode(env: Env) -> None:
    env.server.queue(text_reply("ok"))
    done = env.run("--mode", "json", *MODEL, "-n", "json run", "hi")
    assert done.returncode == 0, done.stderr
    [file] = _session_files(env)
    assert _lines(file)[1] == {**_lines(file)[1], "type": "session_info", "name": "json run"}


def test_blank_name_is_an_error_before_any_request(env: Env) -> None:
    done = env.run("-p", *MODEL, "--name", "  ", "hi")
    assert done.returncode == 1
    assert "Error: --name requires a non-empty value" in done.stderr
    assert env.server.requests == []


def test_session_id_creates_then_reopens_that_session(env: Env) -> None:
    env.server.queue(text_reply("first"), text_reply("second"))
    created = env.run("-p", *MODEL, "--session-id", "my-task-1", "remember 42")
    assert created.returncode == 0, created.stderr
    assert (
        "Warning: No project session found with id 'my-task-1'; creating a new session with that id." in created.stderr
    )
    [file] = _session_files(env)
    assert file.name.endswith("_my-task-1.jsonl")
    assert _lines(file)[0]["id"] == "my-task-1"

    reopened = env.run("-p", *MODEL, "--session-id", "my-task-1", "what number?")
    assert reopened.returncode == 0, reopened.stderr
    assert "No project session found" not in reopened.stderr
    assert _session_files(env) == [file]
    assert "remember 42" in json.dumps(env.server.requests[-1].json()["messages"])


def test_session_id_with_no_session_keeps_nothing_on_disk(env: Env) -> None:
    env.server.queue(text_reply('{"ok": true}'))
    done = env.run("--mode", "json", *MODEL, "--no-session", "--session-id", "mem-1", "hi")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["id"] == "mem-1"
    assert _session_files(env) == []


def test_an_invalid_session_id_is_an_error(env: Env) -> None:
    done = env.run("-p", *MODEL, "--session-id", "bad id!", "hi")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ")
    assert env.server.requests == []


def test_session_with_a_new_jsonl_path_creates_that_file(env: Env) -> None:
    env.server.queue(text_reply("ok"), text_reply("again"))
    target = env.cwd / "work" / "task.jsonl"
    target.parent.mkdir()
    done = env.run("-p", *MODEL, "--session", "work/task.jsonl", "hi")
    assert done.returncode == 0, done.stderr
    lines = _lines(target)
    assert lines[0]["type"] == "session" and lines[0]["cwd"] == str(env.cwd)
    assert [line["message"]["role"] for line in lines if line["type"] == "message"][-2:] == ["user", "assistant"]
    again = env.run("-p", *MODEL, "--session", str(target), "more")
    assert again.returncode == 0, again.stderr
    users = [line for line in _lines(target) if line["type"] == "message" and line["message"]["role"] == "user"]
    assert len(users) == 2
    assert "hi" in json.dumps(env.server.requests[-1].json()["messages"])


def test_session_with_a_new_path_in_a_missing_folder_says_so(env: Env) -> None:
    done = env.run("-p", *MODEL, "--session", "nowhere/task.jsonl", "hi")
    assert done.returncode == 1
    assert f"the folder {env.cwd / 'nowhere'} does not exist" in done.stderr
    assert env.server.requests == []


def test_no_context_files_leaves_agents_md_out_of_the_prompt(env: Env) -> None:
    (env.cwd / "AGENTS.md").write_text("Always answer in haiku.\n")
    env.server.queue(text_reply("ok"))
    assert env.run("-p", *MODEL, "hi").returncode == 0
    assert "Always answer in haiku." in json.dumps(env.server.requests[-1].json()["messages"][0])
    for flag in ("--no-context-files", "-nc"):
        env.server.queue(text_reply("ok"))
        done = env.run("-p", *MODEL, flag, "hi")
        assert done.returncode == 0, done.stderr
        assert "Always answer in haiku." not in json.dumps(env.server.requests[-1].json()["messages"])


def test_fork_takes_the_session_id_unless_it_is_taken(env: Env) -> None:
    env.server.queue(text_reply("ok"), text_reply("forked"))
    assert env.run("-p", *MODEL, "--session-id", "taken-1", "hi").returncode == 0
    [source] = _session_files(env)
    clash = env.run("-p", *MODEL, "--fork", str(source), "--session-id", "taken-1", "again")
    assert clash.returncode == 1
    assert "Session already exists with id 'taken-1'" in clash.stderr
    done = env.run("-p", *MODEL, "--fork", str(source), "--session-id", "copy-1", "again")
    assert done.returncode == 0, done.stderr
    [copy] = [path for path in _session_files(env) if path.name.endswith("_copy-1.jsonl")]
    header = _lines(copy)[0]
    assert header["id"] == "copy-1" and header["parentSession"] == str(source)
