"""The JSON shapes of RPC answers that describe the session: state, statistics, commands.

They are pi's wire shapes (camelCase keys; absent values left out), built from the session's public
properties so that the session itself knows nothing about the protocol.
"""

from __future__ import annotations

from typing import Any

from pi.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from pi.app.agent_session import AgentSession


def state_json(session: AgentSession) -> dict[str, Any]:
    model = session.model
    out: dict[str, Any] = {
        "thinkingLevel": session.thinking_level,
        "isStreaming": session.is_streaming,
        "isCompacting": session.is_compacting,
        "steeringMode": session.steering_mode,
        "followUpMode": session.follow_up_mode,
        "sessionId": session.session_id,
        "autoCompactionEnabled": session.auto_compaction_enabled,
        "messageCount": session.message_count,
        "pendingMessageCount": session.pending_message_count,
    }
    if model is not None:
        out["model"] = model.to_json_dict()
    if session.session_file:
        out["sessionFile"] = session.session_file
    name = session.session_name
    if name:
        out["sessionName"] = name
    return out


def session_stats_json(session: AgentSession) -> dict[str, Any]:
    user = assistant = tool_calls = tool_results = 0
    tokens = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    cost = 0.0
    last_usage: AssistantMessage | None = None
    for message in session.messages:
        if isinstance(message, UserMessage):
            user += 1
        elif isinstance(message, AssistantMessage):
            assistant += 1
            tool_calls += sum(1 for b in message.content if b.type == "toolCall")
            usage = message.usage
            tokens["input"] += usage.input
            tokens["output"] += usage.output
            tokens["cacheRead"] += usage.cache_read
            tokens["cacheWrite"] += usage.cache_write
            cost += usage.cost.total
            if message.stop_reason not in ("error", "aborted"):
                last_usage = message
        elif isinstance(message, ToolResultMessage):
            tool_results += 1
            if message.usage is not None:  # models the tool ran itself (codemode's models.*)
                tokens["input"] += message.usage.input
                tokens["output"] += message.usage.output
                tokens["cacheRead"] += message.usage.cache_read
                tokens["cacheWrite"] += message.usage.cache_write
                cost += message.usage.cost.total
    from pi.app.cache_warming_usage import usage_entry_totals

    outside = usage_entry_totals(session.session.get_entries())  # refreshes etc., outside the context
    for key, value in outside.token_dict().items():
        tokens[key] += value
    cost += outside.cost
    out: dict[str, Any] = {
        "sessionFile": session.session_file,
        "sessionId": session.session_id,
        "userMessages": user,
        "assistantMessages": assistant,
        "toolCalls": tool_calls,
        "toolResults": tool_results,
        "totalMessages": len(session.messages),
        "tokens": {**tokens, "total": sum(tokens.values())},
        "cost": cost,
    }
    model = session.model
    if model is not None:
        from pi.session.tokens import calculate_context_tokens

        used = calculate_context_tokens(last_usage.usage) if last_usage is not None else None
        window = model.context_window
        out["contextUsage"] = {
            "tokens": used,
            "contextWindow": window,
            "percent": (used / window * 100) if used is not None and window else None,
        }
    return out


def _source_info(path: str, source: str) -> dict[str, Any]:
    scope = "project" if source == "project" else "user"
    return {"path": path, "source": source, "scope": scope, "origin": "top-level"}


def commands_json(session: AgentSession) -> list[dict[str, Any]]:
    """Extension commands (load order, `name:N` for shared names), then prompt templates, then skills."""
    commands: list[dict[str, Any]] = []
    runner = session.extension_runner
    if runner is not None:
        commands.extend(info.to_json_dict() for info in runner.registry.command_infos())
    for template in session.resources.templates:
        commands.append(
            {
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "sourceInfo": _source_info(str(template.path), str(template.source)),
                "location": template.source,
                "path": str(template.path),
            }
        )
    for skill in session.resources.skills:
        commands.append(
            {
                "name": f"skill:{skill.name}",
                "description": skill.description,
                "source": "skill",
                "sourceInfo": _source_info(str(skill.path), str(skill.source)),
                "location": skill.source,
                "path": str(skill.path),
            }
        )
    return commands


__all__ = ["commands_json", "session_stats_json", "state_json"]
