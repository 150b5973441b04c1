"""Harness overhead of the agent loop per turn, against the scripted provider.

Runs N prompts through an `Agent`, each a tool call followed by a final answer (two turns), and
subtracts the provider's own streaming time, measured in the same process by streaming the same
replies directly. What remains is the loop: events, state folding, listeners, tool dispatch and
validation. Goal: under 1 ms per turn.

    .venv/bin/python bench/agent_overhead.py [runs]
"""

from __future__ import annotations

import asyncio
import sys
import time

from pydantic import BaseModel

from pi.agent import Agent, AgentEvent, AgentTool, AgentToolResult
from pi.agent.tool import OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call, register_faux_provider
from pi.ai.stream import stream
from pi.ai.types import AssistantMessage, Context, TextContent, UserMessage

GOAL_MS = 1.0


class AddParams(BaseModel):
    a: int
    b: int


async def add(
    tool_call_id: str, params: AddParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=str(params.a + params.b))], details={"sum": params.a + params.b})


def script(runs: int) -> list[AssistantMessage]:
    replies: list[AssistantMessage] = []
    for i in range(runs):
        replies.append(faux_assistant_message(faux_tool_call("add", {"a": i, "b": 2}, id=f"call-{i}")))
        replies.append(faux_assistant_message(f"The sum is {i + 2}."))
    return replies


async def provider_only(faux: FauxProvider, runs: int) -> float:
    """Stream the same replies straight from the provider, with contexts of the same sizes."""
    faux.set_responses(script(runs))
    prompt = UserMessage(content="add them")
    started = time.perf_counter()
    for _ in range(runs):
        context = Context(messages=[prompt])
        for _turn in range(2):
            response = stream(faux.model, context)
            async for _event in response:
                pass
            context.messages.append(await response.result())
    return time.perf_counter() - started


async def through_agent(faux: FauxProvider, runs: int) -> float:
    tool = AgentTool(name="add", label="Add", description="Add two integers.", parameters=AddParams, execute=add)
    agent = Agent(model=faux.model, tools=[tool], stream_fn=stream)
    seen = [0]

    def listener(event: AgentEvent) -> None:
        seen[0] += 1

    agent.subscribe(listener)
    faux.set_responses(script(runs))
    started = time.perf_counter()
    for _ in range(runs):
        agent.reset()
        await agent.prompt("add them")
    elapsed = time.perf_counter() - started
    assert faux.pending_response_count == 0 and seen[0] > 0
    return elapsed


async def main(runs: int) -> None:
    faux = register_faux_provider()
    try:
        await through_agent(faux, 20)  # warm up imports and caches
        await provider_only(faux, 20)
        baseline = await provider_only(faux, runs)
        total = await through_agent(faux, runs)
    finally:
        faux.unregister()
    turns = runs * 2
    overhead_ms = (total - baseline) / turns * 1000
    print(f"turns: {turns}")
    print(f"provider streaming alone: {baseline / turns * 1000:.3f} ms/turn")
    print(f"agent total:              {total / turns * 1000:.3f} ms/turn")
    print(f"harness overhead:         {overhead_ms:.3f} ms/turn (goal < {GOAL_MS} ms)")
    print(f"ratio agent/provider:     {total / baseline:.2f}x")
    print("PASS" if overhead_ms < GOAL_MS else "FAIL")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
