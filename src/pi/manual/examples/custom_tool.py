"""Give the model a tool of your own next to the built-in ones.

A tool is a name, a description the model reads, a pydantic model of its parameters (its JSON
schema is what the model sees), and an async function that returns the result text.

    python custom_tool.py "What time is it in UTC?"
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sys

from pydantic import BaseModel, Field

from pi.agent.tool import AgentTool, AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortSignal
from pi.ai.types import TextContent
from pi.app.sdk import CreateSessionOptions, create_agent_session


class ClockParams(BaseModel):
    utc_offset_hours: float = Field(0, description="Hours east of UTC, e.g. 2 or -5.5")


async def read_clock(
    tool_call_id: str, params: ClockParams, signal: AbortSignal | None, on_update: OnToolUpdate | None
) -> AgentToolResult:
    zone = dt.timezone(dt.timedelta(hours=params.utc_offset_hours))
    return AgentToolResult(content=[TextContent(text=dt.datetime.now(zone).isoformat(timespec="seconds"))])


CLOCK_TOOL = AgentTool(
    name="clock",
    label="Clock",
    description="The current date and time, at a given offset from UTC.",
    parameters=ClockParams,
    execute=read_clock,
    prompt_snippet="Tell the current date and time",
)


async def main(prompt: str) -> int:
    session = create_agent_session(CreateSessionOptions(custom_tools=[CLOCK_TOOL]))
    await session.prompt(prompt)
    print(session.last_assistant_text() or "")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(" ".join(sys.argv[1:]) or "What time is it in UTC?")))
