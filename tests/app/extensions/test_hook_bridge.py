"""The runner joined to the session's hook chains (`install_runner_hooks`), driven through `HookChains`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi.agent.context import AgentContext
from pi.agent.hooks import AfterToolCallContext, BeforeToolCallContext
from pi.agent.tool import AgentToolResult
from pi.ai.types import AssistantMessage, TextContent, ToolCall
from pi.app.extensions.hook_bridge import HOOK_POINTS, install_runner_hooks
from pi.app.session_hooks import BeforeCompactHookEvent, HookChains, SessionHooks

from .conftest import Loaded, load_files, write


async def chains(tmp_path: Path, body: str) -> tuple[HookChains, Loaded]:
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    loaded = await load_files(write(tmp_path / "gate.py", f"def setup(pi):\n{indented}\n"))
    hooks = SessionHooks()
    install_runner_hooks(loaded.runner, hooks)
    assert all(len(getattr(hooks, point)) == 1 for point in HOOK_POINTS)
    return HookChains(hooks), loaded


def call(arguments: dict[str, Any]) -> tuple[AssistantMessage, ToolCall]:
    tool_call = ToolCall(id="c1", name="bash", arguments=arguments)
    message = AssistantMessage(content=[tool_call], api="faux", provider="faux", model="m")
    return message, tool_call


async def test_tool_call_block_and_edit_through_the_chain(tmp_path: Path) -> None:
    hook_chains, _ = await chains(
        tmp_path,
        "@pi.on('tool_call')\ndef gate(e, ctx):\n    if 'rm' in e.input['command']:\n"
        "        return {'block': True, 'reason': 'no rm'}\n    e.input['command'] += ' --dry'",
    )
    message, tool_call = call({"command": "rm -rf x"})
    blocked = await hook_chains.before_tool_call(
        BeforeToolCallContext(message, tool_call, None, AgentContext(), {"command": "rm -rf x"}), None
    )
    assert blocked is not None and (blocked.block, blocked.reason) == (True, "no rm")
    edited = {"command": "ls"}
    assert (
        await hook_chains.before_tool_call(
            BeforeToolCallContext(message, tool_call, None, AgentContext(), edited), None
        )
        is None
    )
    assert edited == {"command": "ls --dry"}


async def test_tool_call_exception_fails_the_call(tmp_path: Path) -> None:
    hook_chains, _ = await chains(
        tmp_path, "@pi.on('tool_call')\ndef gate(e, ctx):\n    raise RuntimeError('gate down')"
    )
    message, tool_call = call({"command": "ls"})
    with pytest.raises(RuntimeError, match="gate down"):
        await hook_chains.before_tool_call(BeforeToolCallContext(message, tool_call, None, AgentContext(), {}), None)


async def test_tool_result_patch_through_the_chain(tmp_path: Path) -> None:
    hook_chains, _ = await chains(
        tmp_path, "@pi.on('tool_result')\ndef redact(e, ctx):\n    return {'content': [{'type': 'text', 'text': 'x'}]}"
    )
    message, tool_call = call({"command": "ls"})
    result = AgentToolResult(content=[TextContent(text="secret")])
    after = await hook_chains.after_tool_call(
        AfterToolCallContext(message, tool_call, None, result, False, AgentContext()), None
    )
    assert after is not None
    assert after.content == [TextContent(text="x")]  # the handler's dicts, as blocks


async def test_input_context_payload_and_compaction(tmp_path: Path) -> None:
    hook_chains, _ = await chains(
        tmp_path,
        "@pi.on('input')\ndef i(e, ctx):\n    return {'action': 'transform', 'text': e.text.upper()}\n"
        "@pi.on('context')\ndef c(e, ctx):\n    return e.messages[-1:]\n"
        "@pi.on('before_provider_request')\ndef p(e, ctx):\n    return {**e.payload, 'x': 1}\n"
        "@pi.on('session_before_compact')\ndef s(e, ctx):\n    return {'compaction': {'summary': 'S',"
        " 'firstKeptEntryId': 'e9', 'tokensBefore': 5}}",
    )
    outcome = await hook_chains.input("hello", None, "rpc", None)
    assert (outcome.handled, outcome.text) == (False, "HELLO")
    stand_ins: list[Any] = ["a", "b"]  # strings for messages: the chain hands back what the handler returns
    kept: list[Any] = await hook_chains.transform_context(stand_ins, None)
    assert kept == ["b"]
    assert await hook_chains.on_payload({"m": 1}, None) == {"m": 1, "x": 1}  # type: ignore[arg-type]
    compact = await hook_chains.before_compact(
        BeforeCompactHookEvent(
            preparation=None,
            branch_entries=[],
            custom_instructions=None,
            reason="manual",
            will_retry=False,
            signal=None,
        )
    )
    assert compact is not None and compact.compaction is not None
    assert (compact.compaction.summary, compact.compaction.first_kept_entry_id) == ("S", "e9")


async def test_no_handlers_means_no_change(tmp_path: Path) -> None:
    hook_chains, _ = await chains(tmp_path, "pass")
    assert await hook_chains.on_payload({"m": 1}, None) == {"m": 1}  # type: ignore[arg-type]
    assert (await hook_chains.input("t", None, "interactive", None)).text == "t"
