"""Grammar-constrained ("custom") tools over Chat Completions, against a loopback server.

A model whose compat says ``supportsOpenAIGrammarTools`` gets a tool with a grammar variant as a
``custom`` tool; its call streams as ``tool_calls`` entries carrying ``custom.input`` text, becomes
an ordinary tool call whose one string argument holds that text, and is replayed as a ``custom``
call. Every other model keeps the JSON function.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi.ai.types import Model, ModelCompat, SystemMessage, TextContent, ToolCall, ToolReference, ToolResultMessage
from pi.app.codemode.options import SOURCE_GRAMMAR
from tests.ai.providers.snapshots import arguments_at_each_delta
from tests.ai.providers.test_grammar_tools_responses import CODE_SCHEMA, codemode_tool, read_tool
from tests.ai.providers.test_openai_completions import (
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


def grammar_model(server: ScriptedServer, supported: bool = True) -> Model:
    compat = ModelCompat.model_validate({"supportsOpenAIGrammarTools": True}) if supported else None
    return make_model(server, model_id="gpt-5.4", compat=compat)


def custom_delta(index: int, text: str, *, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    """One streamed piece of a custom tool call; the first names the call."""
    call: dict[str, Any] = {"index": index, "custom": {"input": text}}
    if call_id is not None:
        call.update(id=call_id, type="custom")
        call["custom"]["name"] = name
    return {"tool_calls": [call]}


async def test_a_capable_model_gets_the_grammar_tool_as_a_custom_tool(server: ScriptedServer) -> None:
    body = await sent_body(server, grammar_model(server), ctx(user("go"), tools=[codemode_tool(), read_tool()]))
    assert body["tools"][0] == {
        "type": "custom",
        "custom": {
            "name": "codemode",
            "description": "Run JavaScript that calls other tools",
            "format": {"type": "grammar", "grammar": {"syntax": "lark", "definition": SOURCE_GRAMMAR}},
        },
    }
    assert body["tools"][1]["type"] == "function" and body["tools"][1]["function"]["name"] == "read"


async def test_a_model_without_support_still_gets_a_function_tool(server: ScriptedServer) -> None:
    body = await sent_body(server, grammar_model(server, supported=False), ctx(user("go"), tools=[codemode_tool()]))
    assert body["tools"][0]["type"] == "function"
    assert body["tools"][0]["function"]["parameters"] == CODE_SCHEMA


async def test_a_streamed_custom_call_becomes_a_tool_call_with_the_code_argument(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = arguments_at_each_delta(monkeypatch)
    pieces = ['const r = await tools.read({path: "a"});\n', 'return "done \\"ok\\"";']
    server.queue(
        reply(
            chunk({"role": "assistant", "content": None}),
            chunk(custom_delta(0, pieces[0], call_id="call_1", name="codemode")),
            chunk(custom_delta(0, pieces[1])),
            chunk(tool_delta(1, call_id="call_2", name="read", args='{"path":"b"}')),
            chunk({}, "tool_calls"),
        )
    )
    events, message = await run(grammar_model(server), ctx(user("go"), tools=[codemode_tool(), read_tool()]))
    assert message.stop_reason == "toolUse", message.error_message
    code, read = message.content
    assert isinstance(code, ToolCall) and isinstance(read, ToolCall)
    assert (code.id, code.name, code.arguments) == ("call_1", "codemode", {"code": "".join(pieces)})
    assert (read.name, read.arguments) == ("read", {"path": "b"})
    # The deltas of the custom call are the JSON text of its arguments, piece by piece.
    deltas = [e.delta for e in events if e.type == "toolcall_delta" and e.content_index == 0]
    assert json.loads("".join(deltas)) == {"code": "".join(pieces)}
    assert seen[:2] == [{"code": pieces[0]}, {"code": "".join(pieces)}]


async def test_the_second_turn_replays_the_custom_call_and_its_result(server: ScriptedServer) -> None:
    model = grammar_model(server)
    call = ToolCall(id="call_1", name="codemode", arguments={"code": "return 1;"})
    result = ToolResultMessage(
        tool_call_id="call_1", tool_name="codemode", content=[TextContent(text="1")], is_error=False
    )
    history = ctx(user("go"), assistant(model, call, stop="toolUse"), result, tools=[codemode_tool()])
    body = await sent_body(server, model, history)
    sent_call, sent_result = body["messages"][1], body["messages"][2]
    assert sent_call["tool_calls"] == [
        {"id": "call_1", "type": "custom", "custom": {"name": "codemode", "input": "return 1;"}}
    ]
    assert sent_result == {"role": "tool", "content": "1", "tool_call_id": "call_1"}

    plain = await sent_body(server, grammar_model(server, supported=False), history)
    function = plain["messages"][1]["tool_calls"][0]["function"]
    assert function["name"] == "codemode" and json.loads(function["arguments"]) == {"code": "return 1;"}


async def test_a_grammar_tool_removed_later_still_has_its_calls_replayed_as_custom(server: ScriptedServer) -> None:
    """The map of grammar tools comes from the conversation as written, not from the folded tool set."""
    model = grammar_model(server)
    added = SystemMessage(content="Base.", tools_added=[codemode_tool(), read_tool()])
    call = ToolCall(id="call_1", name="codemode", arguments={"code": "return 1;"})
    result = ToolResultMessage(
        tool_call_id="call_1", tool_name="codemode", content=[TextContent(text="1")], is_error=False
    )
    removed = SystemMessage(tools_removed=[ToolReference(name="codemode")])
    history = ctx(added, user("go"), assistant(model, call, stop="toolUse"), result, removed, user("next"))
    body = await sent_body(server, model, history)
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read"]  # the folded tool set
    assert body["messages"][2]["tool_calls"] == [
        {"id": "call_1", "type": "custom", "custom": {"name": "codemode", "input": "return 1;"}}
    ]


@pytest.mark.parametrize(
    "pieces",
    [
        [tool_delta(0, call_id="call_1", name="codemode", args='{"co'), custom_delta(0, "return 1;")],
        [custom_delta(0, "return 1;", call_id="call_1", name="codemode"), tool_delta(0, args='{"code"')],
    ],
    ids=["function-then-custom", "custom-then-function"],
)
async def test_a_call_that_mixes_function_arguments_and_custom_input_fails_the_reply(
    server: ScriptedServer, pieces: list[dict[str, Any]]
) -> None:
    server.queue(reply(*(chunk(piece) for piece in pieces), chunk({}, "tool_calls")))
    _, message = await run(grammar_model(server), ctx(user("go"), tools=[codemode_tool()]), max_retries=0)
    assert message.stop_reason == "error"
    assert "both function arguments and custom input" in (message.error_message or "")
