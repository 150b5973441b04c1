"""The `pi` process end to end: print and JSON mode details of delta-1.6 §2 (pending stop reason, warnings)."""

from __future__ import annotations

import json

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def test_streaming_assistant_messages_start_pending_and_end_with_a_terminal_reason(env: Env) -> None:
    env.server.queue(text_reply("a streamed reply"))
    done = env.run("--mode", "json", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    starts = [e for e in events if e["type"] == "message_start" and e["message"]["role"] == "assistant"]
    ends = [e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert [e["message"]["stopReason"] for e in starts] == ["pending"]
    assert [e["message"]["stopReason"] for e in ends] == ["stop"]
    kinds = {e["assistantMessageEvent"]["type"] for e in events if e["type"] == "message_update"}
    assert kinds and not kinds & {"start", "done", "error"}


def test_a_model_that_cannot_be_restored_is_named_once_with_its_replacement(env: Env) -> None:
    env.server.queue(text_reply("first"))
    assert env.run("-p", *MODEL, "first").returncode == 0
    models_file = env.agent_dir / "models.json"
    models = json.loads(models_file.read_text())
    models["providers"]["fake"]["models"][0]["id"] = "fake-model-2"
    models_file.write_text(json.dumps(models))
    env.server.queue(text_reply("second"))
    done = env.run("-p", "-c", "again")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "second\n"
    warning = "Warning: Could not restore model fake/fake-model. Using fake/fake-model-2"
    assert done.stderr.splitlines().count(warning) == 1, done.stderr
    assert env.server.requests[-1].json()["model"] == "fake-model-2"


def test_json_stdout_holds_only_json_while_warnings_go_to_stderr(env: Env) -> None:
    env.server.queue(text_reply("fine"))
    done = env.run("--mode", "json", *MODEL, "--thinking", "bogus", "--no-session", "hi")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    records = [json.loads(line) for line in lines]  # every line parses
    assert records[0]["type"] == "session" and records[0]["version"] == 3  # the header, also without a file
    assert 'Warning: Invalid thinking level "bogus"' in done.stderr
    assert list(env.agent_dir.rglob("*.jsonl")) == []  # --no-session writes no file


def test_json_mode_reports_a_prompting_failure_on_stderr_with_exit_1(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    del models["providers"]["fake"]["apiKey"]
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    done = env.run("--mode", "json", *MODEL, "hi")
    assert done.returncode == 1
    assert "No API key found for fake" in done.stderr
    assert "Traceback" not in done.stderr
    assert all(json.loads(line) for line in done.stdout.splitlines())
    assert env.server.requests == []


def test_api_key_without_a_model_is_an_error_diagnostic(env: Env) -> None:
    done = env.run("-p", "--api-key", "k", "hi")
    assert done.returncode == 1
    assert done.stderr.startswith(
        "Error: --api-key requires a model to be specified via --model, --provider/--model, or --models"
    )
    assert env.server.requests == []
