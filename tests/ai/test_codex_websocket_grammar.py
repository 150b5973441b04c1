"""A grammar tool call over Codex's WebSocket: the continued request repeats the reply as custom items.

The next request sends only what is new when the conversation so far equals the last request plus
the reply as the server saw it; so a custom tool call must be repeated as ``custom_tool_call`` (not
as a function call) for the continuation to hold, and only its ``custom_tool_call_output`` is new.
"""

from __future__ import annotations

from pi.ai.options import StreamOptions
from pi.ai.registry import require_api_provider
from pi.ai.types import Context, Message, TextContent, ToolResultMessage, UserMessage
from tests.ai.codex_ws_server import CodexWebSocketServer, Turn, completed, text_events
from tests.ai.providers.test_grammar_tools_responses import codemode_tool, custom_call, read_tool
from tests.ai.test_codex_websocket import TOKEN, _fresh_cache, _model, ws
from tests.support.content import as_tool_call

__all__ = ["_fresh_cache", "ws"]


def _script(turn: Turn) -> None:
    if turn.index == 0:
        events = [
            {"type": "response.created", "response": {"id": "resp_0"}},
            *custom_call("ctc_0", "call_0", "codemode", ["return ", "1"]),
            completed("resp_0"),
        ]
    else:
        events = text_events(f"resp_{turn.index}", "done")
    for event in events:
        turn.send(event)


async def test_the_continued_request_sends_only_the_custom_call_output(ws: CodexWebSocketServer) -> None:
    ws.script = _script
    provider = require_api_provider("openai-codex-responses")
    messages: list[Message] = [UserMessage(content="Go")]
    tools = [codemode_tool(), read_tool()]
    options = StreamOptions(api_key=TOKEN, session_id="sess-g", max_retries=0, extra={"transport": "auto"})
    first = await provider.stream(_model(ws.url), Context(messages=list(messages), tools=tools), options).result()
    assert first.stop_reason == "toolUse", first.error_message
    first_call = as_tool_call(first.content[0])
    messages += [
        first,
        ToolResultMessage(tool_call_id=first_call.id, tool_name="codemode", content=[TextContent(text="1")]),
    ]
    second = await provider.stream(_model(ws.url), Context(messages=messages, tools=tools), options).result()
    assert second.stop_reason == "stop", second.error_message
    full, delta = ws.bodies()
    assert full["tools"][0]["type"] == "custom"
    assert delta["previous_response_id"] == "resp_0"
    assert delta["input"] == [{"type": "custom_tool_call_output", "call_id": "call_0", "output": "1"}]
