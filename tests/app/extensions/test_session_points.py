"""Extension events the session asks at fixed points: tree gate, user bash, message_end, boundaries, requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.auth import AuthStorage
from pi.app.extensions.api import ExtensionAPI
from pi.app.extensions.errors import INVALID_USER_BASH_RESULT
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.session_extension_points import LEADING_SYSTEM_DROPPED
from pi.app.session_navigation import BranchSummaryCancelled
from pi.app.settings import SettingsManager
from pi.session.entries import BranchSummaryEntry, CustomEntry
from pi.session.manager import SessionManager
from tests.app.extensions.test_session_binding import make_session
from tests.support.content import as_tool_result
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply


def _errors(session: Any) -> list[Any]:
    found: list[Any] = []
    session.on_extension_error(found.append)
    return found


async def _two_prompts(faux: FauxProvider, session: Any) -> str:
    faux.set_responses([faux_assistant_message("one"), faux_assistant_message("two")])
    await session.prompt("first")
    await session.prompt("second")
    return str(session.fork_messages()[1]["entryId"])


async def test_session_before_tree_cancels_the_move(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        def gate(event: Any, ctx: Any) -> Any:
            seen.append(dict(event.preparation))
            return {"cancel": True}

        pi.on("session_before_tree", gate)
        pi.on("session_tree", lambda event, ctx: seen.append("moved"))

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    target = await _two_prompts(faux, session)
    leaf = session.session.get_leaf_id()
    with pytest.raises(BranchSummaryCancelled):
        await session.navigate_tree(target)
    assert session.session.get_leaf_id() == leaf and "moved" not in seen
    prep = seen[0]
    assert prep["target_id"] == target and prep["old_leaf_id"] == leaf and prep["user_wants_summary"] is False
    assert prep["entries_to_summarize"] and prep["common_ancestor_id"] is not None


async def test_session_before_tree_summary_replaces_the_model_summary(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        pi.on("session_before_tree", lambda e, c: {"summary": {"summary": "mine"}, "label": "back"})

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    target = await _two_prompts(faux, session)
    requests_before = len(faux.contexts)
    await session.navigate_tree(target, summarize=True)
    assert len(faux.contexts) == requests_before  # no summary request to the model
    summaries = [e for e in session.session.get_entries() if isinstance(e, BranchSummaryEntry)]
    assert [s.summary for s in summaries] == ["mine"] and summaries[0].from_hook
    assert session.session.get_label(target) == "back"


async def test_user_bash_result_and_operations(faux: FauxProvider, tmp_path: Path) -> None:
    calls: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        def route(event: Any, ctx: Any) -> Any:
            calls.append((event.command, event.exclude_from_context, event.cwd))
            if event.command == "given":
                return {"result": {"output": "from ext", "exitCode": 3, "cancelled": False, "truncated": False}}

            async def run(command: str, cwd: str, options: dict[str, Any]) -> dict[str, Any]:
                options["on_data"](f"remote ran {command}\n")
                return {"exitCode": 0}

            return {"operations": {"exec": run}}

        pi.on("user_bash", route)

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    given = await session.execute_bash("given", exclude_from_context=True)
    assert (given.output, given.exit_code) == ("from ext", 3)
    routed = await session.execute_bash("touch local-marker")
    assert routed.output == "remote ran touch local-marker\n" and routed.exit_code == 0
    assert not (tmp_path / "local-marker").exists()
    assert calls[0] == ("given", True, str(tmp_path))
    outputs = [getattr(m, "output", None) for m in session.messages if getattr(m, "role", None) == "bashExecution"]
    assert outputs == ["from ext", "remote ran touch local-marker\n"]


async def test_user_bash_fails_closed(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        @pi.on("user_bash")
        def broken(event: Any, ctx: Any) -> Any:
            if event.command.startswith("touch a"):
                raise OSError("remote down")
            return {"nonsense": 1}

    session = make_session(faux, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    with pytest.raises(OSError, match="remote down"):
        await session.execute_bash("touch a-marker")
    with pytest.raises(Exception, match="Invalid user_bash handler result"):
        await session.execute_bash("touch b-marker")
    assert not (tmp_path / "a-marker").exists() and not (tmp_path / "b-marker").exists()
    assert [e.event for e in errors] == ["user_bash", "user_bash"] and INVALID_USER_BASH_RESULT in str(errors[1].error)


async def test_message_end_replaces_the_stored_message(faux: FauxProvider, tmp_path: Path) -> None:
    roles: list[str] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("message_end")
        def rewrite(event: Any, ctx: Any) -> Any:
            roles.append(event.message.role)
            if event.message.role == "assistant":
                return {"message": event.message.model_copy(update={"content": [{"type": "text", "text": "edited"}]})}
            if event.message.role == "user":
                return {"message": {"role": "assistant", "content": "wrong role"}}
            return None

        pi.on("message_end", lambda e, c: roles.append("second:" + e.message.role))

    session = make_session(faux, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("original"), faux_assistant_message("again")])
    await session.prompt("hi")
    assert session.last_assistant_text() == "edited"
    messages = (getattr(e, "message", None) for e in session.session.get_entries())
    stored = [m for m in messages if m is not None]
    assert stored[-1].content[0].text == "edited"
    assert roles.count("assistant") == 1 and roles.count("second:assistant") == 1  # once each, as a chain
    assert any("same role" in str(e.error) for e in errors)
    await session.prompt("next")
    assert "edited" in json.dumps([m.model_dump(mode="json") for m in faux.contexts[-1].messages])


async def test_turn_end_entries_and_settle_continuation(faux: FauxProvider, tmp_path: Path) -> None:
    settles: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("turn_end")
        def mark(event: Any, ctx: Any) -> Any:
            assert event.message_entry_id is not None
            return {
                "entries": [*event.entries, {"type": "custom", "customType": "turn", "data": {"i": event.turn_index}}]
            }

        @pi.on("agent_before_settle")
        def settle(event: Any, ctx: Any) -> Any:
            settles.append((event.outcome, event.continue_))
            if len(settles) == 1:
                note = {"type": "custom_message", "customType": "nudge", "content": "keep going", "display": False}
                return {"entries": [note], "continue": True}
            return None

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("first"), faux_assistant_message("second")])
    await session.prompt("go")
    assert settles == [("completed", False), ("completed", False)]
    assert len(faux.contexts) == 2 and session.last_assistant_text() == "second"
    assert "keep going" in json.dumps([m.model_dump(mode="json") for m in faux.contexts[1].messages])
    turns = [e.data for e in session.session.get_entries() if isinstance(e, CustomEntry) and e.custom_type == "turn"]
    assert turns == [{"i": 0}, {"i": 0}]


async def test_invalid_boundary_drafts_are_reported_and_not_appended(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        pi.on("turn_end", lambda e, c: {"entries": [{"type": "bogus"}]})

    session = make_session(faux, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("x")])
    entries_before = len(session.session.get_entries())
    await session.prompt("go")
    assert any(str(e.error).startswith("Invalid boundary entries:") for e in errors)
    assert not any(isinstance(e, CustomEntry) for e in session.session.get_entries()[entries_before:])


async def test_context_with_system_replaces_the_prompt(faux: FauxProvider, tmp_path: Path) -> None:
    seen: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("context_with_system")
        def rewrite(event: Any, ctx: Any) -> Any:
            seen.append([m["role"] if isinstance(m, dict) else m.role for m in event.messages])
            return {"messages": [{"role": "system", "content": "REPLACED"}, *event.messages[1:]]}

    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("hello")])
    await session.prompt("hi")
    assert seen[0][0] == "system" and faux.contexts[0].system_prompt == "REPLACED"
    assert session.last_assistant_text() == "hello"


async def test_dropping_the_system_message_is_reported_but_honoured(faux: FauxProvider, tmp_path: Path) -> None:
    def setup(pi: ExtensionAPI) -> None:
        pi.on("context_with_system", lambda e, c: {"messages": list(e.messages[1:])})

    session = make_session(faux, tmp_path, [setup])
    errors = _errors(session)
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("hello")])
    await session.prompt("hi")
    assert not faux.contexts[0].system_prompt
    assert [str(e.error) for e in errors] == [LEADING_SYSTEM_DROPPED]


async def test_provider_headers_and_response_reach_extensions(server: ScriptedServer, tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    providers = {
        "loop": {
            "baseUrl": f"{server.url}/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "headers": {"X-Drop": "d"},
            "models": [{"id": "m"}],
        }
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    seen: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("before_provider_headers")
        def headers(event: Any, ctx: Any) -> None:
            event.headers["X-Ext"] = "yes"
            event.headers["X-Drop"] = None

        pi.on("after_provider_response", lambda e, c: seen.append((e.status, e.headers.get("x-reply"))))

    registry = ModelRegistry(AuthStorage.in_memory(), agent_dir / "models.json")
    session = create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=agent_dir,
            model=registry.find("loop", "m"),
            tools=[],
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
            extension_factories=[setup],
        )
    )
    await session.bind_extensions()
    reply = text_reply("hi")
    reply.headers = {**reply.headers, "X-Reply": "r1"}
    server.queue(reply)
    await session.prompt("go")
    assert session.last_assistant_text() == "hi"
    assert server.requests[0].headers.get("x-ext") == "yes" and "x-drop" not in server.requests[0].headers
    assert seen == [(200, "r1")]


async def test_before_agent_start_prompt_option_edits_shape_the_runs_prompt(faux: FauxProvider, tmp_path: Path) -> None:
    runs: list[int] = []

    def setup(pi: ExtensionAPI) -> None:
        @pi.on("before_agent_start")
        def edit(event: Any, ctx: Any) -> None:
            runs.append(1)
            if len(runs) > 1:
                return
            options = event.system_prompt_options
            assert "rules" in options["sections"] and options["selected_tools"] == ["read", "grep"]
            options["sections"]["rules"] += "\n- Answer in French"
            options["selected_tools"].remove("grep")
            options["prompt_guidelines"].append("Cite files you read")

    session = make_session(faux, tmp_path, [setup], tool_names=["read", "grep"])
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message("un"), faux_assistant_message("two")])
    await session.prompt("first")
    await session.prompt("second")
    edited, plain = faux.contexts[0].system_prompt, faux.contexts[1].system_prompt
    assert edited is not None and plain is not None
    assert "- Answer in French" in edited and "- Cite files you read" in edited
    assert "grep" in plain and "grep" not in edited.split("<tools>")[1].split("</tools>")[0]
    assert "Answer in French" not in plain


async def test_nested_updates_carry_the_parent_and_reach_on_update(faux: FauxProvider, tmp_path: Path) -> None:
    from pi.ai.faux import faux_tool_call

    updates: list[Any] = []
    events: list[Any] = []

    def setup(pi: ExtensionAPI) -> None:
        async def inner(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
            await on_update({"content": [{"type": "text", "text": "half"}], "details": None})
            return {"content": "whole", "details": None}

        async def outer(call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
            await ctx.execute_tool("inner", {}, on_update=updates.append)
            return {"content": "outer", "details": None}

        for name, run in (("inner", inner), ("outer", outer)):
            pi.register_tool({"name": name, "description": name, "parameters": {"type": "object"}, "execute": run})
        pi.on("tool_execution_update", lambda e, c: events.append((e.tool_call_id, e.parent_tool_call_id)))

    session = make_session(faux, tmp_path, [setup])
    lines: list[dict[str, Any]] = []
    session.subscribe(lambda e: lines.append(e.to_json_dict()) if e.type == "tool_execution_update" else None)
    await session.bind_extensions()
    faux.set_responses([faux_assistant_message([faux_tool_call("outer", {}, id="P")]), faux_assistant_message("ok")])
    await session.prompt("go")
    await session.drain_events()
    assert events == [("P/1", "P")] and updates[0]["content"][0]["text"] == "half"
    assert [(line["toolCallId"], line["parentToolCallId"]) for line in lines] == [("P/1", "P")]
    result = as_tool_result(next(m for m in session.messages if getattr(m, "role", None) == "toolResult"))
    assert [(c.id, c.status) for c in result.nested_calls.calls] == [("P/1", "ok")]


def test_nested_records_are_bounded() -> None:
    from pi.app.session_extension_nested_events import MAX_CALLS, NestedRecords

    records = NestedRecords()
    records.record("P", "P/1", "read", {"path": "x" * 9000}, {"content": []}, 1.0)
    big = records.take("P")
    assert big.complete is False and big.calls[0].arguments is None and big.calls[0].arguments_bytes > 8192
    for n in range(MAX_CALLS + 3):
        records.record(
            "Q", f"Q/{n}", "t", {"n": n}, {"content": [{"type": "text", "text": "bad"}], "isError": True}, 2.5
        )
    many = records.take("Q")
    assert len(many.calls) == MAX_CALLS and many.complete is False
    assert many.calls[0].status == "error" and many.calls[0].error == "bad" and many.calls[0].duration_ms == 2
    small = NestedRecords()
    small.record("R", "R/1", "t", {"a": 1}, {"content": []}, 0)
    assert small.take("R").complete is True and small.take("R") is None
