"""The examples in examples/extensions/, each loaded with `-e` into the real `pi` process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.extensions.cli_support import Rpc, run_pi
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply, tool_reply

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"

__all__ = ["env"]


def example(name: str) -> str:
    return str(EXAMPLES / name)


def tool_messages(env: Env, request: int = -1) -> list[dict[str, object]]:
    return [m for m in env.server.requests[request].json()["messages"] if m["role"] == "tool"]


def test_hello_tool_is_declared_and_answers(env: Env) -> None:
    env.server.queue(tool_reply([("hello", {"name": "Ada"})]), text_reply("Greeted."))
    done = env.run("-e", example("hello.py"), "-p", *MODEL, "greet Ada")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Greeted.\n"
    declared = [t["function"]["name"] for t in env.server.requests[0].json()["tools"]]
    assert "hello" in declared and "read" in declared
    assert tool_messages(env)[0]["content"] == "Hello, Ada!"


def test_permission_gate_asks_over_rpc_and_blocks(env: Env) -> None:
    (env.cwd / "build").mkdir()
    env.server.queue(tool_reply([("bash", {"command": "rm -rf build"})]), text_reply("ok, left it"))
    rpc = Rpc(env, "-e", example("permission_gate.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "clean up"})
        request = rpc.ui_request("select")
        assert request["title"] == "Allow dangerous command?\n\n  rm -rf build"
        assert request["options"] == ["Allow", "Block"] and "timeout" not in request
        rpc.send({"type": "extension_ui_response", "id": request["id"], "value": "Block"})
        notice = rpc.ui_request("notify")
        assert notice["message"] == "Command blocked by user" and notice["notifyType"] == "warning"
        end = rpc.read_until(lambda o: o.get("type") == "tool_execution_end")
        assert end["isError"] is True and end["result"]["content"][0]["text"] == "The user blocked this command"
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert (env.cwd / "build").is_dir()


def test_permission_gate_without_ui_blocks_dangerous_and_allows_safe(env: Env) -> None:
    (env.cwd / "build").mkdir()
    env.server.queue(
        tool_reply([("bash", {"command": "sudo rm -rf build"}), ("bash", {"command": "echo safe"})]),
        text_reply("done"),
    )
    done = env.run("-e", example("permission_gate.py"), "-p", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    results = tool_messages(env)
    assert "no user is there to confirm" in str(results[0]["content"])
    assert "safe" in str(results[1]["content"])
    assert (env.cwd / "build").is_dir()


def test_protected_paths_blocks_env_files(env: Env) -> None:
    env.server.queue(
        tool_reply([("write", {"path": ".env", "content": "SECRET=1"}), ("write", {"path": "ok.txt", "content": "x"})]),
        text_reply("done"),
    )
    done = env.run("-e", example("protected_paths.py"), "-p", *MODEL, "write things")
    assert done.returncode == 0, done.stderr
    assert not (env.cwd / ".env").exists() and (env.cwd / "ok.txt").read_text() == "x"
    assert ".env is protected" in str(tool_messages(env)[0]["content"])


def test_plan_mode_flag_limits_tools_and_adds_the_note(env: Env) -> None:
    env.server.queue(text_reply("1. do it"))
    done = env.run("-e", example("plan_mode.py"), "--plan", "-p", *MODEL, "refactor")
    assert done.returncode == 0, done.stderr
    body = env.server.requests[0].json()
    assert sorted(t["function"]["name"] for t in body["tools"]) == ["find", "grep", "ls", "read"]
    assert "Plan mode is on" in json.dumps(body["messages"])


def test_plan_mode_command_over_rpc(env: Env) -> None:
    env.server.queue(text_reply("planned"))
    rpc = Rpc(env, "-e", example("plan_mode.py"))
    try:
        rpc.send({"id": "c", "type": "get_commands"})
        commands = rpc.response("c")["data"]["commands"]
        plan = next(c for c in commands if c["name"] == "plan")
        assert plan["source"] == "extension" and plan["sourceInfo"]["path"] == example("plan_mode.py")
        assert plan["sourceInfo"]["scope"] == "temporary"
        rpc.send({"id": "t", "type": "prompt", "message": "/plan"})
        assert rpc.response("t")["data"] == {"disposition": "handled"}
        status = rpc.wait_for(lambda o: o.get("method") == "setStatus")
        assert status == {**status, "statusKey": "plan-mode", "statusText": "plan"}
        rpc.send({"id": "p", "type": "prompt", "message": "look around"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    tools = sorted(t["function"]["name"] for t in env.server.requests[0].json()["tools"])
    assert tools == ["find", "grep", "ls", "read"]


def test_todo_state_follows_the_branch(env: Env) -> None:
    env.server.queue(
        tool_reply([("todo", {"action": "add", "text": "first"})]),
        text_reply("added first"),
        tool_reply([("todo", {"action": "add", "text": "second"})]),
        text_reply("added second"),
        tool_reply([("todo", {"action": "list"})]),
        text_reply("listed"),
    )
    rpc = Rpc(env, "-e", example("todo.py"))
    try:
        for index, message in enumerate(("add first", "add second")):
            rpc.send({"id": f"p{index}", "type": "prompt", "message": message})
            rpc.response(f"p{index}")
            rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "fm", "type": "get_fork_messages"})
        second = rpc.response("fm")["data"]["messages"][1]
        rpc.send({"id": "f", "type": "fork", "entryId": second["entryId"]})
        assert rpc.response("f")["success"] is True
        rpc.send({"id": "p2", "type": "prompt", "message": "list them"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert tool_messages(env)[-1]["content"] == "1. [ ] first"


def test_custom_provider_serves_the_model(env: Env) -> None:
    env.server.queue(text_reply("from the local provider"))
    done = run_pi(
        env,
        "-e",
        example("custom_provider.py"),
        "--provider",
        "local-llm",
        "--model",
        "local-model",
        "-p",
        "hi",
        extra_env={"LOCAL_LLM_URL": f"{env.server.url}/v1", "LOCAL_LLM_KEY": "sekrit"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "from the local provider\n"
    assert env.server.requests[0].json()["model"] == "local-model"
    assert env.server.requests[0].headers["authorization"] == "Bearer sekrit"


def test_tool_override_replaces_read(env: Env) -> None:
    (env.cwd / "notes.txt").write_text("inside\n")
    env.server.queue(
        tool_reply([("read", {"path": "notes.txt"}), ("read", {"path": "../agent/models.json"})]),
        text_reply("read"),
    )
    done = env.run("-e", example("tool_override.py"), "-p", *MODEL, "read it")
    assert done.returncode == 0, done.stderr
    inside, outside = tool_messages(env)
    assert "inside" in str(inside["content"]) and "[read by the project-only reader]" in str(inside["content"])
    assert "is outside the project" in str(outside["content"])
    names = [t["function"]["name"] for t in env.server.requests[0].json()["tools"]]
    assert names.count("read") == 1


def test_input_transform_rewrites_and_handles(env: Env) -> None:
    env.server.queue(text_reply("4"))
    done = env.run("-e", example("input_transform.py"), "-p", *MODEL, "?q what is 2+2")
    assert done.returncode == 0, done.stderr
    users = [m for m in env.server.requests[0].json()["messages"] if m["role"] == "user"]
    assert "Respond briefly: what is 2+2" in json.dumps(users)
    handled = env.run("-e", example("input_transform.py"), "-p", *MODEL, "ping")
    assert handled.returncode == 0, handled.stderr
    assert len(env.server.requests) == 1


def test_session_name_from_first_prompt_and_command(env: Env) -> None:
    env.server.queue(text_reply("hi"))
    rpc = Rpc(env, "-e", example("session_name.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "Fix the login bug\nmore detail"})
        rpc.read_until(lambda o: o.get("type") == "session_info_changed")
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "s", "type": "get_state"})
        assert rpc.response("s")["data"]["sessionName"] == "Fix the login bug"
        rpc.send({"id": "n", "type": "prompt", "message": "/name Login work"})
        assert rpc.response("n")["data"] == {"disposition": "handled"}
        rpc.send({"id": "s2", "type": "get_state"})
        assert rpc.response("s2")["data"]["sessionName"] == "Login work"
    finally:
        assert rpc.close() == 0


def test_question_is_answered_over_rpc(env: Env) -> None:
    env.server.queue(
        tool_reply([("question", {"question": "Which colour?", "options": ["Red", "Blue"]})]), text_reply("Blue it is")
    )
    rpc = Rpc(env, "-e", example("question.py"))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "pick"})
        request = rpc.ui_request("select")
        assert request["title"] == "Which colour?" and request["options"] == ["Red", "Blue"]
        rpc.send({"type": "extension_ui_response", "id": "unknown-id", "value": "Red"})
        rpc.send({"type": "extension_ui_response", "id": request["id"], "value": "Blue"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert tool_messages(env)[0]["content"] == "The user chose: Blue"


def test_confirm_destructive_asks_before_a_new_session(env: Env) -> None:
    rpc = Rpc(env, "-e", example("confirm_destructive.py"))
    try:
        rpc.send({"id": "n1", "type": "new_session"})
        ask = rpc.ui_request("confirm")
        assert ask["title"] == "Start a new session?"
        rpc.send({"type": "extension_ui_response", "id": ask["id"], "confirmed": False})
        assert rpc.response("n1")["data"] == {"cancelled": True}
        rpc.send({"id": "n2", "type": "new_session"})
        ask = rpc.ui_request("confirm")
        rpc.send({"type": "extension_ui_response", "id": ask["id"], "confirmed": True})
        assert rpc.response("n2")["data"] == {"cancelled": False}
    finally:
        assert rpc.close() == 0


def test_dynamic_tools_are_offered_from_the_next_request(env: Env) -> None:
    env.server.queue(tool_reply([("shout", {"text": "hi"})]), text_reply("done"))
    rpc = Rpc(env, "-e", example("dynamic_tools.py"))
    try:
        rpc.send({"id": "a", "type": "prompt", "message": "/echo-tool shout"})
        assert rpc.response("a")["data"] == {"disposition": "handled"}
        rpc.send({"id": "p", "type": "prompt", "message": "use it"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert "shout" in [t["function"]["name"] for t in env.server.requests[0].json()["tools"]]
    assert tool_messages(env)[0]["content"] == "shout: hi"


def test_custom_compaction_writes_the_summary_itself(env: Env) -> None:
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "compaction": {"keepRecentTokens": 10}}))
    env.server.queue(text_reply("one " * 50), text_reply("two " * 50), text_reply("three " * 50))
    rpc = Rpc(env, "-e", example("custom_compaction.py"))
    try:
        for index, prompt in enumerate(("Plan the database schema", "Write the migration", "Add tests")):
            rpc.send({"id": f"p{index}", "type": "prompt", "message": prompt})
            rpc.read_until(lambda o: o.get("type") == "agent_settled")
        rpc.send({"id": "c", "type": "compact"})
        compacted = rpc.response("c")
    finally:
        assert rpc.close() == 0
    assert compacted["success"] is True, compacted["error"]
    summary = compacted["data"]["summary"]
    assert summary.startswith("Summary of the earlier conversation (prompts only):")
    assert "- Plan the database schema" in summary
    assert len(env.server.requests) == 3  # no summary request reached the model


def test_subagent_runs_a_child_pi(env: Env) -> None:
    env.server.queue(
        tool_reply([("subagent", {"task": "count the files"})]),
        text_reply("There are 3 files."),
        text_reply("The helper says: 3 files."),
    )
    done = env.run("-e", example("subagent.py"), "-p", *MODEL, "delegate")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The helper says: 3 files.\n"
    assert tool_messages(env)[0]["content"] == "There are 3 files."
    child = env.server.requests[1].json()
    assert "count the files" in json.dumps(child["messages"]) and "delegate" not in json.dumps(child["messages"])
