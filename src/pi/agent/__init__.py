"""pi.agent: the agent loop and the stateful Agent around it.

`agent_loop` is a pure async generator of events over a context and a config; `Agent` keeps the
transcript, the queues and the listeners, and is what the modes and the SDK drive.
"""

from pi.agent.agent import Agent, AgentListener, AgentState, AgentThinkingLevel, QueueMode
from pi.agent.config import AgentLoopConfig, AgentStreamFn, ToolExecutionMode
from pi.agent.context import AgentContext
from pi.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi.agent.hooks import (
    AfterToolCall,
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCall,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi.agent.loop import agent_loop, agent_loop_continue
from pi.agent.messages import AgentMessage, CustomAgentMessage, default_convert_to_llm
from pi.agent.tool import AgentTool, AgentToolResult

__all__ = [
    "AfterToolCall",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentContext",
    "AgentEndEvent",
    "AgentEvent",
    "AgentListener",
    "AgentLoopConfig",
    "AgentMessage",
    "AgentStartEvent",
    "AgentState",
    "AgentStreamFn",
    "AgentThinkingLevel",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCall",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "CustomAgentMessage",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "QueueMode",
    "ToolExecutionEndEvent",
    "ToolExecutionMode",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "agent_loop",
    "agent_loop_continue",
    "default_convert_to_llm",
]
