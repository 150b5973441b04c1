"""Extensions and model requests through the real `pi` process: virtual models picked with `--model`,
raw provider frames, the tools of the leading system message, `ctx.model_registry.complete`, and
what a tool's boolean parameter says about a number."""

from __future__ import annotations

from tests.e2e.test_extensions_checks import extension, logged, tool_messages
from tests.support.cli_env import MODEL, Env, env
from tests.support.openai_chunks import text_reply, tool_reply

__all__ = ["env"]

ROUTER = """
def setup(pi):
    def route(request, ctx):
        log([request.reason, request.state])
        return {"model": "fake/fake-model", "state": {"seen": (request.state or {}).get("seen", 0) + 1}}

    pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Auto router", "route": route})
"""


def test_a_virtual_model_is_listed_and_routes_the_requests(env: Env) -> None:
    path = extension(env, "router.py", ROUTER)
    listed = env.run("-e", str(path), "--list-models")
    assert listed.returncode == 0, listed.stderr
    assert any(line.split()[:2] == ["router", "auto"] for line in listed.stdout.splitlines())
    env.server.queue(tool_reply([("ls", {})]), text_reply("routed answer"))
    done = env.run("-e", str(path), "-p", "--provider", "router", "--model", "auto", "list please")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "routed answer"
    assert [r.json()["model"] for r in env.server.requests] == ["fake-model", "fake-model"]
    assert logged(env) == [["user", None], ["tool", {"seen": 1}]]


def test_model_naming_a_provider_an_extension_registers_is_not_guessed_at_before_it_loads(env: Env) -> None:
    """`--model router/auto` waits for the extensions instead of taking a near name of the catalog."""
    path = extension(env, "router.py", ROUTER)
    env.server.queue(text_reply("routed answer"))
    done = env.run("-e", str(path), "-p", "--model", "router/auto", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "routed answer" and "Warning" not in done.stderr
    assert [r.json()["model"] for r in env.server.requests] == ["fake-model"]
    assert logged(env) == [["user", None]]


def test_provider_stream_event_sees_the_raw_frames_and_context_with_system_the_tools(env: Env) -> None:
    path = extension(
        env,
        "frames.py",
        """
        def setup(pi):
            @pi.on("context_with_system")
            def no_ls(event, ctx):
                leading = event.messages[0]
                log(sorted(t["name"] for t in leading.tools_added))
                tools = [t for t in leading.tools_added if t["name"] != "ls"]
                return {"messages": [leading.model_copy(update={"tools_added": tools}), *event.messages[1:]]}

            pi.on("provider_stream_event", lambda event, ctx: log(event.data))
        """,
    )
    env.server.queue(text_reply("framed"))
    done = env.run("-e", str(path), "-p", "--tools", "read,ls", *MODEL, "hi")
    assert done.returncode == 0, done.stderr
    first, *frames = logged(env)
    assert first == ["ls", "read"]
    assert [t["function"]["name"] for t in env.server.requests[0].json()["tools"]] == ["read"]
    assert frames and all(f["object"] == "chat.completion.chunk" for f in frames)
    assert "".join(f["choices"][0]["delta"].get("content") or "" for f in frames if f["choices"]) == "framed"


def test_a_command_asks_the_sessions_model_through_ctx_model_registry(env: Env) -> None:
    path = extension(
        env,
        "ask.py",
        """
        async def ask(args, ctx):
            reply = await ctx.model_registry.complete(ctx.model, {"messages": [
                {"role": "user", "content": args, "timestamp": 0}]})
            log(reply.content[0].text)

        def setup(pi):
            pi.register_command("ask", ask)
        """,
    )
    env.server.queue(text_reply("side answer"))
    done = env.run("-e", str(path), "-p", *MODEL, "/ask what is up")
    assert done.returncode == 0, done.stderr
    assert logged(env) == ["side answer"]
    request = env.server.requests[0]
    assert request.json()["messages"][-1]["content"] == "what is up"
    assert request.headers["authorization"].startswith("Bearer ")


def test_a_number_for_a_boolean_parameter_names_its_json_type(env: Env) -> None:
    """5.0 and 5 are the same JSON number (an integer); 5.5 is a number."""
    path = extension(
        env,
        "flags.py",
        """
        async def execute(call_id, params, signal, on_update, ctx):
            return {"content": [{"type": "text", "text": "ran"}], "details": None}

        def setup(pi):
            pi.register_tool({"name": "toggle", "description": "d", "execute": execute, "parameters": {
                "type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]}})
        """,
    )
    env.server.queue(tool_reply([("toggle", {"on": 5.0}), ("toggle", {"on": 5.5})]), text_reply("ok"))
    done = env.run("-e", str(path), "-p", *MODEL, "go")
    assert done.returncode == 0, done.stderr
    texts = [m["content"] for m in tool_messages(env)]
    assert "  - on: expected boolean, got integer\n" in texts[0]
    assert "  - on: expected boolean, got number\n" in texts[1]
    assert texts[0].startswith('Validation failed for tool "toggle":')
