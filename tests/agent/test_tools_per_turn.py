"""Tools the agent gets during a run (a tool activating others) are offered from the next turn on."""

from __future__ import annotations

from pi.agent import AgentToolResult
from pi.agent.tool import OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call

from .helpers import ContextSpy, EchoParams, echo_tool, make_agent


async def test_tools_set_during_a_run_are_declared_and_callable_in_the_next_turn(faux: FauxProvider) -> None:
    second = ContextSpy(faux_assistant_message(faux_tool_call("late", {"text": "x"}, id="c2")))
    third = ContextSpy(faux_assistant_message("done"))
    faux.set_responses([faux_assistant_message(faux_tool_call("loader", {"text": "go"}, id="c1")), second, third])
    loader = echo_tool(name="loader")
    late = echo_tool(name="late")
    agent, _ = make_agent(faux, tools=[loader])
    original = loader.execute

    async def execute(
        tool_call_id: str, params: EchoParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
    ) -> AgentToolResult:
        agent.set_tools([loader, late])
        return await original(tool_call_id, params, signal, on_update)

    loader.execute = execute
    await agent.prompt("load")
    assert [t.name for t in second.contexts[0].tools or []] == ["loader", "late"]
    results = [m for m in agent.state.messages if getattr(m, "role", None) == "toolResult"]
    assert [getattr(r, "is_error", None) for r in results] == [False, False]
