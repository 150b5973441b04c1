"""Acceptance checks of extensions (extension spec §7), each through the real `pi` process.

Extensions are written into the test's directories; they report what they saw as JSON lines in a
log file the test reads back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.extensions.cli_support import Rpc, write_extension
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply, tool_reply

__all__ = ["env"]

LOGGER = """
import json
from pathlib import Path

def log(*values):
    with open({path!r}, "a", encoding="utf-8") as out:
        out.write(json.dumps(values if len(values) != 1 else values[0]) + "\\n")
"""


def extension(env: Env, name: str, body: str, directory: Path | None = None) -> Path:
    """Write an extension whose code can call `log(...)`; returns its path."""
    where = directory or env.cwd.parent / "ext"
    header = LOGGER.format(path=str(env.cwd.parent / "log.jsonl"))
    import textwrap

    return write_extension(where, name, header + textwrap.dedent(body))


def logged(env: Env) -> list[Any]:
    path = env.cwd.parent / "log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def tool_messages(env: Env, request: int = -1) -> list[dict[str, Any]]:
    return [m for m in env.server.requests[request].json()["messages"] if m["role"] == "tool"]


def json_events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()[1:]]


STARTS = """
def setup(pi):
    pi.on("session_start", lambda event, ctx: log({name!r}))
"""


def test_01_load_order(env: Env) -> None:
    agent, project = env.agent_dir, env.cwd
    cli = extension(env, "cli.py", STARTS.format(name="cli"))
    extension(env, "x.py", STARTS.format(name="x"), project / ".pi")
    extension(env, "p.py", STARTS.format(name="p"), project / ".pi" / "extensions")
    extension(env, "us.py", STARTS.format(name="user-setting"), agent / "mine")
    user_ext = agent / "extensions"
    extension(env, "u.py", STARTS.format(name="u"), user_ext)
    extension(env, "_helper.py", STARTS.format(name="helper"), user_ext)
    extension(env, "__init__.py", STARTS.format(name="pkgdir"), user_ext / "pkgdir")
    extension(env, "m.py", STARTS.format(name="mdir"), user_ext / "mdir" / "src")
    (user_ext / "mdir" / "pi.toml").write_text('extensions = ["src/m.py"]\n')
    (project / ".pi" / "settings.json").write_text(json.dumps({"extensions": ["./x.py"]}))
    settings = json.loads((agent / "settings.json").read_text())
    (agent / "settings.json").write_text(json.dumps({**settings, "extensions": ["mine/us.py"]}))
    env.server.queue(text_reply("ok"))
    done = env.run("-e", str(cli), "--approve", "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert logged(env) == ["cli", "x", "p", "user-setting", "mdir", "pkgdir", "u"]


def test_02_async_setup_registers_a_provider_before_session_start(env: Env) -> None:
    path = extension(
        env,
        "slow.py",
        """
        import asyncio

        async def setup(pi):
            await asyncio.sleep(0.2)
            log("registered")
            pi.register_provider("slowprov", {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                              "apiKey": "k", "models": [{"id": "slow-model"}]})
            pi.on("session_start", lambda event, ctx: log("start"))
        """,
    )
    listed = env.run("-e", str(path), "--list-models")
    assert listed.returncode == 0, listed.stderr
    assert any(line.split()[:2] == ["slowprov", "slow-model"] for line in listed.stdout.splitlines())
    env.server.queue(text_reply("ok"))
    assert env.run("-e", str(path), "-p", *MODEL, "hi").returncode == 0
    assert logged(env)[-2:] == ["registered", "start"]


def test_03_failing_setup_stops_pi_with_the_hint(env: Env) -> None:
    path = extension(env, "boom.py", 'def setup(pi):\n    raise ValueError("boom")\n')
    done = env.run("-e", str(path), "-p", *MODEL, "hi")
    assert done.returncode == 1
    assert f'Error: Failed to load extension "{path}": Failed to load extension: boom' in done.stderr
    assert 'Hint: Start without extensions using "pi -ne".' in done.stderr
    assert env.server.requests == []
    (env.agent_dir / "extensions").mkdir()
    (env.agent_dir / "extensions" / "boom.py").write_text(path.read_text())
    env.server.queue(text_reply("fine"))
    skipped = env.run("-ne", "-p", *MODEL, "hi")
    assert skipped.returncode == 0, skipped.stderr
    assert skipped.stdout == "fine\n"


def test_04_actions_raise_during_setup(env: Env) -> None:
    path = extension(
        env,
        "early.py",
        """
        def setup(pi):
            try:
                pi.get_active_tools()
            except Exception as error:
                log(str(error))
        """,
    )
    env.server.queue(text_reply("ok"))
    assert env.run("-e", str(path), "-p", *MODEL, "hi").returncode == 0
    assert logged(env) == [
        "Extension runtime not initialized. Action methods cannot be called during extension loading."
    ]


TOOL_T = """
def setup(pi):
    pi.register_tool({"name": "t", "description": "t", "parameters": {"type": "object", "properties": {}},
                      "execute": lambda *args: {"content": [], "details": None}})
"""
REVIEW = """
def setup(pi):
    pi.register_command("review", lambda args, ctx: None, description={name!r})
"""


def test_05_tool_conflicts_fail_and_commands_get_numbers(env: Env) -> None:
    first = extension(env, "a.py", TOOL_T)
    second = extension(env, "b.py", TOOL_T)
    done = env.run("-e", str(first), "-e", str(second), "-p", *MODEL, "hi")
    assert done.returncode == 1
    assert f'Error: Failed to load extension "{second}": Tool "t" conflicts with {first}' in done.stderr
    one = extension(env, "r1.py", REVIEW.format(name="one"))
    two = extension(env, "r2.py", REVIEW.format(name="two"))
    rpc = Rpc(env, "-e", str(one), "-e", str(two))
    try:
        rpc.send({"id": "c", "type": "get_commands"})
        commands = rpc.response("c")["data"]["commands"]
    finally:
        assert rpc.close() == 0
    reviews = [(c["name"], c["description"]) for c in commands if c["name"].startswith("review")]
    assert reviews == [("review:1", "one"), ("review:2", "two")]


def test_06_07_08_tool_call_gate_edits_and_fails_closed(env: Env) -> None:
    path = extension(
        env,
        "gate.py",
        """
        def setup(pi):
            @pi.on("tool_call")
            def first(event, ctx):
                command = event.input.get("command", "")
                if command.startswith("rm"):
                    return {"block": True}
                if command == "explode":
                    raise RuntimeError("gate down")
                if command == "echo original":
                    event.input["command"] = "echo edited"

            @pi.on("tool_call")
            def second(event, ctx):
                log(["saw", event.input.get("command")])

            pi.on("tool_result", lambda event, ctx: log(["result", event.tool_call_id]))
        """,
    )
    (env.cwd / "x").mkdir()
    env.server.queue(
        tool_reply([("bash", {"command": "rm -rf x"}), ("bash", {"command": "echo original"})]),
        tool_reply([("bash", {"command": "explode"})]),
        text_reply("done"),
    )
    done = env.run("-e", str(path), "--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    assert (env.cwd / "x").is_dir()
    ends = [e for e in json_events(done.stdout) if e["type"] == "tool_execution_end"]
    assert ends[0]["isError"] is True and ends[0]["result"]["content"][0]["text"] == "Tool execution was blocked"
    assert ends[1]["result"]["content"][0]["text"].strip() == "edited"
    assert ends[2]["isError"] is True and "gate down" in ends[2]["result"]["content"][0]["text"]
    assert ["saw", "echo edited"] in logged(env)
    results = [entry[1] for entry in logged(env) if entry[0] == "result"]
    assert results == ["call_1_bash"]


def test_09_tool_result_patches_chain(env: Env) -> None:
    path = extension(
        env,
        "results.py",
        """
        def setup(pi):
            pi.on("tool_result", lambda event, ctx: {"content": [{"type": "text", "text": "from A"}]})
            pi.on("tool_result", lambda event, ctx: {"content": [{"type": "txt", "text": "bad"}], "isError": True})
            pi.on("tool_result", lambda event, ctx: log(event.content[0].text))  # a block, not A's dict
        """,
    )
    env.server.queue(tool_reply([("bash", {"command": "echo raw"})]), text_reply("done"))
    done = env.run("-e", str(path), "-p", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    assert logged(env) == ["from A"]
    assert tool_messages(env)[0]["content"] == "from A"  # the malformed patch was left out, whole
    assert "tool_result" in done.stderr and "block 0" in done.stderr and "'txt'" in done.stderr


INPUT = """
def setup(pi):
    @pi.on("input")
    def a(event, ctx):
        if event.text.startswith("?q "):
            return {"action": "transform", "text": "Respond briefly: " + event.text[3:]}

    @pi.on("input")
    def b(event, ctx):
        log([event.text, event.source])

    @pi.on("input")
    def c(event, ctx):
        if event.text == "stop":
            return {"action": "handled"}
"""


def test_10_input_chain(env: Env) -> None:
    path = extension(env, "input.py", INPUT)
    env.server.queue(text_reply("x"), text_reply("y"))
    assert env.run("-e", str(path), "-p", *MODEL, "?q x").returncode == 0
    assert "Respond briefly: x" in json.dumps(env.server.requests[0].json()["messages"])
    assert env.run("-e", str(path), "-p", *MODEL, "stop").returncode == 0
    assert len(env.server.requests) == 1
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "hello"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert logged(env)[0][0] == "Respond briefly: x" and logged(env)[-1] == ["hello", "rpc"]


def test_11_12_before_agent_start_and_context(env: Env) -> None:
    path = extension(
        env,
        "start.py",
        """
        def setup(pi):
            pi.on("before_agent_start", lambda event, ctx: {
                "message": {"customType": "m", "content": "ctx", "display": False}, "systemPrompt": "S"})
            pi.on("context", lambda event, ctx: {"messages": event.messages[-1:]})
        """,
    )
    env.server.queue(text_reply("ok"))
    done = env.run("-e", str(path), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    messages = env.server.requests[0].json()["messages"]
    assert messages[0]["role"] in ("system", "developer") and messages[0]["content"] == "S"
    assert "ctx" in json.dumps(messages[1:])
    session_file = next((env.agent_dir / "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert any(e.get("type") == "custom_message" and e.get("customType") == "m" for e in entries)


def test_13_session_before_switch_cancels_new_session(env: Env) -> None:
    path = extension(
        env, "switch.py", 'def setup(pi):\n    pi.on("session_before_switch", lambda e, c: {"cancel": True})\n'
    )
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "n", "type": "new_session"})
        assert rpc.response("n")["data"] == {"cancelled": True}
    finally:
        assert rpc.close() == 0


UI = """
def setup(pi):
    async def ui(args, ctx):
        choice = await ctx.ui.select("Pick", ["a", "b"])
        confirmed = await ctx.ui.confirm("Sure?", "Really", timeout_ms=100)
        ctx.ui.notify("x")
        ctx.ui.set_status("k", None)
        log([choice, confirmed, ctx.ui.set_theme("dark"), ctx.mode, ctx.has_ui])

    pi.register_command("ui", ui)
"""


def test_14_rpc_ui_wire_shapes(env: Env) -> None:
    path = extension(env, "ui.py", UI)
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "u", "type": "prompt", "message": "/ui"})
        select = rpc.ui_request("select")
        assert set(select) == {"type", "id", "method", "title", "options"}
        rpc.send({"type": "extension_ui_response", "id": select["id"], "value": "b"})
        confirm = rpc.ui_request("confirm")
        assert confirm["timeout"] == 100 and confirm["message"] == "Really"
        notify = rpc.ui_request("notify")
        assert "notifyType" not in notify and notify["message"] == "x"
        status = rpc.ui_request("setStatus")
        assert status["statusKey"] == "k" and "statusText" not in status
        assert rpc.response("u")["data"] == {"disposition": "handled"}
    finally:
        assert rpc.close() == 0
    assert logged(env) == [
        ["b", False, {"success": False, "error": "Theme switching not supported in RPC mode"}, "rpc", True]
    ]


def test_15_print_mode_ui_degrades(env: Env) -> None:
    path = extension(
        env,
        "print.py",
        """
        def setup(pi):
            @pi.on("session_start")
            async def start(event, ctx):
                ctx.shutdown()
                log([ctx.has_ui, ctx.mode, await ctx.ui.confirm("a", "b"), await ctx.ui.select("a", ["x"])])
        """,
    )
    env.server.queue(text_reply("still here"))
    done = env.run("-e", str(path), "-p", *MODEL, "hi")
    assert done.returncode == 0 and done.stdout == "still here\n"
    assert logged(env) == [[False, "print", False, None]]


RAISES = """
def setup(pi):
    @pi.on("session_start")
    def broken(event, ctx):
        raise RuntimeError("start failed")

    pi.on("session_start", lambda event, ctx: log("second ran"))
"""


def test_16_errors_are_isolated(env: Env) -> None:
    path = extension(env, "raises.py", RAISES)
    rpc = Rpc(env, "-e", str(path))
    try:
        error = rpc.read_until(lambda o: o.get("type") == "extension_error")
    finally:
        assert rpc.close() == 0
    assert error == {
        "type": "extension_error",
        "extensionPath": str(path),
        "event": "session_start",
        "error": "start failed",
    }
    env.server.queue(text_reply("fine"))
    done = env.run("-e", str(path), "-p", *MODEL, "hi")
    assert done.returncode == 0 and done.stdout == "fine\n"
    assert f"Extension error ({path}): start failed" in done.stderr
    assert logged(env) == ["second ran", "second ran"]


def test_17_send_user_message_while_streaming_needs_deliver_as(env: Env) -> None:
    path = extension(
        env,
        "busy.py",
        'def setup(pi):\n    pi.on("tool_execution_start", lambda e, c: pi.send_user_message("more"))\n',
    )
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("done"))
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        error = rpc.read_until(lambda o: o.get("type") == "extension_error")
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert error["extensionPath"] == "<runtime>" and error["event"] == "send_user_message"
    assert "Specify streamingBehavior" in error["error"]


def test_18_reload_replaces_the_runtime(env: Env) -> None:
    path = extension(
        env,
        "reload.py",
        """
        import uuid
        ME = uuid.uuid4().hex[:6]

        def setup(pi):
            pi.on("session_start", lambda e, c: log([ME, "start", e.reason]))
            pi.on("session_shutdown", lambda e, c: log([ME, "shutdown", e.reason]))
            pi.on("resources_discover", lambda e, c: log([ME, "discover", e.reason]))

            async def reload(args, ctx):
                await ctx.reload()
                try:
                    ctx.cwd
                except Exception as error:
                    log([ME, "stale", str(error)])

            pi.register_command("reload-me", reload)
        """,
    )
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "r", "type": "prompt", "message": "/reload-me"})
        rpc.response("r")
    finally:
        assert rpc.close() == 0
    lines = logged(env)
    old, new = lines[0][0], lines[3][0]
    assert old != new
    assert [line[1:] for line in lines if line[0] == old][:3] == [
        ["start", "startup"],
        ["discover", "startup"],
        ["shutdown", "reload"],
    ]
    assert [line[1:] for line in lines if line[0] == new][:2] == [["start", "reload"], ["discover", "reload"]]
    stale = next(line for line in lines if line[1] == "stale")
    assert stale[0] == old and stale[2].startswith("This extension ctx is stale after session replacement or reload.")


def test_19_extension_flags(env: Env) -> None:
    path = extension(
        env,
        "flags.py",
        """
        def setup(pi):
            pi.register_flag("plan", type="boolean")
            pi.register_flag("label", type="string", default="none")
            pi.on("session_start", lambda e, c: log([pi.get_flag("plan"), pi.get_flag("label")]))
        """,
    )
    env.server.queue(text_reply("ok"))
    assert env.run("-e", str(path), "--plan", "--label=x", "-p", *MODEL, "hi").returncode == 0
    assert logged(env) == [[True, "x"]]
    unknown = env.run("-e", str(path), "--nope", "-p", *MODEL, "hi")
    assert unknown.returncode == 1 and "Error: Unknown option: --nope" in unknown.stderr
    missing = env.run("-e", str(path), "-p", *MODEL, "hi", "--label")
    assert missing.returncode == 1 and 'Extension flag "--label" requires a value' in missing.stderr


def test_20_exec_timeout_and_buffer(env: Env) -> None:
    path = extension(
        env,
        "exec.py",
        """
        def setup(pi):
            @pi.on("session_start")
            async def start(event, ctx):
                slow = await pi.exec("sleep", ["5"], timeout_ms=100)
                big = await pi.exec("yes", [], max_buffer=10)
                log([slow.killed, slow.code, big.truncated])
        """,
    )
    env.server.queue(text_reply("ok"))
    assert env.run("-e", str(path), "-p", *MODEL, "hi").returncode == 0
    assert logged(env) == [[True, 143, True]]


def test_21_append_entry(env: Env) -> None:
    path = extension(
        env,
        "entry.py",
        'def setup(pi):\n    pi.register_command("save", lambda a, c: pi.append_entry("s", {"n": 1}))\n',
    )
    env.server.queue(text_reply("ok"))
    rpc = Rpc(env, "-e", str(path))
    try:
        rpc.send({"id": "s", "type": "prompt", "message": "/save"})
        appended = rpc.read_until(lambda o: o.get("type") == "entry_appended")
        rpc.send({"id": "p", "type": "prompt", "message": "hi"})
        rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    assert appended["entry"]["type"] == "custom" and appended["entry"]["data"] == {"n": 1}
    session_file = next((env.agent_dir / "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert any(e["type"] == "custom" and e["customType"] == "s" and e["data"] == {"n": 1} for e in entries)
    assert '"n": 1' not in json.dumps(env.server.requests[0].json()["messages"])


def test_23_exposure_and_set_active_tools(env: Env) -> None:
    path = extension(
        env,
        "exposure.py",
        """
        def tool(name, exposure):
            return {"name": name, "description": name, "parameters": {"type": "object", "properties": {}},
                    "exposure": exposure, "execute": lambda *a: {"content": [], "details": None}}

        def setup(pi):
            pi.register_tool(tool("later", "deferred"))
            pi.register_tool(tool("hidden_tool", "hidden"))

            @pi.on("session_start")
            def start(event, ctx):
                before = pi.get_active_tools()
                pi.set_active_tools(["unknown", "hidden_tool"])
                log([before, pi.get_active_tools()])
        """,
    )
    env.server.queue(text_reply("ok"))
    assert env.run("-e", str(path), "-p", *MODEL, "hi").returncode == 0
    before, after = logged(env)[0]
    assert "later" not in before and "hidden_tool" not in before
    assert after == []


def test_24_shutdown_from_an_idle_rpc_command(env: Env) -> None:
    path = extension(
        env,
        "quit.py",
        """
        def setup(pi):
            pi.register_command("quit", lambda args, ctx: ctx.shutdown())
            pi.on("session_shutdown", lambda e, c: log(e.reason))
        """,
    )
    rpc = Rpc(env, "-e", str(path))
    rpc.send({"id": "q", "type": "prompt", "message": "/quit"})
    assert rpc.response("q")["success"] is True
    assert rpc.proc.wait(timeout=30) == 0
    assert logged(env) == ["quit"]


def test_57_project_extensions_need_trust(env: Env) -> None:
    (env.cwd / "AGENTS.md").write_text("be nice")
    extension(env, "x.py", STARTS.format(name="project"), env.cwd / ".pi" / "extensions")
    env.server.queue(text_reply("one"), text_reply("two"))
    assert env.run("-p", *MODEL, "hi").returncode == 0
    assert logged(env) == []
    assert env.run("--approve", "-p", *MODEL, "hi").returncode == 0
    assert logged(env) == ["project"]


TRUST = """
def setup(pi):
    pi.on("project_trust", lambda event, ctx: {trust})
"""


def test_58_project_trust_handler_overrides_a_saved_decision(env: Env) -> None:
    parent = env.cwd.parent
    (env.agent_dir / "trust.json").write_text(json.dumps({str(parent.resolve()): False}))
    extension(env, "x.py", STARTS.format(name="project"), env.cwd / ".pi" / "extensions")
    env.server.queue(text_reply("one"), text_reply("two"))
    assert env.run("-p", *MODEL, "hi").returncode == 0
    assert logged(env) == []
    extension(env, "trust.py", TRUST.format(trust='{"trusted": "yes", "remember": True}'), env.agent_dir / "extensions")
    assert env.run("-p", *MODEL, "hi").returncode == 0
    assert logged(env) == ["project"]
    stored = json.loads((env.agent_dir / "trust.json").read_text())
    assert stored[str(env.cwd.resolve())] is True


def test_59_failing_project_trust_handler_falls_through(env: Env) -> None:
    extension(env, "x.py", STARTS.format(name="project"), env.cwd / ".pi" / "extensions")
    path = extension(env, "trust.py", 'def setup(pi):\n    pi.on("project_trust", lambda e, c: 1 / 0)\n')
    env.server.queue(text_reply("one"))
    done = env.run("-e", str(path), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert f'Warning: Extension "{path}" project_trust error: division by zero' in done.stderr
    assert logged(env) == []


def test_60_an_untrusted_projects_mcp_json_is_ignored_and_auth_only_counts_globally(env: Env) -> None:
    """Untrusted: the project's server is absent and `pi mcp list` says why and what to do; trusted: a
    project entry with `auth` is refused."""
    project = env.cwd / ".pi" / "mcp.json"
    project.parent.mkdir(parents=True, exist_ok=True)
    server = {"command": "python", "args": ["-c", "pass"]}
    project.write_text(json.dumps({"mcpServers": {"proj": server}}))
    done = env.run("mcp", "list")
    note = f"{project} is ignored because the project is not trusted. Start pi in the project to trust it."
    assert note in done.stdout.splitlines(), done.stdout + done.stderr
    assert not any(line.startswith("proj:") for line in done.stdout.splitlines())
    assert "No MCP servers configured." in done.stdout
    project.write_text(json.dumps({"mcpServers": {"proj": {**server, "auth": {"provider": "radius"}}}}))
    trusted = env.run("mcp", "list", "--approve")
    assert note not in trusted.stdout
    assert f'{project}: server "proj": auth is only allowed in the global mcp.json' in trusted.stdout + trusted.stderr


COUNTED = """
def setup(pi):
    log("setup")
    pi.on("project_trust", lambda event, ctx: {"trusted": "yes"})
    pi.on("session_start", lambda event, ctx: log("start"))
"""


def test_the_trust_pass_and_the_session_share_extension_instances(env: Env) -> None:
    """User and `-e` extensions are asked about project trust before the session loads: setup runs once."""
    extension(env, "x.py", STARTS.format(name="project"), env.cwd / ".pi" / "extensions")
    counted = extension(env, "counted.py", COUNTED)
    extension(env, "user.py", COUNTED, env.agent_dir / "extensions")
    env.server.queue(text_reply("one"))
    done = env.run("-e", str(counted), "-p", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    assert logged(env) == ["setup", "setup", "start", "project", "start"]


def test_22_nested_calls_carry_their_parent_and_are_recorded(env: Env) -> None:
    (env.cwd / "a.txt").write_text("alpha secret text\n")
    path = extension(
        env,
        "outer.py",
        """
        def setup(pi):
            async def execute(call_id, params, signal, on_update, ctx):
                first = await ctx.execute_tool("read", {"path": "a.txt"})
                await ctx.execute_tool("read", {})
                return {"content": "outer saw " + str(len(first["content"])), "details": None}

            schema = {"type": "object"}
            pi.register_tool({"name": "outer", "description": "o", "parameters": schema, "execute": execute})
            pi.on("tool_execution_start", lambda e, c: log(["start", e.tool_call_id, e.parent_tool_call_id]))
        """,
    )
    env.server.queue(tool_reply([("outer", {})]), text_reply("done"))
    done = env.run("-e", str(path), "--mode", "json", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    events = json_events(done.stdout)
    starts = [(e["toolCallId"], e.get("parentToolCallId")) for e in events if e["type"] == "tool_execution_start"]
    assert starts == [("call_0_outer", None), ("call_0_outer/1", "call_0_outer"), ("call_0_outer/2", "call_0_outer")]
    ends = [e for e in events if e["type"] == "tool_execution_end" and e.get("parentToolCallId")]
    assert [e["isError"] for e in ends] == [False, True]
    assert ["start", "call_0_outer/1", "call_0_outer"] in logged(env)
    results = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "toolResult"]
    record = results[0]["nestedCalls"]
    assert [(c["id"], c["name"], c["status"]) for c in record["calls"]] == [
        ("call_0_outer/1", "read", "ok"),
        ("call_0_outer/2", "read", "error"),
    ]
    assert record["complete"] is True and record["calls"][0]["arguments"] == {"path": "a.txt"}
    assert "alpha secret" not in json.dumps(record) and "durationMs" in record["calls"][0]
    stored = (env.agent_dir / "sessions").rglob("*.jsonl")
    assert any('"nestedCalls"' in p.read_text() for p in stored)


def test_help_lists_the_flags_of_configured_extensions(env: Env) -> None:
    flags = """
    def setup(pi):
        pi.register_flag("plan", type="boolean", description="Start in plan mode")
        pi.register_flag("label", type="string", description="A label")
        pi.on("session_start", lambda e, c: log("started"))
    """
    path = extension(env, "flags.py", flags)
    shown = env.run("-e", str(path), "--help")
    assert shown.returncode == 0, shown.stderr
    tail = shown.stdout.split("Extension flags:\n", 1)[1].splitlines()
    assert tail[0].split() == ["--plan", "Start", "in", "plan", "mode"]
    assert tail[1].split() == ["--label", "<value>", "A", "label"]
    assert "Extension flags:" not in env.run("--help").stdout  # nothing configured: nothing loaded
    extension(env, "user.py", flags, env.agent_dir / "extensions")
    assert "--plan" in env.run("--help").stdout
    assert logged(env) == []  # listing flags starts no session
