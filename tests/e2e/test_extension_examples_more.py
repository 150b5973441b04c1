"""The git-checkpoint, handoff and ssh examples, each loaded with `-e` into the real `pi` process."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.app.extensions.cli_support import Rpc, run_pi
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply, tool_reply

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"
FAKE_SSH = Path(__file__).resolve().parent / "fixtures" / "ssh_fake" / "fake_ssh.py"

__all__ = ["env"]


def example(name: str) -> str:
    return str(EXAMPLES / name)


def tool_messages(env: Env, request: int = -1) -> list[dict[str, Any]]:
    return [m for m in env.server.requests[request].json()["messages"] if m["role"] == "tool"]


# -- git checkpoint -------------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **identity}, capture_output=True, text=True, check=True
    )
    return done.stdout


def checkpoint_refs(cwd: Path) -> list[str]:
    return git(cwd, "for-each-ref", "--format=%(objectname)", "refs/pi-checkpoints/").split()


def make_repository(cwd: Path) -> None:
    git(cwd, "init", "-q")
    (cwd / "a.txt").write_text("old\n")
    git(cwd, "add", "a.txt")
    git(cwd, "commit", "-q", "-m", "first")
    (cwd / "staged.txt").write_text("staged\n")
    git(cwd, "add", "staged.txt")
    (cwd / "notes.txt").write_text("untracked but kept\n")


def test_git_checkpoint_records_before_writes_and_restores(env: Env) -> None:
    make_repository(env.cwd)
    head, staged = git(env.cwd, "rev-parse", "HEAD"), git(env.cwd, "diff", "--cached", "--name-only")
    env.server.queue(
        tool_reply(
            [("write", {"path": "a.txt", "content": "new\n"}), ("write", {"path": "sub/b.txt", "content": "b"})]
        ),
        text_reply("wrote them"),
    )
    rpc = Rpc(env, "-e", example("git_checkpoint.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "change the files"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        (checkpoint,) = checkpoint_refs(env.cwd)  # one per turn, however many writes it makes
        assert git(env.cwd, "show", f"{checkpoint}:a.txt") == "old\n"
        assert git(env.cwd, "show", f"{checkpoint}:notes.txt") == "untracked but kept\n"
        assert (env.cwd / "a.txt").read_text() == "new\n" and (env.cwd / "sub" / "b.txt").exists()
        assert git(env.cwd, "rev-parse", "HEAD") == head and git(env.cwd, "stash", "list") == ""
        assert git(env.cwd, "diff", "--cached", "--name-only") == staged

        rpc.send({"id": "l", "type": "prompt", "message": "/checkpoints"})
        listing = rpc.ui_request("notify")["message"]
        assert checkpoint[:10] in listing and "before write a.txt" in listing

        rpc.send({"id": "r", "type": "prompt", "message": f"/checkpoints restore {checkpoint[:8]}"})
        restored = rpc.ui_request("notify")["message"]
        assert restored.startswith(f"Restored checkpoint {checkpoint[:10]}")
        assert rpc.response("r")["data"] == {"disposition": "handled"}
    finally:
        assert rpc.close() == 0
    assert (env.cwd / "a.txt").read_text() == "old\n"
    assert not (env.cwd / "sub").exists()
    assert (env.cwd / "notes.txt").read_text() == "untracked but kept\n"
    assert git(env.cwd, "diff", "--cached", "--name-only") == staged and git(env.cwd, "rev-parse", "HEAD") == head
    backup = next(ref for ref in checkpoint_refs(env.cwd) if ref != checkpoint)
    assert git(env.cwd, "show", f"{backup}:a.txt") == "new\n"  # the restore itself can be undone


def test_git_checkpoint_outside_a_repository_stays_out_of_the_way(env: Env) -> None:
    env.server.queue(tool_reply([("write", {"path": "a.txt", "content": "x"})]), text_reply("ok"))
    done = env.run("-e", example("git_checkpoint.py"), "-p", *MODEL, "write")
    assert done.returncode == 0, done.stderr
    assert (env.cwd / "a.txt").read_text() == "x" and "Successfully wrote" in str(tool_messages(env)[0]["content"])


def test_git_checkpoint_restore_without_a_sha_offers_a_choice(env: Env) -> None:
    make_repository(env.cwd)
    env.server.queue(tool_reply([("edit", {"path": "a.txt", "edits": [{"oldText": "old", "newText": "edited"}]})]))
    env.server.queue(text_reply("edited"))
    rpc = Rpc(env, "-e", example("git_checkpoint.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "edit a.txt"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        assert (env.cwd / "a.txt").read_text() == "edited\n"
        rpc.send({"id": "r", "type": "prompt", "message": "/checkpoints restore"})
        choice = rpc.ui_request("select")
        assert choice["title"] == "Restore which checkpoint?" and len(choice["options"]) == 1
        assert "before edit a.txt" in choice["options"][0]
        rpc.send({"type": "extension_ui_response", "id": choice["id"], "value": choice["options"][0]})
        assert rpc.ui_request("notify")["message"].startswith("Restored checkpoint")
        rpc.send({"id": "x", "type": "prompt", "message": "/checkpoints restore nope"})
        error = rpc.ui_request("notify")
        assert error["notifyType"] == "error" and 'No checkpoint matches "nope"' in error["message"]
    finally:
        assert rpc.close() == 0
    assert (env.cwd / "a.txt").read_text() == "old\n"


# -- handoff --------------------------------------------------------------------------------------


def session_files(env: Env) -> list[Path]:
    return sorted((env.agent_dir / "sessions").rglob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def user_texts(lines: list[dict[str, Any]]) -> list[str]:
    out = []
    for line in lines:
        message = line.get("message") if line.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return out


def test_handoff_starts_a_new_session_with_the_drafted_prompt(env: Env) -> None:
    draft = "Continue the parser rewrite: finish tokenizer.py, then run the tests."
    edited = draft + "\nAlso keep the old API."
    env.server.queue(text_reply("I rewrote half of tokenizer.py."), text_reply(draft), text_reply("On it."))
    rpc = Rpc(env, "-e", example("handoff.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "Rewrite the parser"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        (old,) = session_files(env)
        rpc.send({"id": "h", "type": "prompt", "message": "/handoff finish the tokenizer"})
        dialog = rpc.ui_request("editor")
        assert dialog["prefill"] == draft
        rpc.send({"type": "extension_ui_response", "id": dialog["id"], "value": edited})
        assert rpc.response("h")["data"] == {"disposition": "handled"}
    finally:
        assert rpc.close() == 0
    summary_request = env.server.requests[1].json()
    sent = json.dumps(summary_request["messages"])
    assert "Rewrite the parser" in sent and "I rewrote half of tokenizer.py." in sent
    assert "finish the tokenizer" in sent and "opening prompt of a new working session" in sent
    new = next(path for path in session_files(env) if path != old)
    lines = read_jsonl(new)
    assert lines[0]["type"] == "session" and lines[0]["parentSession"] == str(old)
    assert user_texts(lines) == [edited]
    fresh = json.dumps(env.server.requests[2].json()["messages"])
    assert "Also keep the old API." in fresh and "Rewrite the parser" not in fresh


def test_handoff_without_a_goal_or_conversation_explains_itself(env: Env) -> None:
    rpc = Rpc(env, "-e", example("handoff.py"))
    try:
        rpc.send({"id": "a", "type": "prompt", "message": "/handoff"})
        assert rpc.ui_request("notify")["message"].startswith("Usage: /handoff")
        rpc.send({"id": "b", "type": "prompt", "message": "/handoff do more"})
        assert "nothing to hand off" in rpc.ui_request("notify")["message"]
        rpc.response("b")
    finally:
        assert rpc.close() == 0
    assert env.server.requests == []


def test_handoff_in_print_mode_uses_the_draft_as_it_is(env: Env) -> None:
    draft = "Finish tokenizer.py; the lexer tables are done."
    env.server.queue(text_reply("Half done."), text_reply(draft), text_reply("Finished."))
    first = env.run("-e", example("handoff.py"), "-p", *MODEL, "Rewrite the parser")
    assert first.returncode == 0, first.stderr
    (old,) = session_files(env)
    done = env.run("-e", example("handoff.py"), "-c", "-p", *MODEL, "/handoff finish the tokenizer")
    assert done.returncode == 0, done.stderr
    new = next(path for path in session_files(env) if path != old)
    assert user_texts(read_jsonl(new)) == [draft] and read_jsonl(new)[0]["parentSession"] == str(old)
    assert user_texts(read_jsonl(old)) == ["Rewrite the parser"]


# -- ssh ------------------------------------------------------------------------------------------


def ssh_env(env: Env) -> tuple[Path, Path, dict[str, str]]:
    remote = env.cwd.parent / "remote-host"
    remote.mkdir()
    log = env.cwd.parent / "ssh.log"
    command = shlex.join([sys.executable, str(FAKE_SSH)])
    return remote, log, {"PI_SSH_COMMAND": command, "FAKE_SSH_ROOT": str(remote), "FAKE_SSH_LOG": str(log)}


def test_ssh_runs_the_tools_on_the_remote_side(env: Env) -> None:
    remote, log, extra = ssh_env(env)
    (remote / "notes.txt").write_text("remote notes\nsecond line\n")
    (env.cwd / "notes.txt").write_text("local notes\n")
    env.server.queue(
        tool_reply([("read", {"path": "notes.txt"}), ("bash", {"command": "pwd; echo err >&2; exit 3"})]),
        tool_reply([("write", {"path": "out/new.txt", "content": "made remotely\n"})]),
        tool_reply([("edit", {"path": "notes.txt", "edits": [{"oldText": "second", "newText": "2nd"}]})]),
        text_reply("done"),
    )
    done = run_pi(env, "-e", example("ssh.py"), "--ssh", "devbox", "-p", *MODEL, "look", extra_env=extra)
    assert done.returncode == 0, done.stderr
    read, bash = (str(m["content"]) for m in tool_messages(env, 1))
    assert "remote notes" in read and "local notes" not in read
    assert str(remote) in bash and "err" in bash and "exited with code 3" in bash
    assert (remote / "out" / "new.txt").read_text() == "made remotely\n" and not (env.cwd / "out").exists()
    assert (remote / "notes.txt").read_text() == "remote notes\n2nd line\n"
    assert (env.cwd / "notes.txt").read_text() == "local notes\n"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert {c["host"] for c in calls} == {"devbox"} and any("pwd; echo err" in c["command"] for c in calls)
    prompt = json.dumps(env.server.requests[0].json()["messages"][0])
    assert "remote host devbox" in prompt


def test_ssh_directory_in_the_flag_and_errors_name_the_remote_failure(env: Env) -> None:
    remote, log, extra = ssh_env(env)
    (remote / "app").mkdir()
    (remote / "app" / "x.txt").write_text("in app\n")
    env.server.queue(tool_reply([("read", {"path": "x.txt"}), ("read", {"path": "missing.txt"})]), text_reply("ok"))
    done = run_pi(
        env, "-e", example("ssh.py"), "--ssh", f"me@devbox:{remote / 'app'}", "-p", *MODEL, "go", extra_env=extra
    )
    assert done.returncode == 0, done.stderr
    found, missing = (str(m["content"]) for m in tool_messages(env))
    assert "in app" in found and "missing.txt" in missing and "ENOENT: no such file" in missing
    assert {json.loads(line)["host"] for line in log.read_text().splitlines()} == {"me@devbox"}


def test_without_the_flag_the_tools_stay_local(env: Env) -> None:
    _, log, extra = ssh_env(env)
    (env.cwd / "notes.txt").write_text("local notes\n")
    env.server.queue(tool_reply([("read", {"path": "notes.txt"})]), text_reply("ok"))
    done = run_pi(env, "-e", example("ssh.py"), "-p", *MODEL, "look", extra_env=extra)
    assert done.returncode == 0, done.stderr
    assert "local notes" in str(tool_messages(env)[0]["content"]) and not log.exists()


def test_ssh_command_that_cannot_run_is_reported_to_the_model(env: Env) -> None:
    _, _, extra = ssh_env(env)
    extra["PI_SSH_COMMAND"] = str(env.cwd.parent / "no-such-ssh")
    env.server.queue(tool_reply([("read", {"path": "x.txt"}), ("bash", {"command": "ls"})]), text_reply("ok"))
    done = run_pi(env, "-e", example("ssh.py"), "--ssh", "devbox", "-p", *MODEL, "go", extra_env=extra)
    assert done.returncode == 0, done.stderr
    for message in tool_messages(env):
        assert "cannot run" in str(message["content"]) and "PI_SSH_COMMAND" in str(message["content"])


def test_ssh_bash_timeout_stops_the_remote_call(env: Env) -> None:
    _, _, extra = ssh_env(env)
    env.server.queue(tool_reply([("bash", {"command": "sleep 60", "timeout": 1})]), text_reply("ok"))
    started = time.monotonic()
    done = run_pi(env, "-e", example("ssh.py"), "--ssh", "devbox", "-p", *MODEL, "wait", extra_env=extra)
    assert done.returncode == 0, done.stderr
    assert "timed out" in str(tool_messages(env)[0]["content"]).lower()
    # The remote `sleep` holds the output pipe open: only killing the whole call ends the run early.
    assert time.monotonic() - started < 45
