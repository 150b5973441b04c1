"""Event dispatch patterns, error isolation and the fail-closed paths (extension spec §1.6, §1.10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.ai.types import TextContent
from pi.app.extensions.events import (
    AgentBeforeSettleEvent,
    BeforeAgentStartUserEvent,
    CacheWarmingDecisionEvent,
    InputEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchEventResult,
    SessionStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    UserBashEvent,
)

from .conftest import Loaded, load_files, write


async def load_handlers(tmp_path: Path, *bodies: str) -> Loaded:
    """One extension file per body; each body is the inside of `setup(pi)`."""
    files = []
    for index, body in enumerate(bodies):
        indented = "\n".join("    " + line for line in body.strip().splitlines())
        files.append(write(tmp_path / f"e{index}.py", f"import asyncio\n\ndef setup(pi):\n{indented}\n"))
    return await load_files(*files)


async def test_notify_isolates_errors_and_keeps_order(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('session_start')\ndef a(e, ctx):\n    ctx.record('a')\n    raise ValueError('first broke')",
        "@pi.on('session_start')\nasync def b(e, ctx):\n    await asyncio.sleep(0)\n    ctx.record('b')",
    )
    await loaded.runner.emit(SessionStartEvent(reason="startup"))
    assert loaded.recorder.seen == ["a", "b"]
    [error] = loaded.errors
    assert (error.extension_path, error.event, error.error) == (str(tmp_path / "e0.py"), "session_start", "first broke")
    assert error.to_json_dict()["extensionPath"] == str(tmp_path / "e0.py")
    assert "ValueError" in (error.stack or "")


async def test_dispatch_snapshots_the_handler_list(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "def later(e, ctx):\n    ctx.record('later')\n"
        "@pi.on('agent_start')\ndef first(e, ctx):\n    ctx.record('first')\n    pi.on('agent_start', later)",
    )
    from pi.app.extensions.events import AgentStartEvent

    await loaded.runner.emit(AgentStartEvent())
    assert loaded.recorder.seen == ["first"]
    await loaded.runner.emit(AgentStartEvent())
    assert loaded.recorder.seen == ["first", "first", "later"]


async def test_tool_call_gate_in_place_edit_and_first_block(tmp_path: Path) -> None:
    """AC 6/7 at this layer: an in-place edit is seen by the next handler; the first block wins."""
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('tool_call')\ndef edit(e, ctx):\n    e.input['command'] = 'echo safe'",
        "@pi.on('tool_call')\ndef gate(e, ctx):\n    ctx.record(e.input['command'])\n    return {'block': True}",
        "@pi.on('tool_call')\ndef never(e, ctx):\n    ctx.record('never')",
    )
    args = {"command": "rm -rf x"}
    result = await loaded.runner.emit_tool_call(ToolCallEvent(tool_call_id="1", tool_name="bash", input=args))
    assert args == {"command": "echo safe"}
    assert loaded.recorder.seen == ["echo safe"]
    assert result is not None and (result.block, result.reason) == (True, "Tool execution was blocked")


async def test_tool_call_fails_closed(tmp_path: Path) -> None:
    """AC 8: an exception propagates; a value that is no result blocks with the message."""
    raising = await load_handlers(tmp_path, "@pi.on('tool_call')\ndef g(e, ctx):\n    raise RuntimeError('gate down')")
    with pytest.raises(RuntimeError, match="gate down"):
        await raising.runner.emit_tool_call(ToolCallEvent(tool_call_id="1", tool_name="bash", input={}))
    weird = await load_handlers(tmp_path / "w", "@pi.on('tool_call')\ndef g(e, ctx):\n    return 'nope'")
    result = await weird.runner.emit_tool_call(ToolCallEvent(tool_call_id="1", tool_name="bash", input={}))
    assert result is not None and result.reason == "Extension failed, blocking execution: nope"


async def test_tool_result_chain_and_structured_content(tmp_path: Path) -> None:
    """AC 9: B sees A's content (as blocks); new content without structuredContent drops it."""
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('tool_result')\ndef a(e, ctx):\n    return {'content': [{'type': 'text', 'text': 'A'}]}",
        "@pi.on('tool_result')\ndef b(e, ctx):\n    ctx.record(e.content[0].text)\n    return {'isError': True}",
    )
    event = ToolResultEvent(
        tool_call_id="1",
        tool_name="t",
        input={},
        content=[{"type": "text", "text": "orig"}],
        details={"d": 1},
        structured_content={"x": 1},
    )
    patch = await loaded.runner.emit_tool_result(event)
    assert loaded.recorder.seen == ["A"]
    assert patch is not None
    assert patch.content == [TextContent(text="A")] and patch.is_error is True
    assert patch.structured_content is None and "structured_content" in patch.model_fields_set
    assert "details" not in patch.model_fields_set


async def test_input_transform_chain_and_handled(tmp_path: Path) -> None:
    """AC 10 at this layer."""
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('input')\ndef a(e, ctx):\n    if e.text.startswith('?q '):\n"
        "        return {'action': 'transform', 'text': 'Respond briefly: ' + e.text[3:]}",
        "@pi.on('input')\ndef b(e, ctx):\n    ctx.record((e.text, e.source))",
    )
    result = await loaded.runner.emit_input(InputEvent(text="?q x", source="rpc"))
    assert loaded.recorder.seen == [("Respond briefly: x", "rpc")]
    assert (result.action, result.text) == ("transform", "Respond briefly: x")
    handled = await load_handlers(tmp_path / "h", "@pi.on('input')\ndef c(e, ctx):\n    return {'action': 'handled'}")
    assert (await handled.runner.emit_input(InputEvent(text="hi", source="interactive"))).action == "handled"


async def test_before_agent_start_collects_messages_and_forces_prompt(tmp_path: Path) -> None:
    """AC 11 at this layer."""
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('before_agent_start')\ndef a(e, ctx):\n"
        "    return {'message': {'customType': 'm', 'content': 'ctx', 'display': False}, 'systemPrompt': 'S'}",
        "@pi.on('before_agent_start')\ndef b(e, ctx):\n    ctx.record(e.system_prompt)",
    )
    options: dict[str, Any] = {"selected_tools": ["read"]}
    event = BeforeAgentStartUserEvent(prompt="hi", system_prompt="pi prompt", system_prompt_options=options)
    outcome = await loaded.runner.emit_before_agent_start(event)
    assert outcome.messages == [{"customType": "m", "content": "ctx", "display": False}]
    assert outcome.system_prompt == "S" and loaded.recorder.seen == ["S"]
    assert options["force_system_prompt"] == "S"


async def test_context_chain_in_place_and_returned(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('context')\ndef a(e, ctx):\n    e.messages.append('added')",
        "@pi.on('context')\ndef b(e, ctx):\n    return {'messages': e.messages[-1:]}",
    )
    assert await loaded.runner.emit_context(["one", "two"]) == ["added"]
    assert await loaded.runner.emit_context_with_system(["s"]) == ["s"]


async def test_provider_request_headers_and_message_end(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('before_provider_headers')\ndef h(e, ctx):\n    e.headers['x-extra'] = '1'\n"
        "    e.headers['x-drop'] = None\n"
        "@pi.on('before_provider_request')\ndef p(e, ctx):\n    return {**e.payload, 'seen': True}\n"
        "@pi.on('message_end')\ndef m(e, ctx):\n    return {'message': {'role': 'user', 'content': 'swapped'}}",
    )
    headers = {"x-drop": "a", "keep": "b"}
    await loaded.runner.emit_before_provider_headers(headers)
    assert headers == {"keep": "b", "x-extra": "1"}
    assert await loaded.runner.emit_before_provider_request({"model": "m"}) == {"model": "m", "seen": True}
    message = {"role": "assistant", "content": "orig"}
    assert await loaded.runner.emit_message_end(message) is message
    assert [e.error for e in loaded.errors] == ["message_end handlers must return a message with the same role"]


async def test_gate_first_cancel_wins(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('session_before_switch')\ndef a(e, ctx):\n    return {}",
        "@pi.on('session_before_switch')\ndef b(e, ctx):\n    return {'cancel': True}",
        "@pi.on('session_before_switch')\ndef c(e, ctx):\n    ctx.record('never')",
    )
    result = await loaded.runner.emit_gate(SessionBeforeSwitchEvent(reason="new"), SessionBeforeSwitchEventResult)
    assert result is not None and result.cancel is True and loaded.recorder.seen == []


async def test_boundary_replaces_fields_and_reports_bad_entries(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('turn_end')\ndef a(e, ctx):\n"
        "    return {'entries': [*e.entries, {'type': 'custom', 'customType': 'x'}]}",
        "@pi.on('turn_end')\ndef b(e, ctx):\n    ctx.record(len(e.entries))\n    return {'continue': True}",
        "@pi.on('agent_before_settle')\ndef c(e, ctx):\n    return {'entries': [{'type': 'bogus'}]}",
    )
    event = TurnEndEvent(turn_index=0, message=None, tool_results=[], entries=[])
    outcome = await loaded.runner.emit_boundary(event, rebuild_context=lambda entries: {"n": len(entries)})
    assert loaded.recorder.seen == [1]
    assert (outcome.continue_, outcome.valid, event.context) == (True, True, {"n": 1})
    assert outcome.entries == [{"type": "custom", "customType": "x"}]

    def rebuild(entries: list[Any]) -> Any:
        raise ValueError("unknown draft type bogus")

    settle = await loaded.runner.emit_boundary(AgentBeforeSettleEvent(entries=[]), rebuild_context=rebuild)
    assert (settle.valid, settle.entries) == (False, [])
    assert loaded.errors[-1].error == "Invalid boundary entries: unknown draft type bogus"


async def test_cache_warming_last_override(tmp_path: Path) -> None:
    loaded = await load_handlers(
        tmp_path,
        "@pi.on('cache_warming_decision')\ndef a(e, ctx):\n    return {'action': 'stop'}",
        "@pi.on('cache_warming_decision')\ndef b(e, ctx):\n    return {'action': 'warm'}",
        "@pi.on('cache_warming_decision')\ndef c(e, ctx):\n    return None",
    )
    event = CacheWarmingDecisionEvent(warm_cost=1, miss_cost=2, continuation_probability=0.5, action="stop")
    assert await loaded.runner.emit_cache_warming_decision(event) == "warm"


async def test_user_bash_rules(tmp_path: Path) -> None:
    event = UserBashEvent(command="ls", cwd=str(tmp_path))
    ok = await load_handlers(
        tmp_path / "ok",
        "@pi.on('user_bash')\ndef a(e, ctx):\n    return None",
        "@pi.on('user_bash')\ndef b(e, ctx):\n    return {'result': {'output': 'x', 'exitCode': 0, 'cancelled': False,"
        " 'truncated': False}}",
    )
    result = await ok.runner.emit_user_bash(event)
    assert result is not None and result.result["output"] == "x"
    both = await load_handlers(
        tmp_path / "both", "@pi.on('user_bash')\ndef a(e, ctx):\n    return {'result': {}, 'operations': {}}"
    )
    with pytest.raises(Exception) as invalid:
        await both.runner.emit_user_bash(event)
    assert str(invalid.value).startswith("Invalid user_bash handler result: return undefined for local execution")
    raising = await load_handlers(
        tmp_path / "r", "@pi.on('user_bash')\ndef a(e, ctx):\n    raise OSError('remote down')"
    )
    with pytest.raises(OSError, match="remote down"):
        await raising.runner.emit_user_bash(event)
    assert [e.event for e in raising.errors] == ["user_bash"]


async def test_resources_discover_concatenates(tmp_path: Path) -> None:
    from pi.app.extensions.events import ResourcesDiscoverEvent

    loaded = await load_handlers(
        tmp_path,
        "@pi.on('resources_discover')\ndef a(e, ctx):\n    return {'skillPaths': ['a']}",
        "@pi.on('resources_discover')\ndef b(e, ctx):\n    return {'skill_paths': ['b'], 'prompt_paths': ['p']}",
    )
    merged = await loaded.runner.emit_resources_discover(ResourcesDiscoverEvent(cwd="/", reason="startup"))
    assert (merged.skill_paths, merged.prompt_paths, merged.theme_paths) == (["a", "b"], ["p"], [])
