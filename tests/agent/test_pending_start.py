"""The agent loop at pi 1.6.0: a streamed reply starts "pending" (delta-1.6 §2.4); no reset mid-run (§11.3)."""

from __future__ import annotations

import asyncio
import re

import pytest

from pi.agent import MessageEndEvent, MessageStartEvent
from pi.agent.agent import RESET_WHILE_RUNNING
from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage
from tests.agent.helpers import make_agent


async def test_message_start_says_pending_and_message_end_says_stop(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message("streamed words")])
    agent, rec = make_agent(faux)
    await agent.prompt("go")
    starts = [
        e.message for e in rec.events if isinstance(e, MessageStartEvent) and isinstance(e.message, AssistantMessage)
    ]
    ends = [e.message for e in rec.events if isinstance(e, MessageEndEvent) and isinstance(e.message, AssistantMessage)]
    assert [m.stop_reason for m in starts] == ["pending"]
    assert [m.stop_reason for m in ends] == ["stop"]
    final = agent.state.messages[-1]
    assert isinstance(final, AssistantMessage) and final.stop_reason == "stop"


async def test_reset_is_refused_while_a_prompt_runs(faux: FauxProvider) -> None:
    """delta-1.6 §11.3: `Agent.reset()` rejects while running, and works again once idle."""
    faux.tokens_per_second = 20
    faux.set_responses([faux_assistant_message("a slow reply " * 5)])
    agent, _ = make_agent(faux)
    streaming = asyncio.Event()
    agent.subscribe(
        lambda event: (
            streaming.set()
            if isinstance(event, MessageStartEvent) and isinstance(event.message, AssistantMessage)
            else None
        )
    )
    run = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(streaming.wait(), 20)
    with pytest.raises(RuntimeError, match=re.escape(RESET_WHILE_RUNNING)):
        agent.reset()
    agent.abort()
    await run
    agent.reset()
    assert agent.state.messages == []
