"""Chat Completions request bodies shaped by pi 1.6's model fields and compat flags, seen by a loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from pi.ai.types import (
    ModelCompat,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolReference,
    ToolResultMessage,
)
from tests.ai.providers.test_openai_completions import (
    READ_TOOL,
    assistant,
    chunk,
    ctx,
    make_model,
    reply,
    run,
    sent_body,
    tool_delta,
    user,
)
from tests.support.http_server import ScriptedServer


async def test_developer_role_only_for_openai_itself(server: ScriptedServer) -> None:
    history = ctx(user(), system="S")
    openai = make_model(server, "openai", "o4-mini", reasoning=True)
    other = make_model(server, "custom", "o4-mini", reasoning=True)
    assert (await sent_body(server, openai, history))["messages"][0]["role"] == "developer"
    assert (await sent_body(server, other, history))["messages"][0]["role"] == "system"
    opted_in = make_model(server, "custom", "r", reasoning=True, compat=ModelCompat(supports_developer_role=True))
    assert (await sent_body(server, opted_in, history))["messages"][0]["role"] == "developer"


async def test_strict_is_sent_only_where_the_server_supports_it(server: ScriptedServer) -> None:
    plain = await sent_body(server, make_model(server, "custom"), ctx(user(), tools=[READ_TOOL]))
    assert "strict" not in plain["tools"][0]["function"]
    strict = make_model(server, "custom", compat=ModelCompat(supports_strict_mode=True))
    body = await sent_body(server, strict, ctx(user(), tools=[READ_TOOL]))
    assert body["tools"][0]["function"]["strict"] is False


@pytest.mark.parametrize(
    ("fmt", "level", "expected"),
    [
        ("deepseek", "high", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
        ("deepseek", None, {"thinking": {"type": "disabled"}}),
        ("openrouter", "medium", {"reasoning": {"effort": "medium"}}),
        ("openrouter", None, {"reasoning": {"effort": "none"}}),
        ("together", "low", {"reasoning": {"enabled": True}, "reasoning_effort": "low"}),
        ("together", None, {"reasoning": {"enabled": False}}),
        ("string-thinking", "high", {"thinking": "high"}),
        ("string-thinking", None, {"thinking": "none"}),
        ("ant-ling", "high", {}),  # only a level the model's thinking-level map names is sent
        ("openai", "low", {"reasoning_effort": "low"}),
    ],
)
async def test_thinking_formats(server: ScriptedServer, fmt: str, level: str | None, expected: dict[str, Any]) -> None:
    compat = ModelCompat(thinking_format=fmt)
    model = make_model(server, "custom", "r", reasoning=True, compat=compat)
    extra = {"reasoning_effort": level} if level else {}
    body = await sent_body(server, model, ctx(user()), extra=extra)
    keys = ("thinking", "reasoning", "reasoning_effort", "enable_thinking", "chat_template_kwargs")
    assert {key: body[key] for key in keys if key in body} == expected


async def test_thinking_level_map_values_and_off(server: ScriptedServer) -> None:
    mapping: dict[str, str | None] = {"off": "none", "low": "LOW", "medium": None}
    compat = ModelCompat(supports_reasoning_effort=True)
    model = make_model(server, "custom", "r", reasoning=True, thinking_level_map=mapping, compat=compat)
    assert (await sent_body(server, model, ctx(user()), extra={"reasoning_effort": "low"}))["reasoning_effort"] == "LOW"
    assert (await sent_body(server, model, ctx(user())))["reasoning_effort"] == "none"
    clamped = await sent_body(server, model, ctx(user()), simple=True, reasoning="medium")
    assert clamped["reasoning_effort"] == "high"  # medium is unsupported: the next stronger level


async def test_sampling_params_merge_in_order(server: ScriptedServer) -> None:
    model = make_model(
        server,
        "custom",
        "r",
        reasoning=True,
        sampling_params={"temperature": 0.6, "top_p": 0.95, "top_k": 20},
        sampling_params_by_thinking_level={"high": {"temperature": 1.0, "min_p": 0.1}},
    )
    body = await sent_body(
        server, model, ctx(user()), temperature=0.1, extra={"reasoning_effort": "high", "sampling_params": {"top_k": 5}}
    )
    assert (body["temperature"], body["top_p"], body["top_k"], body["min_p"]) == (1.0, 0.95, 5, 0.1)
    off = await sent_body(server, model, ctx(user()))
    assert (off["temperature"], off["top_k"]) == (0.6, 20) and "min_p" not in off


async def test_anthropic_cache_control_format(server: ScriptedServer) -> None:
    model = make_model(server, "custom", "claude", compat=ModelCompat(cache_control_format="anthropic"))
    body = await sent_body(server, model, ctx(user("q"), system="S", tools=[READ_TOOL]))
    ephemeral = {"type": "ephemeral"}
    assert body["messages"][0] == {
        "role": "system",
        "content": [{"type": "text", "text": "S", "cache_control": ephemeral}],
    }
    assert body["tools"][-1]["cache_control"] == ephemeral
    assert body["messages"][-1]["content"][-1]["cache_control"] == ephemeral
    uncached = await sent_body(server, model, ctx(user("q"), system="S"), cache_retention="none")
    assert "cache_control" not in str(uncached)


async def test_prompt_cache_key_mode(server: ScriptedServer) -> None:
    auto = make_model(server, "custom")
    assert "prompt_cache_key" not in await sent_body(server, auto, ctx(user()), session_id="s-1")
    enabled = make_model(server, "custom", compat=ModelCompat(prompt_cache_key_mode="enabled"))
    assert (await sent_body(server, enabled, ctx(user()), session_id="s-1"))["prompt_cache_key"] == "s-1"
    disabled = make_model(
        server, "custom", compat=ModelCompat(prompt_cache_key_mode="disabled", supports_long_cache_retention=True)
    )
    body = await sent_body(server, disabled, ctx(user()), session_id="s-1", cache_retention="long")
    assert "prompt_cache_key" not in body and body["prompt_cache_retention"] == "24h"
    long_auto = await sent_body(server, auto, ctx(user()), session_id="s-1", cache_retention="long")
    assert long_auto["prompt_cache_key"] == "s-1"


@pytest.mark.parametrize("text", ["", "  \n\t"])
async def test_empty_or_blank_tool_output_is_sent_as_a_placeholder(server: ScriptedServer, text: str) -> None:
    model = make_model(server)
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    result = ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text=text)] if text else [])
    body = await sent_body(
        server, model, ctx(user(), assistant(model, call, stop="toolUse"), result, tools=[READ_TOOL])
    )
    assert body["messages"][-1]["content"] == "(no tool output)"


def _system_history(model: Any) -> Any:
    first = SystemMessage(content="Base.", sections={"rules": "Rule one."}, tools_added=[READ_TOOL])
    update = SystemMessage(sections={"rules": "Rule two.", "old": None}, tools_removed=[ToolReference(name="read")])
    return ctx(first, user("a"), assistant(model, TextContent(text="b")), update, user("c"))


async def test_system_messages_fold_into_the_leading_prompt_by_default(server: ScriptedServer) -> None:
    model = make_model(server, "custom")
    body = await sent_body(server, model, _system_history(model))
    assert body["messages"][0] == {"role": "system", "content": "Base.\n\nRule two."}
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert "tools" not in body  # read was removed by the later system message


async def test_system_messages_in_place_where_the_model_accepts_them(server: ScriptedServer) -> None:
    model = make_model(server, "custom", compat=ModelCompat(supports_mid_convo_system_messages=True))
    body = await sent_body(server, model, _system_history(model))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "system", "user"]
    assert body["messages"][0]["content"] == "Base.\n\nRule one."
    assert body["messages"][3]["content"] == (
        'Updated system prompt section "rules":\n\nRule two.\n\nRemoved system prompt section "old".'
    )


async def test_malformed_final_tool_arguments_are_reported_not_dropped(server: ScriptedServer) -> None:
    server.queue(
        reply(
            chunk({"role": "assistant", "content": None}),
            chunk(tool_delta(0, call_id="call_1", name="read", args='{"path": "a.txt"')),
            chunk(tool_delta(0, args=', "x": }')),
            chunk({}, "tool_calls"),
        )
    )
    _, message = await run(make_model(server), ctx(user(), tools=[READ_TOOL]))
    call = message.content[-1]
    assert isinstance(call, ToolCall)
    assert call.arguments == {}
    assert call.arguments_error is not None
    assert call.arguments_error.endswith('\n\nReceived arguments:\n{"path": "a.txt", "x": }')
    from pi.ai.validation import ToolValidationError, check_tool_call_arguments

    with pytest.raises(ToolValidationError) as caught:
        check_tool_call_arguments(call.name, call.arguments_error)
    assert str(caught.value).startswith('Invalid arguments for tool "read": Expecting value')
