"""`codemode` in real `pi -p` runs: the scripted model sends a script, the next request carries its result."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Installed
from tests.e2e.mcp_support import MODEL, fixture_entry, tool_names, write_mcp
from tests.support.http_server import RecordedRequest, ScriptedResponse
from tests.support.openai_chunks import text_reply, tool_reply

WALL_TIME = re.compile(r"^Wall time \d+\.\d seconds$", re.MULTILINE)


def tool_contents(request: RecordedRequest) -> list[Any]:
    return [m["content"] for m in request.json()["messages"] if m["role"] == "tool"]


def result_text(request: RecordedRequest) -> str:
    (content,) = tool_contents(request)[-1:]
    text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    assert WALL_TIME.search(text), text
    return WALL_TIME.sub("Wall time N seconds", text)


def codemode_call(code: str) -> ScriptedResponse:
    return tool_reply([("codemode", {"code": code})])


def test_a_script_calls_read_and_bash_and_the_next_request_carries_the_exact_result(installed: Installed) -> None:
    (installed.cwd / "notes.txt").write_text("hello notes\n")
    script = (
        'const r = await tools.read({path: "notes.txt"});\n'
        'const b = await tools.bash({command: "echo hi"});\n'
        "text(r.trim());\n"
        'console.log("exit", b.exit_code);\n'
        "return {out: b.output.trim()};"
    )
    installed.server.queue(codemode_call(script), text_reply("done"))
    done = installed.run("-p", *MODEL, "--tools", "+codemode", "read notes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    first, second = installed.server.requests
    assert "codemode" in tool_names(first)
    assert result_text(second) == (
        "Script completed\nWall time N seconds\nOutput:\n"
        "==> text 1/2 <==\nhello notes\n"
        '==> text 2/2 <==\n{\n  "out": "hi"\n}\n'
        "<console_output>\nexit 0\n</console_output>"
    )


def test_default_tools_setting_activates_codemode_and_failures_list_the_calls_made(installed: Installed) -> None:
    settings = installed.agent_dir / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "defaultTools": ["+codemode"]}))
    script = 'await tools.bash({command: "true"});\nthrow new RangeError("stop here")'
    installed.server.queue(codemode_call(script), text_reply("ok"))
    done = installed.run("-p", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    text = result_text(installed.server.requests[1])
    assert text.startswith("Script failed\nWall time N seconds\nOutput:\nScript error:\nRangeError: stop here\n")
    assert text.endswith("\n\nTool calls made before the failure (they are not undone): bash (ok)")


def test_a_timed_out_script_fails_and_leaves_no_worker(installed: Installed) -> None:
    script = '// @options: {"timeout_ms": 300}\nwhile (true) {}'
    installed.server.queue(codemode_call(script), text_reply("ok"))
    done = installed.run("-p", *MODEL, "--tools", "+codemode", "spin")
    assert done.returncode == 0, done.stderr
    text = result_text(installed.server.requests[1])
    assert "Script error:\nScript timed out: Execution timed out after 300 ms" in text
    assert _workers_of(installed.agent_dir) == []


def test_a_codemode_mcp_server_is_reached_from_a_script(installed: Installed) -> None:
    write_mcp(installed.agent_dir, {"srv": fixture_entry(description="Fixture tools")})
    script = (
        'const found = searchTools("echo");\n'
        "text(found.map(t => t.name));\n"
        'return await tools.mcp__srv__echo({text: "from a script"});'
    )
    installed.server.queue(codemode_call(script), text_reply("ok"))
    done = installed.run("-p", *MODEL, "echo something")
    assert done.returncode == 0, done.stderr
    first, second = installed.server.requests
    names = tool_names(first)
    assert "codemode" in names and "tool_search" not in names and "mcp__srv__echo" not in names
    text = result_text(second)
    assert text.startswith("Script completed\n"), text
    assert '"mcp__srv__echo"' in text and "echo: from a script" in text


def _workers_of(agent_dir: Path) -> list[str]:
    """Codemode worker processes started by the `pi` run that used `agent_dir` (they inherit its env)."""
    marker = f"PI_CODING_AGENT_DIR={agent_dir}".encode()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if b"pi.app.codemode.worker" in cmdline and marker in environ.split(b"\0"):
            found.append(proc.name)
    return found
