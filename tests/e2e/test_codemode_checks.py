"""extensions.md §7 checks 43–48 (codemode) against the real `pi` process and the loopback model.

The scripted model sends one `codemode` call per turn; what the script produced is read back from
the next request, where the tool result goes to the model, and (for `isError`) from the JSON events.
"""

from __future__ import annotations

import json
from typing import Any

from tests.app.extensions.cli_support import Rpc, write_extension
from tests.e2e.test_codemode import codemode_call, result_text, tool_contents
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply

__all__ = ["env"]

CODEMODE = ["--tools", "read,bash,codemode"]


def _run_script(env: Env, code: str, *args: str, ran: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """Run one script through `pi --mode json`: (the result text the model got, the JSON events).

    A script that ran has the `Wall time` header (normalised to `N`); one refused before running
    (`ran=False`) is only the reason."""
    env.server.queue(codemode_call(code), text_reply("ok"))
    done = env.run("--mode", "json", *MODEL, *CODEMODE, *args, "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if ran:
        return result_text(env.server.requests[-1]), events
    content = tool_contents(env.server.requests[-1])[-1]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content), events


def _codemode_end(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e.get("type") == "tool_execution_end" and e.get("toolName") == "codemode")


def test_43_a_returned_value_is_the_output(env: Env) -> None:
    text, events = _run_script(env, "return 1+1")
    assert text == "Script completed\nWall time N seconds\nOutput:\n2"
    assert _codemode_end(events)["isError"] is False


def test_44_text_items_are_numbered_and_console_lines_follow_in_one_block(env: Env) -> None:
    text, _ = _run_script(env, 'text("a"); text("b"); console.log("c")')
    assert text == (
        "Script completed\nWall time N seconds\nOutput:\n"
        "==> text 1/2 <==\na\n==> text 2/2 <==\nb\n<console_output>\nc\n</console_output>"
    )


def test_45_a_misplaced_options_line_fails_before_running_and_a_timeout_ends_the_script(env: Env) -> None:
    text, events = _run_script(env, 'text("ran");\n// @options: {"timeout_ms": 200}', ran=False)
    assert text == "The // @options: line must be the first line of the script (found on line 2)"
    assert _codemode_end(events)["isError"] is True
    text, _ = _run_script(env, '// @options: {"timeout_ms": 200}\nwhile(true){}')
    assert text.startswith("Script failed\n")
    assert "Script timed out: Execution timed out after 200 ms" in text


GATE = """
def setup(pi):
    @pi.on("tool_call")
    def gate(event, ctx):
        if event.tool_name == "read":
            return {"block": True, "reason": "reading is not allowed here"}
"""


def test_46_settled_promises_and_a_gate_blocking_a_nested_call(env: Env) -> None:
    (env.cwd / "a").write_text("alpha\n")
    code = (
        'const r = await Promise.allSettled([tools.read({path:"a"}), tools.read({path:"missing"})]);\n'
        "return r.map(x=>x.status)"
    )
    text, _ = _run_script(env, code)
    assert text.endswith('Output:\n[\n  "fulfilled",\n  "rejected"\n]'), text
    gate = write_extension(env.agent_dir.parent, "gate.py", GATE)
    code = 'try { await tools.read({path:"a"}); return "read" } catch (e) { return "rejected: " + e.message }'
    text, _ = _run_script(env, code, "-e", str(gate))
    assert "rejected: " in text and "reading is not allowed here" in text, text


def test_47_store_values_live_on_the_branch(env: Env) -> None:
    env.server.queue(
        codemode_call('store("k", 1); return "stored"'),
        text_reply("one"),
        codemode_call('return load("k")'),
        text_reply("two"),
        codemode_call('return String(load("k"))'),
        text_reply("three"),
    )
    rpc = Rpc(env, *CODEMODE)
    try:
        for number, message in enumerate(["first", "second"]):
            rpc.send({"id": f"p{number}", "type": "prompt", "message": message})
            rpc.read_until(lambda o: o.get("type") == "agent_end")
        assert result_text(env.server.requests[3]).endswith("Output:\n1")
        rpc.send({"id": "forks", "type": "get_fork_messages"})
        first = rpc.response("forks")["data"]["messages"][0]
        rpc.send({"id": "fork", "type": "fork", "entryId": first["entryId"]})
        assert rpc.response("fork")["success"] is True
        rpc.send({"id": "p2", "type": "prompt", "message": "third"})
        rpc.read_until(lambda o: o.get("type") == "agent_end")
    finally:
        rpc.close()
    assert result_text(env.server.requests[5]).endswith("Output:\nundefined")


def test_48_an_unsettleable_promise_memory_and_the_output_budget(env: Env) -> None:
    text, _ = _run_script(env, "await new Promise(() => {})")
    assert text.startswith("Script failed\n") and "nothing can settle" in text, text
    text, _ = _run_script(env, "let a = []; while (true) a.push(new Array(1e6).fill(1.5))")
    assert "InternalError: out of memory" in text
    code = '// @options: {"max_output_tokens": 10}\ntext("x".repeat(400))'
    text, _ = _run_script(env, code)
    assert "Warning: truncated output (original token count: 100)" in text
    assert "[Full output: " in text
