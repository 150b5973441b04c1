"""Grammar-constrained ("custom") tools over the Responses APIs, against loopback servers.

Models whose compat says ``supportsOpenAIGrammarTools`` get a tool with a grammar variant as a
``custom`` tool, stream its call as raw input, and have the call and its result replayed as
``custom_tool_call`` / ``custom_tool_call_output``; every other model keeps the JSON function.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi.ai.models import get_model
from pi.ai.options import StreamOptions, make_options
from pi.ai.providers.openai_responses import PROVIDER
from pi.ai.registry import require_api_provider
from pi.ai.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    ModelCompat,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi.app.codemode.options import CONSTRAINED_SAMPLING, SOURCE_GRAMMAR
from tests.ai.providers.snapshots import arguments_at_each_delta
from tests.ai.providers.test_openai_responses import _frames, created, finished, make_model, text_item
from tests.app.oauth.wire import codex_events, codex_jwt
from tests.support.http_server import ScriptedResponse, ScriptedServer

CODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "Raw JavaScript source."}},
    "required": ["code"],
}


def codemode_tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "codemode",
            "description": "Run JavaScript that calls other tools",
            "parameters": CODE_SCHEMA,
            "constrainedSampling": CONSTRAINED_SAMPLING,
        }
    )


def read_tool() -> Tool:
    return Tool(name="read", description="Read a file", parameters={"type": "object", "properties": {}})


def grammar_model(server: ScriptedServer, supported: bool = True) -> Model:
    compat = ModelCompat.model_validate({"supportsOpenAIGrammarTools": True}) if supported else None
    return make_model(server, compat=compat)


def custom_call(item_id: str, call_id: str, name: str, chunks: list[str], index: int = 0) -> list[dict[str, Any]]:
    full = "".join(chunks)
    base = {"id": item_id, "type": "custom_tool_call", "call_id": call_id, "name": name}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": {**base, "input": ""}},
        *(
            {"type": "response.custom_tool_call_input.delta", "item_id": item_id, "output_index": index, "delta": c}
            for c in chunks
        ),
        {"type": "response.custom_tool_call_input.done", "item_id": item_id, "output_index": index, "input": full},
        {"type": "response.output_item.done", "output_index": index, "item": {**base, "input": full}},
    ]


async def run(model: Model, context: Context) -> tuple[list[Any], AssistantMessage]:
    result = PROVIDER.stream(model, context, make_options(api_key="sk-test"))
    events = [event async for event in result]
    return events, await result.result()


def tools_context(messages: list[Message] | None = None) -> Context:
    return Context(
        system_prompt="Be brief.",
        messages=messages or [UserMessage(content="Go")],
        tools=[codemode_tool(), read_tool()],
    )


async def test_a_capable_model_gets_the_grammar_tool_as_a_custom_tool(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_1", ["ok"]), finished())))
    await run(grammar_model(server), tools_context())
    tools = server.requests[0].json()["tools"]
    assert tools[0] == {
        "type": "custom",
        "name": "codemode",
        "description": "Run JavaScript that calls other tools",
        "format": {"type": "grammar", "syntax": "lark", "definition": SOURCE_GRAMMAR},
    }
    assert tools[1]["type"] == "function" and tools[1]["name"] == "read"


async def test_a_model_without_support_still_gets_a_function_tool(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_1", ["ok"]), finished())))
    await run(grammar_model(server, supported=False), tools_context())
    codemode = server.requests[0].json()["tools"][0]
    assert codemode == {
        "type": "function",
        "name": "codemode",
        "description": "Run JavaScript that calls other tools",
        "parameters": CODE_SCHEMA,
        "strict": False,
    }


async def test_a_streamed_custom_call_becomes_a_tool_call_with_the_code_argument(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = ['const r = await tools.read({path: "a"});\n', 'return "quote \\" and\\nnewline";']
    server.queue(
        ScriptedResponse(chunks=_frames(created(), *custom_call("ctc_1", "call_A", "codemode", chunks), finished()))
    )
    partial = arguments_at_each_delta(monkeypatch)
    events, message = await run(grammar_model(server), tools_context())
    code = "".join(chunks)
    assert message.stop_reason == "toolUse"
    assert message.content == [ToolCall(id="call_A|ctc_1", name="codemode", arguments={"code": code})]
    deltas = [event.delta for event in events if event.type == "toolcall_delta"]
    assert json.loads("".join(deltas)) == {"code": code}
    assert partial == [{"code": chunks[0]}, {"code": code}, {"code": code}]


async def test_a_custom_input_that_changes_after_streaming_fails_the_reply(server: ScriptedServer) -> None:
    events = custom_call("ctc_1", "call_A", "codemode", ["abc"])
    events[2] = {**events[2], "input": "xyz"}
    server.queue(ScriptedResponse(chunks=_frames(created(), *events, finished())))
    _, message = await run(grammar_model(server), tools_context())
    assert message.stop_reason == "error"
    assert message.error_message == 'grammar tool input for property "code" changed non-monotonically'


def second_turn() -> list[Message]:
    call = ToolCall(id="call_A|ctc_1", name="codemode", arguments={"code": "return 1"})
    reply = AssistantMessage(
        api="openai-responses", provider="openai", model="gpt-5-mini", content=[call], stop_reason="toolUse"
    )
    result = ToolResultMessage(
        tool_call_id="call_A|ctc_1", tool_name="codemode", content=[TextContent(text="Script completed")]
    )
    return [UserMessage(content="Go"), reply, result]


async def test_the_second_turn_replays_the_custom_call_and_its_output(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_2", ["done"]), finished())))
    await run(grammar_model(server), tools_context(second_turn()))
    items = server.requests[0].json()["input"]
    assert {
        "type": "custom_tool_call",
        "call_id": "call_A",
        "name": "codemode",
        "id": "ctc_1",
        "input": "return 1",
    } in items
    assert {"type": "custom_tool_call_output", "call_id": "call_A", "output": "Script completed"} in items
    assert not any(item.get("type", "").startswith("function_call") for item in items)


async def test_without_support_the_same_history_replays_as_a_function_call(server: ScriptedServer) -> None:
    server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_2", ["done"]), finished())))
    await run(grammar_model(server, supported=False), tools_context(second_turn()))
    items = server.requests[0].json()["input"]
    call = next(item for item in items if item.get("type") == "function_call")
    assert call == {
        "type": "function_call",
        "call_id": "call_A",
        "name": "codemode",
        "arguments": '{"code":"return 1"}',
    }
    assert {"type": "function_call_output", "call_id": "call_A", "output": "Script completed"} in items


async def test_a_grammar_tool_without_one_string_property_is_a_clear_error(server: ScriptedServer) -> None:
    broken = Tool.model_validate(
        {
            "name": "bad",
            "description": "d",
            "parameters": {"type": "object"},
            "constrainedSampling": CONSTRAINED_SAMPLING,
        }
    )
    _, message = await run(grammar_model(server), Context(messages=[UserMessage(content="Go")], tools=[broken]))
    assert message.stop_reason == "error"
    assert message.error_message == (
        'Tool "bad" cannot use grammar constrained sampling: '
        "grammar constrained sampling requires exactly one required string property."
    )
    assert server.requests == []


# --- Codex ----------------------------------------------------------------------------------------


def codex_model(server: ScriptedServer) -> Model:
    model = get_model("openai-codex", "gpt-6.2-sol")
    assert model is not None
    return model.model_copy(update={"base_url": f"{server.url}/backend-api"})


async def test_codex_sends_the_custom_tool_and_reads_its_call(server: ScriptedServer) -> None:
    events = custom_call("ctc_9", "call_Z", "codemode", ["return ", "42"])
    done = {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}
    server.queue(codex_events({"type": "response.created", "response": {"id": "resp_1"}}, *events, done))
    provider = require_api_provider("openai-codex-responses")
    options = StreamOptions(api_key=codex_jwt("acc-1"), extra={"transport": "sse"})
    message = await provider.stream(codex_model(server), tools_context(), options).result()
    tools = server.requests[0].json()["tools"]
    assert tools[0]["type"] == "custom" and tools[0]["format"]["syntax"] == "lark"
    assert message.content == [ToolCall(id="call_Z|ctc_9", name="codemode", arguments={"code": "return 42"})]
    assert message.stop_reason == "toolUse"
