"""Extensions bound to a real AgentSession (SDK inline factories, the faux model, no network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.app.agent_session import AgentSession
from pi.app.auth import AuthStorage
from pi.app.extensions.api import ExtensionAPI
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support.content import as_tool_result, text_of


def make_session(faux: FauxProvider, tmp_path: Path, factories: list[Any], **options: Any) -> AgentSession:
    auth = AuthStorage.in_memory()
    auth.set_runtime_api_key(faux.model.provider, "test")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=faux.model,
            thinking_level="off",
            tool_names=options.pop("tool_names", ["read"]),
            settings=SettingsManager.in_memory({"retry": {"enabled": False}}),
            auth=auth,
            model_registry=ModelRegistry(auth, None),
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=factories,
            **options,
        )
    )


async def test_inline_factory_tool_runs_and_events_reach_handlers(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[str] = []

    def setup(pi: ExtensionAPI) -> None:
        async def execute(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
            return {"content": [{"type": "text", "text": f"hello {params['name']} from {ctx.mode}"}], "details": None}

        pi.register_tool(
            {
                "name": "hello",
                "description": "Greets",
                "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                "execute": execute,
            }
        )
        for name in ("session_start", "agent_start", "turn_start", "tool_execution_end", "turn_end", "agent_end"):
            pi.on(name, lambda event, ctx, name=name: seen.append(name))

    session = make_session(faux, tmp_path, [setup])
    assert await session.load_extensions() == []
    await session.bind_extensions(mode="print")
    assert session.extension_runner is not None
    assert [t.name for t in session.agent.state.tools] == ["read", "hello"]
    faux.set_responses(
        [faux_assistant_message([faux_tool_call("hello", {"name": "Ada"})]), faux_assistant_message("done")]
    )
    await session.prompt("greet")
    tool_results = [as_tool_result(m) for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert text_of(tool_results[0].content[0]) == "hello Ada from print"
    assert seen[0] == "session_start"
    assert seen.count("turn_end") == 2 and seen[-1] == "agent_end"
    system_prompt = faux.contexts[0].system_prompt
    assert system_prompt is not None
    assert "hello" in system_prompt or any(t.name == "hello" for t in faux.contexts[0].tools or [])


async def test_no_extensions_means_no_runner_and_no_machinery(faux: FauxProvider, tmp_path: Path) -> None:
    session = make_session(faux, tmp_path, [])
    assert await session.load_extensions() == []
    assert session.extension_runner is None


async def test_fork_gate_and_tree_events(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[Any] = []
    block = {"fork": True}

    def setup(pi: ExtensionAPI) -> None:
        pi.on("session_before_fork", lambda event, ctx: {"cancel": block["fork"]})
        pi.on("session_tree", lambda event, ctx: seen.append((event.new_leaf_id, event.old_leaf_id)))
        pi.on("session_start", lambda event, ctx: seen.append(event.reason))

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("one"), faux_assistant_message("two")])
    await session.prompt("first")
    await session.prompt("second")
    second = session.fork_messages()[1]["entryId"]
    assert await session.fork(second) == {"cancelled": True}
    block["fork"] = False
    outcome = await session.fork(second)
    assert outcome["cancelled"] is False and seen[-1] == "fork"
    leaf = session.session.get_leaf_id()
    first = session.fork_messages()[0]["entryId"]
    await session.navigate_tree(first)
    assert seen[-1] == (session.session.get_leaf_id(), leaf)


async def test_ui_prompt_and_mcp_change_events(faux: FauxProvider, tmp_path: Path) -> None:
    from pi.app.extensions.rpc_ui import RpcUI

    events: list[Any] = []
    sent: list[dict[str, Any]] = []

    def setup(pi: ExtensionAPI) -> None:
        pi.on("ui_prompt_start", lambda event, ctx: events.append(("start", event.kind, event.title)))
        pi.on("ui_prompt_end", lambda event, ctx: events.append(("end", event.kind)))
        pi.on("mcp_servers_change", lambda event, ctx: events.append([s["name"] for s in event.servers]))

        async def ask(args: str, ctx: Any) -> None:
            pi.register_mcp_server("docs", {"command": "true"})
            await ctx.ui.confirm("Sure?", "really", timeout_ms=50)

        pi.register_command("ask", ask)

    session = make_session(faux, tmp_path, [setup])
    ui = RpcUI(sent.append, on_prompt=session.notify_extension_ui_prompt)
    await session.bind_extensions(ui=ui, mode="rpc")
    assert await session.prompt("/ask") == "handled"
    await session.shutdown_extensions()
    assert ["docs"] in events
    assert ("start", "confirm", "Sure?") in events and ("end", "confirm") in events
    assert sent[0]["method"] == "confirm" and sent[0]["timeout"] == 50


async def test_json_schema_arguments_are_coerced_and_checked(faux: FauxProvider, tmp_path: Path) -> None:
    received: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        def execute(call_id: str, params: Any, *rest: Any) -> Any:
            received.append(params)
            return {"content": "ok"}

        pi.register_tool(
            {
                "name": "count",
                "description": "c",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
                    "required": ["n"],
                },
                "execute": execute,
            }
        )

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses(
        [
            faux_assistant_message([faux_tool_call("count", {"n": "3", "tags": "a"})]),
            faux_assistant_message([faux_tool_call("count", {"tags": [1]})]),
            faux_assistant_message("done"),
        ]
    )
    await session.prompt("go")
    assert received == [{"n": 3, "tags": ["a"]}]
    results = [as_tool_result(m) for m in session.messages if getattr(m, "role", None) == "toolResult"]
    assert results[1].is_error and "  - n: missing" in text_of(results[1].content[0])


async def test_send_message_next_turn_and_trigger(faux: FauxProvider, tmp_path: Path) -> None:
    apis: list[Any] = []
    session = make_session(faux, tmp_path, [apis.append])
    await session.bind_extensions()
    pi = apis[0]
    pi.send_message({"customType": "note", "content": "for later", "display": False}, deliver_as="nextTurn")
    faux.set_responses([faux_assistant_message("a"), faux_assistant_message("b")])
    await session.prompt("hi")
    assert "for later" in str(faux.contexts[0].messages)
    pi.send_message({"customType": "note", "content": "go on", "display": True}, trigger_turn=True)
    await session.shutdown_extensions()
    await session.wait_for_idle()
    assert faux.call_count == 2 and "go on" in str(faux.contexts[1].messages)


async def test_nested_tool_calls_go_through_hooks(faux: FauxProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    seen: list[Any] = []
    outcomes: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        async def execute(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
            outcomes.append(await ctx.execute_tool("read", {"path": "a.txt"}))
            outcomes.append(await ctx.execute_tool("read", {"path": "blocked.txt"}))
            outcomes.append(await ctx.execute_tool("nope", {}))
            outcomes.append(await ctx.execute_tool("read", {}))
            return {"content": "outer done", "details": None}

        pi.register_tool({"name": "outer", "description": "o", "parameters": {"type": "object"}, "execute": execute})

        @pi.on("tool_call")
        def gate(event: Any, ctx: Any) -> Any:
            seen.append((event.tool_call_id, event.parent_tool_call_id))
            return {"block": True, "reason": "no"} if event.input.get("path") == "blocked.txt" else None

        pi.on("tool_execution_end", lambda e, c: seen.append(("end", e.tool_call_id, e.parent_tool_call_id)))

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message([faux_tool_call("outer", {}, id="A")]), faux_assistant_message("ok")])
    await session.prompt("go")
    assert "alpha" in outcomes[0]["content"][0]["text"] and "isError" not in outcomes[0]
    assert outcomes[1] == {"content": [{"type": "text", "text": "no"}], "details": None, "isError": True}
    assert outcomes[2]["isError"] and outcomes[2]["content"][0]["text"] == "Tool nope not found"
    assert outcomes[3]["isError"] and "path" in outcomes[3]["content"][0]["text"]
    assert ("A/1", "A") in seen and ("end", "A/1", "A") in seen and ("end", "A", None) in seen
