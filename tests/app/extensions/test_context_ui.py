"""Context objects, the no-op UI of print/JSON, and the RPC UI wire protocol (§1.7-§1.9, AC 14, 15)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi.ai.abort import AbortController
from pi.app.extensions.context import ExtensionCommandContext, ExtensionContext, ExtensionToolContext
from pi.app.extensions.errors import STALE_CONTEXT
from pi.app.extensions.registry import ExtensionRegistry
from pi.app.extensions.rpc_ui import RpcUI
from pi.app.extensions.runtime import ExtensionRuntime
from pi.app.extensions.ui import NoOpUI


class Host:
    """A session double for ExtensionContextHost."""

    def __init__(self, mode: str = "print") -> None:
        self.mode = mode
        self.ui = NoOpUI()
        self.shutdowns = 0

    def get_ui(self) -> Any:
        return self.ui

    def get_mode(self) -> Any:
        return self.mode

    def get_cwd(self) -> str:
        return "/work"

    def get_session_manager(self) -> Any:
        return "sm"

    def get_model_registry(self) -> Any:
        return "registry"

    def get_model(self) -> Any:
        return None

    def get_scoped_models(self) -> list[dict[str, Any]]:
        return []

    def get_thinking_level(self) -> str:
        return "off"

    def is_idle(self) -> bool:
        return True

    def is_project_trusted(self) -> bool:
        return False

    def get_signal(self) -> Any:
        return None

    def abort(self) -> None:
        return None

    def has_pending_messages(self) -> bool:
        return False

    def shutdown(self) -> None:
        self.shutdowns += 1

    def get_context_usage(self) -> dict[str, Any] | None:
        return None

    def compact(self, custom_instructions: Any, on_complete: Any, on_error: Any) -> None:
        return None

    def get_system_prompt(self) -> str:
        return "prompt"


def runtime() -> ExtensionRuntime:
    return ExtensionRuntime(ExtensionRegistry(), Path("/work"))


async def test_print_mode_context_and_no_op_ui() -> None:
    """AC 15 at this layer."""
    host = Host("print")
    ctx = ExtensionContext(host, runtime())
    assert (ctx.has_ui, ctx.mode, ctx.cwd, ctx.get_system_prompt()) == (False, "print", "/work", "prompt")
    assert await ctx.ui.confirm("t", "m") is False
    assert await ctx.ui.select("t", ["a"]) is None
    assert await ctx.ui.input("t") is None and await ctx.ui.editor("t") is None
    assert ctx.ui.get_editor_text() == "" and ctx.ui.get_tools_expanded() is False
    assert ctx.ui.set_theme("dark") == {"success": False, "error": "UI not available"}
    assert ctx.ui.get_all_themes() == [] and ctx.ui.get_theme("x") is None
    assert ctx.ui.theme is not None
    ctx.shutdown()
    assert host.shutdowns == 1  # the host decides it is a no-op in print mode
    assert ExtensionContext(Host("rpc"), runtime()).has_ui is True


async def test_stale_context_raises_everywhere() -> None:
    rt = runtime()
    ctx = ExtensionCommandContext(Host(), rt, commands=None)  # type: ignore[arg-type]
    tool_ctx = ExtensionToolContext(Host(), rt)
    assert (await tool_ctx.execute_tool("read", {}))["content"][0]["text"] == (
        "Nested tool calls are not available in this context"
    )
    rt.invalidate()
    for action in (lambda: ctx.cwd, lambda: ctx.ui, lambda: ctx.is_idle(), lambda: tool_ctx.tools):
        with pytest.raises(Exception) as stale:
            action()
        assert str(stale.value) == STALE_CONTEXT
    with pytest.raises(Exception, match="stale after session replacement"):
        await ctx.reload()


class Wire:
    """Collects request lines as the RPC writer would print them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.arrived: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def __call__(self, frame: dict[str, Any]) -> None:
        self.lines.append(json.dumps(frame))
        self.arrived.put_nowait(frame)


async def test_rpc_select_wire_shape_and_reply() -> None:
    """AC 14: exact keys, no timeout key without one, the value resolves the dialog."""
    wire = Wire()
    ui = RpcUI(wire)
    pending = asyncio.ensure_future(ui.select("Allow dangerous command?", ["Allow", "Block"]))
    request = await wire.arrived.get()
    assert list(request) == ["type", "id", "method", "title", "options"]
    assert (request["type"], request["method"], request["options"]) == (
        "extension_ui_request",
        "select",
        ["Allow", "Block"],
    )
    assert ui.handle_response({"type": "extension_ui_response", "id": "unknown", "value": "Block"}) is False
    assert ui.handle_response({"type": "extension_ui_response", "id": request["id"], "value": "Allow"}) is True
    assert await pending == "Allow"
    assert ui.handle_response({"type": "extension_ui_response", "id": request["id"], "value": "late"}) is False


async def test_rpc_timeout_cancel_wrong_kind_and_abort() -> None:
    wire = Wire()
    prompts: list[tuple[str, str, str | None]] = []
    ui = RpcUI(wire, on_prompt=lambda phase, kind, title: prompts.append((phase, kind, title)))
    assert await ui.confirm("Clear session?", "All messages will be lost.", timeout_ms=100) is False
    request = await wire.arrived.get()
    assert list(request) == ["type", "id", "method", "title", "message", "timeout"] and request["timeout"] == 100
    assert ui.pending_ids == []
    assert prompts == [("start", "confirm", "Clear session?"), ("end", "confirm", "Clear session?")]

    pending = asyncio.ensure_future(ui.input("Enter a value", "type something..."))
    asked = await wire.arrived.get()
    assert asked["placeholder"] == "type something..."
    ui.handle_response({"type": "extension_ui_response", "id": asked["id"], "cancelled": True})
    assert await pending is None

    confirm = asyncio.ensure_future(ui.confirm("t", "m"))
    asked = await wire.arrived.get()
    ui.handle_response({"type": "extension_ui_response", "id": asked["id"], "value": "yes"})  # wrong kind
    assert await confirm is False

    controller = AbortController()
    controller.abort()
    before = len(wire.lines)
    assert await ui.select("t", ["a"], signal=controller.signal) is None
    assert len(wire.lines) == before, "an already-aborted signal sends no request"

    live = AbortController()
    aborted = asyncio.ensure_future(ui.select("t", ["a"], signal=live.signal))
    await wire.arrived.get()
    live.abort()
    assert await aborted is None


async def test_rpc_fire_and_forget_shapes() -> None:
    """AC 14: no notifyType without a type, no statusText to clear, set_theme refused."""
    wire = Wire()
    ui = RpcUI(wire)
    ui.notify("x")
    ui.notify("Command blocked by user", "warning")
    ui.set_status("my-ext", None)
    ui.set_status("my-ext", "Turn 3 running...")
    ui.set_widget("my-ext", ["a", "b"])
    ui.set_widget("my-ext", lambda tui, theme: None)  # factories cannot cross the wire
    ui.set_widget("my-ext", None, placement="belowEditor")
    ui.set_title("pi - my project")
    ui.paste_to_editor("prefilled text")
    frames = [json.loads(line) for line in wire.lines]
    for frame in frames:
        assert frame.pop("type") == "extension_ui_request" and frame.pop("id")
    assert frames == [
        {"method": "notify", "message": "x"},
        {"method": "notify", "message": "Command blocked by user", "notifyType": "warning"},
        {"method": "setStatus", "statusKey": "my-ext"},
        {"method": "setStatus", "statusKey": "my-ext", "statusText": "Turn 3 running..."},
        {"method": "setWidget", "widgetKey": "my-ext", "widgetLines": ["a", "b"]},
        {"method": "setWidget", "widgetKey": "my-ext", "widgetPlacement": "belowEditor"},
        {"method": "setTitle", "title": "pi - my project"},
        {"method": "set_editor_text", "text": "prefilled text"},
    ]
    assert ui.set_theme("light") == {"success": False, "error": "Theme switching not supported in RPC mode"}
    assert await ui.custom(lambda *a: None) is None and ui.get_editor_text() == ""


async def test_rpc_editor_has_no_timeout() -> None:
    wire = Wire()
    ui = RpcUI(wire)
    pending = asyncio.ensure_future(ui.editor("Edit some text", "Line 1\nLine 2"))
    request = await wire.arrived.get()
    assert list(request) == ["type", "id", "method", "title", "prefill"]
    ui.handle_response({"type": "extension_ui_response", "id": request["id"], "value": "done"})
    assert await pending == "done"
