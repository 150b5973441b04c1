"""Payload models: 41 events, the naming rule, aliases and shared mutable fields (extension spec §1.6)."""

from __future__ import annotations

from pi.app.extensions import events
from pi.app.extensions.narrowing import (
    is_bash_tool_result,
    is_read_tool_result,
    is_tool_call_event_type,
    is_tool_result_event_type,
)

SPEC_EVENTS = [
    "project_trust",
    "resources_discover",
    "mcp_servers_change",
    "session_start",
    "session_info_changed",
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_compact",
    "session_compact_failed",
    "session_before_tree",
    "session_tree",
    "session_shutdown",
    "input",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "agent_before_settle",
    "agent_settled",
    "ui_prompt_start",
    "ui_prompt_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "tool_call",
    "tool_result",
    "context",
    "context_with_system",
    "before_provider_headers",
    "before_provider_request",
    "after_provider_response",
    "provider_stream_event",
    "cache_warming_decision",
    "model_select",
    "thinking_level_select",
    "user_bash",
]


def test_all_41_events_have_models_named_by_the_rule() -> None:
    assert len(SPEC_EVENTS) == 41
    assert set(events.EVENT_NAMES) == set(SPEC_EVENTS)
    for name, model in events.EVENT_MODELS.items():
        assert model.__name__ == "".join(part.capitalize() for part in name.split("_")) + "Event"
        assert model.model_fields["type"].default == name


def test_camel_case_aliases_and_continue() -> None:
    event = events.ToolCallEvent.model_validate({"toolCallId": "a", "toolName": "bash", "input": {}})
    assert event.tool_call_id == "a"
    dumped = events.TurnEndEvent(turn_index=2, message=None, tool_results=[], entries=[], continue_=True).to_json_dict()
    assert dumped["continue"] is True and dumped["turnIndex"] == 2 and "continue_" not in dumped
    assert events.BoundaryEventResult.model_validate({"continue_": False}).continue_ is False
    assert events.BoundaryEventResult.model_validate({"continue": True}).continue_ is True


def test_mutable_fields_are_the_hosts_objects() -> None:
    args: dict[str, object] = {"command": "ls"}
    headers: dict[str, object] = {}
    messages: list[object] = []
    options: dict[str, object] = {}
    assert events.ToolCallEvent(tool_call_id="1", tool_name="bash", input=args).input is args
    assert events.BeforeProviderHeadersEvent(headers=headers).headers is headers
    assert events.ContextEvent(messages=messages).messages is messages
    start = events.BeforeAgentStartUserEvent(prompt="p", system_prompt="s", system_prompt_options=options)
    assert start.system_prompt_options is options
    assert isinstance(start, events.BeforeAgentStartEvent) and start.message_type == "user"
    custom = events.BeforeAgentStartCustomEvent(
        message={"customType": "x"}, system_prompt="s", system_prompt_options={}
    )
    assert custom.message_type == "custom"


def test_narrowing_helpers() -> None:
    call = events.ToolCallEvent(tool_call_id="1", tool_name="bash", input={})
    result = events.ToolResultEvent(tool_call_id="1", tool_name="read", input={}, content=[])
    assert is_tool_call_event_type("bash", call) and not is_tool_call_event_type("read", call)
    assert not is_tool_call_event_type("bash", result)
    assert is_read_tool_result(result) and not is_bash_tool_result(result)
    assert is_tool_result_event_type("read", result)
