"""codemode as a grammar-constrained tool in a real `pi` run against loopback Responses and Chat
Completions servers.

A model whose compat sets `supportsOpenAIGrammarTools` gets codemode as a `custom` tool with the
Lark grammar, writes the script as raw source (`custom_tool_call`), the script runs with it as its
`code`, and the next request replays the call and its result as custom items.
"""

from __future__ import annotations

import json
from typing import Any

from pi.app.codemode.options import SOURCE_GRAMMAR
from tests.ai.providers.test_grammar_tools_completions import custom_delta
from tests.ai.providers.test_grammar_tools_responses import custom_call
from tests.ai.providers.test_openai_completions import chunk, reply, text_reply
from tests.ai.providers.test_openai_responses import _frames, created, finished, text_item
from tests.support.cli_env import Env, env
from tests.support.http_server import ScriptedResponse

__all__ = ["env"]

RESP = ["--provider", "resp", "--model", "gpt-grammar"]


def _responses_provider(env: Env, supported: bool) -> None:
    model: dict[str, Any] = {"id": "gpt-grammar", "contextWindow": 100000, "maxTokens": 4096}
    if supported:
        model["compat"] = {"supportsOpenAIGrammarTools": True}
    provider = {"baseUrl": f"{env.server.url}/v1", "api": "openai-responses", "apiKey": "k", "models": [model]}
    (env.agent_dir / "models.json").write_text(json.dumps({"providers": {"resp": provider}}))


def test_a_capable_model_writes_the_script_as_raw_source(env: Env) -> None:
    _responses_provider(env, supported=True)
    code = 'const r = await tools.bash({command: "echo raw"});\nreturn "got " + r.output.trim()'
    reply = _frames(created(), *custom_call("ctc_1", "call_1", "codemode", [code[:20], code[20:]]), finished())
    done_reply = _frames(created(), *text_item("msg_2", ["done"]), finished())
    env.server.queue(ScriptedResponse(chunks=reply), ScriptedResponse(chunks=done_reply))
    done = env.run("-p", *RESP, "--tools", "read,bash,codemode", "go")
    assert done.returncode == 0, done.stderr
    first, second = (request.json() for request in env.server.requests)
    tool = next(t for t in first["tools"] if t["name"] == "codemode")
    assert tool["type"] == "custom"
    assert tool["format"] == {"type": "grammar", "syntax": "lark", "definition": SOURCE_GRAMMAR}
    assert next(t for t in first["tools"] if t["name"] == "bash")["type"] == "function"
    items = second["input"]
    call = next(i for i in items if i.get("type") == "custom_tool_call")
    assert (call["call_id"], call["name"], call["input"]) == ("call_1", "codemode", code)
    output = next(i for i in items if i.get("type") == "custom_tool_call_output")
    assert output["call_id"] == "call_1"
    assert output["output"].startswith("Script completed") and output["output"].endswith("got raw")


def test_without_the_compat_flag_codemode_is_a_json_function(env: Env) -> None:
    _responses_provider(env, supported=False)
    env.server.queue(ScriptedResponse(chunks=_frames(created(), *text_item("msg_1", ["ok"]), finished())))
    done = env.run("-p", *RESP, "--tools", "read,bash,codemode", "go")
    assert done.returncode == 0, done.stderr
    tool = next(t for t in env.server.requests[0].json()["tools"] if t["name"] == "codemode")
    assert tool["type"] == "function" and tool["parameters"]["required"] == ["code"]


def test_over_chat_completions_the_script_is_raw_source_too(env: Env) -> None:
    model = {"id": "gpt-grammar", "contextWindow": 100000, "maxTokens": 4096}
    model["compat"] = {"supportsOpenAIGrammarTools": True}
    provider = {"baseUrl": f"{env.server.url}/v1", "api": "openai-completions", "apiKey": "k", "models": [model]}
    (env.agent_dir / "models.json").write_text(json.dumps({"providers": {"chat": provider}}))
    code = 'const r = await tools.bash({command: "echo raw"});\nreturn "got " + r.output.trim()'
    call = reply(
        chunk(custom_delta(0, code[:20], call_id="call_1", name="codemode")),
        chunk(custom_delta(0, code[20:])),
        chunk({}, "tool_calls"),
    )
    env.server.queue(call, text_reply("done"))
    done = env.run("-p", "--provider", "chat", "--model", "gpt-grammar", "--tools", "read,bash,codemode", "go")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    first, second = (request.json() for request in env.server.requests)
    tool = next(t for t in first["tools"] if t.get("custom", {}).get("name") == "codemode")
    assert tool["custom"]["format"] == {"type": "grammar", "grammar": {"syntax": "lark", "definition": SOURCE_GRAMMAR}}
    replayed = next(m for m in second["messages"] if m.get("tool_calls"))
    assert replayed["tool_calls"] == [{"id": "call_1", "type": "custom", "custom": {"name": "codemode", "input": code}}]
    result = next(m for m in second["messages"] if m["role"] == "tool")
    assert result["tool_call_id"] == "call_1" and result["content"].endswith("got raw")
