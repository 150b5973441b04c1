"""The `pi` process end to end: how a session starts (pi 1.6.0's behaviour).

- `--name` on a new session still records its model and thinking level, so resuming keeps the level;
- a model that cannot be resolved is reported like every other start-up error (`Error: ...`, exit 1);
- reading an image with a model that takes none notes it in the result's details.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply

ONE_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _entries(env: Env) -> list[dict[str, Any]]:
    [path] = list(Path(env.agent_dir, "sessions").rglob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def _reasoning_model(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"][0]["reasoning"] = True
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_a_named_new_session_records_model_and_level_and_resumes_with_the_level(env: Env) -> None:
    _reasoning_model(env)
    env.server.queue(text_reply("first"))
    done = env.run("--name", "foo", *MODEL, "--thinking", "high", "-p", "hi")
    assert done.returncode == 0, done.stderr
    setup = [(e["type"], e.get("name") or e.get("modelId") or e.get("thinkingLevel")) for e in _entries(env)[:3]]
    assert setup == [("session_info", "foo"), ("model_change", "fake-model"), ("thinking_level_change", "high")]

    env.server.queue(text_reply("second"))
    resumed = env.run("-c", "--mode", "json", "again")
    assert resumed.returncode == 0, resumed.stderr
    events = [json.loads(line) for line in resumed.stdout.splitlines()]
    [reply] = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert reply["thinkingLevel"] == "high"
    assert [e["type"] for e in _entries(env)].count("thinking_level_change") == 1  # nothing to restore anew


def test_an_unknown_model_is_an_error_line_with_exit_1(env: Env) -> None:
    for args in (["--model", "nope/nada"], ["--model", "nada"], ["--provider", "nope", "--model", "nada"]):
        done = env.run("-p", *args, "hi")
        assert done.returncode == 1
        assert done.stderr.startswith("Error: "), done.stderr
    done = env.run("-p", "--model", "nope/nada", "hi")
    assert done.stderr == 'Error: Model "nope/nada" not found. Use --list-models to see available models.\n'
    assert env.server.requests == []


def test_reading_an_image_with_a_text_only_model_notes_the_model_in_the_details(env: Env) -> None:
    (env.cwd / "pixel.png").write_bytes(ONE_PIXEL_PNG)
    env.server.queue(tool_reply([("read", {"path": "pixel.png"})]), text_reply("seen"))
    done = env.run("--mode", "json", *MODEL, "look")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [end] = [e for e in events if e["type"] == "tool_execution_end"]
    assert end["result"]["details"] == {"imageUnsupportedByModel": "fake-model"}
    assert end["result"]["content"][0] == {"type": "text", "text": "Read image file [image/png]"}
    stored = next(
        e["message"] for e in _entries(env) if e["type"] == "message" and e["message"]["role"] == "toolResult"
    )
    assert stored["details"] == {"imageUnsupportedByModel": "fake-model"}


def test_reading_an_image_with_a_vision_model_leaves_the_details_unset(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"][0]["input"] = ["text", "image"]
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    (env.cwd / "pixel.png").write_bytes(ONE_PIXEL_PNG)
    env.server.queue(tool_reply([("read", {"path": "pixel.png"})]), text_reply("seen"))
    done = env.run("--mode", "json", *MODEL, "look")
    assert done.returncode == 0, done.stderr
    [end] = [json.loads(line) for line in done.stdout.splitlines() if '"tool_execution_end"' in line]
    assert not end["result"].get("details")
