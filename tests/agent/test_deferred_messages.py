"""A transcript handed over deferred: counted without being built, built once when read, then a plain list."""

from __future__ import annotations

from pi.agent import AgentMessage
from pi.agent.messages import DeferredMessages
from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.ai.types import AssistantMessage, TextContent, UserMessage

from .helpers import make_agent


class CountingSource(DeferredMessages):
    def __init__(self, messages: list[AgentMessage]) -> None:
        self.messages = messages
        self.builds = 0

    def __len__(self) -> int:
        return len(self.messages)

    def build(self) -> list[AgentMessage]:
        self.builds += 1
        return list(self.messages)


def _history() -> list[AgentMessage]:
    return [
        UserMessage(content="first question"),
        AssistantMessage(content=[TextContent(text="first answer")], api="x", provider="p", model="m"),
    ]


def test_counting_a_deferred_transcript_builds_nothing(faux: FauxProvider) -> None:
    source = CountingSource(_history())
    agent, _ = make_agent(faux, messages=source)
    assert agent.state.message_count == 2
    assert source.builds == 0
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.messages is agent.state.messages
    assert source.builds == 1
    agent.append_message(UserMessage(content="more"))
    assert agent.state.message_count == 3 and source.builds == 1


def test_replacing_with_a_deferred_transcript_drops_the_old_list(faux: FauxProvider) -> None:
    agent, _ = make_agent(faux, messages=[UserMessage(content="old")])
    source = CountingSource(_history())
    agent.replace_messages(source)
    assert agent.state.message_count == 2 and source.builds == 0
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    agent.reset()
    assert agent.state.message_count == 0 and agent.state.messages == []


async def test_a_prompt_sends_the_deferred_history(faux: FauxProvider) -> None:
    source = CountingSource(_history())
    agent, _ = make_agent(faux, messages=source)
    faux.set_responses([faux_assistant_message("second answer")])
    await agent.prompt("second question")
    assert source.builds == 1
    sent = faux.contexts[-1].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert agent.state.message_count == 4 == len(agent.state.messages)
