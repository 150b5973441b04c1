"""The worker process and its line protocol, driven directly over the pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from pi.app.codemode import protocol
from pi.app.codemode.catalog import namespaces

READ_TOOL = {
    "name": "read",
    "identifier": "read",
    "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    "namespace": None,
    "namespaceInfo": None,
    "declaration": "Read a file\n\ndeclare function read(args: { path?: string }): Promise<string>;",
}


def start(code: str, tools: list[dict[str, Any]] | None = None, store: dict[str, str] | None = None) -> bytes:
    listed = tools or []
    return protocol.encode(protocol.start_message(code, listed, namespaces(listed), store or {}, 5000))


def run_worker(*lines: bytes) -> list[dict[str, Any]]:
    """All messages the worker writes for the given input lines (it exits after `done`)."""
    done = subprocess.run(
        [sys.executable, "-m", protocol.WORKER_MODULE], input=b"".join(lines), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    return [protocol.decode(line) for line in done.stdout.splitlines()]


def test_a_tool_call_goes_out_and_its_settled_value_comes_back_into_the_script() -> None:
    settle = protocol.encode(protocol.settle_message("1", True, "file text"))
    code = 'const r = await tools.read({path: "a"}); console.log("got", r); return r.length'
    messages = run_worker(start(code, [READ_TOOL]), settle)
    assert messages == [
        {"op": "call", "id": "1", "name": "read", "args": {"path": "a"}},
        {"op": "output", "item": {"type": "console", "level": "log", "text": "got file text"}},
        {"op": "output", "item": {"type": "text", "text": "9"}},
        {"op": "done", "ok": True, "error": None, "storeWrites": {"set": {}, "delete": []}},
    ]


def test_a_rejected_call_is_an_error_in_the_script() -> None:
    settle = protocol.encode(protocol.settle_message("1", False, "ENOENT: missing"))
    code = "try { await tools.read({path: 'x'}) } catch (e) { return e.message }"
    messages = run_worker(start(code, [READ_TOOL]), settle)
    assert messages[1] == {"op": "output", "item": {"type": "text", "text": "ENOENT: missing"}}


def test_a_promise_nothing_can_settle_fails_at_once() -> None:
    messages = run_worker(start("await new Promise(() => {})"))
    assert messages[-1]["ok"] is False
    assert "nothing can settle" in messages[-1]["error"]


def test_errors_carry_name_message_and_stack() -> None:
    messages = run_worker(start("function f() { null.x }\nf()"))
    error = messages[-1]["error"]
    assert error.startswith("TypeError: cannot read property 'x' of null\n")
    assert "<input>:2" in error


def test_syntax_errors_fail_the_script() -> None:
    messages = run_worker(start("return ("))
    assert messages[-1]["ok"] is False
    assert messages[-1]["error"].startswith("SyntaxError:")


def test_allocating_past_the_heap_limit_is_out_of_memory() -> None:
    messages = run_worker(start("let a = []; while (true) a.push(new Array(1e6).fill(1.5))"))
    assert messages[-1]["error"].startswith("InternalError: out of memory")


def test_store_and_load_start_from_the_given_values_and_report_writes() -> None:
    code = 'store("k", {a: 1}); store("old", undefined); text(load("j")); exit(); text("never")'
    messages = run_worker(start(code, store={"j": json.dumps(5), "old": "1"}))
    assert messages[0] == {"op": "output", "item": {"type": "text", "text": "5"}}
    assert messages[-1] == {
        "op": "done",
        "ok": True,
        "error": None,
        "storeWrites": {"set": {"k": {"a": 1}}, "delete": ["old"]},
    }


def test_store_values_over_the_limit_are_a_range_error() -> None:
    messages = run_worker(start('store("big", "x".repeat(300000))'))
    assert messages[-1]["error"].startswith("RangeError: store() value")


def test_all_tools_describe_tool_and_search_tools() -> None:
    weather = {
        **READ_TOOL,
        "name": "mcp__w-x__get_weather",
        "identifier": "mcp__w_x__get_weather",
        "description": "Current weather for a city",
        "namespace": "mcp__w_x",
        "namespaceInfo": {"name": "mcp__w_x", "identifier": "mcp__w_x", "aliases": ["w-x"]},
        "declaration": "weather decl",
    }
    code = (
        "text(ALL_TOOLS.map(t => t.name).join(','));"
        "text(describeTool('mcp__w_x__get_weather'));"
        "text(searchTools('weather city').map(t => t.name));"
        "text(String(describeTool('nope')));"
        "text(describeNamespace('w-x').tools);"
        "text(typeof tools['mcp__w-x__get_weather'])"
    )
    items = [m["item"]["text"] for m in run_worker(start(code, [READ_TOOL, weather])) if m["op"] == "output"]
    assert items[0] == "read,mcp__w_x__get_weather"
    assert items[1] == "weather decl"
    assert json.loads(items[2]) == ["mcp__w_x__get_weather"]
    assert items[3] == "undefined"
    assert json.loads(items[4]) == ["mcp__w_x__get_weather"]
    assert items[5] == "function"


def test_image_accepts_inline_png_and_rejects_remote_urls() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    code = (
        f'image("data:image/png;base64,{png}");'
        ' try { image("https://x/y.png") } catch (e) { text(e.name + ": " + e.message) }'
    )
    messages = run_worker(start(code))
    assert messages[0]["item"] == {"type": "image", "data": png, "mimeType": "image/png"}
    assert messages[1]["item"]["text"].startswith("TypeError: image() does not fetch remote URLs")
