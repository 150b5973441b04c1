"""The `pi` process end to end on the points where pi 1.6.0 fails and we must not (delta-1.6 issue list).

Each test drives the real program against the loopback server: a stream cut before its finish
frame is retried, SIGINT leaves no command behind in any mode, the edit engine's safe fuzzy
matches, tool errors that name the next step, and the HTML export of a pi 1.6.0 session.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ai.providers.test_openai_responses import _frames as responses_frames
from tests.ai.providers.test_openai_responses import created as responses_created
from tests.ai.providers.test_openai_responses import finished as responses_finished
from tests.ai.providers.test_openai_responses import text_item as responses_text
from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import ScriptedResponse, named_sse
from tests.support.openai_chunks import text_reply, tool_reply

FIXTURES = Path(__file__).parent.parent / "session" / "fixtures" / "ts16"


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting to be reaped has already ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: Callable[[], object], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


# --- a stream that ends without its finish frame is a transient failure -----------------------------


def test_a_chat_completions_stream_cut_before_finish_reason_is_retried(env: Env) -> None:
    cut = text_reply("half an ans")
    cut.chunks = cut.chunks[:-3]  # no finish_reason frame, no usage, no [DONE]
    env.server.queue(cut, text_reply("the whole answer"))
    done = env.run("-p", *MODEL, "question")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "the whole answer\n"
    assert len(env.server.requests) == 2


def _anthropic_provider(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["claude-local"] = {
        "baseUrl": env.server.url,
        "api": "anthropic-messages",
        "apiKey": "anthropic-test-key",
        "models": [{"id": "claude-local-1", "contextWindow": 200000, "maxTokens": 8192}],
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def _anthropic_text(text: str, *, finished: bool) -> ScriptedResponse:
    message: dict[str, Any] = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-local-1",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }
    frames: list[tuple[str, Any]] = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ]
    if finished:
        frames += [
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}},
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    return ScriptedResponse(chunks=named_sse(*frames))


def test_an_anthropic_stream_cut_before_message_stop_is_retried(env: Env) -> None:
    _anthropic_provider(env)
    env.server.queue(_anthropic_text("partial", finished=False), _anthropic_text("complete reply", finished=True))
    done = env.run("-p", "--provider", "claude-local", "--model", "claude-local-1", "question")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "complete reply\n"
    assert len(env.server.requests) == 2


def test_a_responses_stream_cut_before_response_completed_is_retried(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["responses-local"] = {
        "baseUrl": f"{env.server.url}/v1",
        "api": "openai-responses",
        "apiKey": "responses-test-key",
        "models": [{"id": "resp-model", "contextWindow": 100000, "maxTokens": 4096}],
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    cut = ScriptedResponse(chunks=responses_frames(responses_created(), *responses_text("msg_1", ["half"])))
    whole = ScriptedResponse(
        chunks=responses_frames(responses_created(), *responses_text("msg_2", ["all of it"]), responses_finished())
    )
    env.server.queue(cut, whole)
    done = env.run("-p", "--provider", "responses-local", "--model", "resp-model", "question")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "all of it\n"
    assert len(env.server.requests) == 2


# --- SIGINT in every mode leaves no command behind --------------------------------------------------

SLOW_COMMAND = "sleep 60 & echo $! > sleep.pid; wait"


@pytest.mark.parametrize("mode", ["print", "json", "rpc"])
def test_sigint_during_a_command_ends_pi_and_every_process_it_started(env: Env, mode: str) -> None:
    env.server.queue(tool_reply([("bash", {"command": SLOW_COMMAND})]), text_reply("never reached"))
    args = {
        "print": ["-p", *MODEL, "run it"],
        "json": ["--mode", "json", *MODEL, "run it"],
        "rpc": ["--mode", "rpc", *MODEL],
    }
    proc = subprocess.Popen(
        [*PI, *args[mode]],
        cwd=env.cwd,
        env=env.vars,
        stdin=subprocess.PIPE if mode == "rpc" else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if mode == "rpc":
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"type": "prompt", "id": "1", "message": "run it"}) + "\n")
        proc.stdin.flush()
    pid_file = env.cwd / "sleep.pid"
    try:
        _wait_for(lambda: pid_file.is_file() and pid_file.read_text().strip(), "the command to start")
        child = int(pid_file.read_text().strip())
        assert _alive(child)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    _wait_for(lambda: not _alive(child), "the command's child to end", timeout=10)


# --- the edit engine beyond pi, never applying a wrong edit -----------------------------------------


def _edit_turn(env: Env, arguments: dict[str, Any]) -> str:
    """Run one `edit` call through `pi -p` and return the tool result text the model got back."""
    env.server.queue(tool_reply([("edit", arguments)]), text_reply("edited"))
    done = env.run("-p", *MODEL, "edit it")
    assert done.returncode == 0, done.stderr
    result = env.server.requests[-1].json()["messages"][-1]
    assert result["role"] == "tool"
    content = result["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def test_an_edit_with_spaces_for_the_files_tabs_is_applied_reindented(env: Env) -> None:
    target = env.cwd / "m.py"
    target.write_text("def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n")
    text = _edit_turn(
        env,
        {
            "path": "m.py",
            "edits": [{"oldText": "    if x:\n        return 1", "newText": "    if x:\n        return 10"}],
        },
    )
    assert text.startswith("Successfully replaced"), text
    assert target.read_text() == "def f(x):\n\tif x:\n\t\treturn 10\n\treturn 2\n"


def test_escaped_newlines_and_a_single_edits_object_are_understood(env: Env) -> None:
    target = env.cwd / "notes.txt"
    target.write_text("alpha\nbeta\ngamma\n")
    text = _edit_turn(env, {"path": "notes.txt", "edits": {"oldText": "alpha\\nbeta", "newText": "alpha\nBETA"}})
    assert text.startswith("Successfully replaced"), text
    assert target.read_text() == "alpha\nBETA\ngamma\n"


def test_two_places_matching_apart_from_indentation_are_refused_with_the_file_unchanged(env: Env) -> None:
    target = env.cwd / "twice.py"
    original = "class A:\n    def run(self):\n        go()\n\n\ndef run(self):\n    go()\n"
    target.write_text(original)
    edit = {"oldText": "  def run(self):\n      go()", "newText": "  def run(self):\n      stop()"}
    text = _edit_turn(env, {"path": "twice.py", "edits": [edit]})
    assert target.read_text() == original
    assert text.startswith(
        "Found 2 places in twice.py that match the text apart from indentation (starting at lines 2, 6)."
    ), text


# --- every tool error names the next step -----------------------------------------------------------


def test_editing_a_missing_file_suggests_write_or_checking_the_path(env: Env) -> None:
    text = _edit_turn(env, {"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]})
    assert "nope.txt" in text
    assert "ls" in text and "write" in text, text
    assert not (env.cwd / "nope.txt").exists()


def test_an_edit_that_matches_nothing_points_at_the_closest_text(env: Env) -> None:
    target = env.cwd / "f.txt"
    target.write_text("first line\nsecond line here\nthird\n")
    text = _edit_turn(env, {"path": "f.txt", "edits": [{"oldText": "second line there", "newText": "x"}]})
    assert "second line here" in text, text
    assert target.read_text() == "first line\nsecond line here\nthird\n"


# --- HTML export ------------------------------------------------------------------------------------


def test_export_renders_markdown_the_system_prompt_tools_and_a_search_box(env: Env, tmp_path: Path) -> None:
    env.server.queue(text_reply("## Done\n\n- **one** thing\n- [bad](javascript:alert(1)) link"))
    assert env.run("-p", *MODEL, "summarise").returncode == 0
    (session,) = sorted((env.agent_dir / "sessions").rglob("*.jsonl"))
    out = tmp_path / "ours.html"
    done = env.run("--export", str(session), str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert "<h2>Done</h2>" in page and "<strong>one</strong>" in page
    assert 'href="javascript' not in page.lower()
    assert "System prompt and tools" in page and "You are a coding assistant running inside pi" in page
    assert all(f">{name}<" in page for name in ("read", "bash", "edit", "write")), "the declared tools are listed"
    assert 'id="search"' in page


@pytest.mark.parametrize("fixture", ["ts16_simple.jsonl", "ts16_bash_tool.jsonl", "ts16_rpc_compaction.jsonl"])
def test_export_of_a_session_written_by_pi_1_6_has_no_unknown_role_placeholders(
    env: Env, tmp_path: Path, fixture: str
) -> None:
    source = tmp_path / fixture
    source.write_bytes((FIXTURES / fixture).read_bytes())
    out = tmp_path / "theirs.html"
    done = env.run("--export", str(source), str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert "unknown role" not in page.lower()
    assert "System prompt and tools" in page
    assert 'id="search"' in page


# --- the model catalog is pi 1.6.0's -----------------------------------------------------------------


def _with_keys(env: Env) -> dict[str, str]:
    return {**env.vars, "ANTHROPIC_API_KEY": "test-anthropic", "OPENAI_API_KEY": "test-openai"}


def test_list_models_knows_claude_sonnet_5_with_its_limits(env: Env) -> None:
    done = subprocess.run(
        [*PI, "--offline", "--list-models", "claude-sonnet-5"],
        cwd=env.cwd,
        env=_with_keys(env),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert ["anthropic", "claude-sonnet-5", "1M", "128K", "yes", "yes"] in rows


def test_thinking_max_is_accepted_and_offered_for_gpt_6_2_sol(env: Env) -> None:
    commands = [
        {"id": "1", "type": "get_available_thinking_levels"},
        {"id": "2", "type": "set_thinking_level", "level": "max"},
        {"id": "3", "type": "get_state"},
    ]
    done = subprocess.run(
        [*PI, "--offline", "--mode", "rpc", "--provider", "openai", "--model", "gpt-6.2-sol", "--thinking", "max"],
        cwd=env.cwd,
        env=_with_keys(env),
        input="".join(json.dumps(c) + "\n" for c in commands),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Invalid thinking level" not in done.stderr
    responses = {r["id"]: r for r in map(json.loads, done.stdout.splitlines()) if r.get("type") == "response"}
    assert responses["1"]["data"] == {"levels": ["low", "medium", "high", "xhigh", "max"]}
    assert responses["2"]["success"] is True
    assert responses["3"]["data"]["thinkingLevel"] == "max"


# --- every JSON field on the wire is camelCase ---------------------------------------------------------


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [k for key, item in value.items() for k in [key, *_keys(item)]]
    if isinstance(value, list):
        return [k for item in value for k in _keys(item)]
    return []


def test_json_mode_edit_and_write_events_use_camel_case_keys_only(env: Env) -> None:
    (env.cwd / "a.txt").write_text("one\ntwo\n")
    env.server.queue(
        tool_reply([("edit", {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]})]),
        tool_reply([("write", {"path": "b.txt", "content": "new\n"}), ("read", {"path": "a.txt"})]),
        text_reply("done"),
    )
    done = env.run("--mode", "json", *MODEL, "edit then write")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted({k for event in events for k in _keys(event) if "_" in k}) == []
    edit_end = next(e for e in events if e["type"] == "tool_execution_end" and e["toolName"] == "edit")
    assert edit_end["result"]["details"]["firstChangedLine"] == 2
    assert isinstance(edit_end["durationMs"], (int, float))
