"""The JSON shapes of RPC answers that describe the session: state, statistics, commands.

They are pi's wire shapes (camelCase keys; absent values left out), built from the session's public
properties so that the session itself knows nothing about the protocol.
"""

from __future__ import annotations

from typing import Any

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
    """`get_session_stats`: counts and usage over every entry of the session file, as pi counts them.

    Messages a compaction took out of the context, and those on other branches, still happened and
    were paid for, so they count; so does work recorded beside the conversation (`usage` entries,
    summary requests). The stored JSON is read as it is, without building message objects.
    """
    from pi.session.entries import MessageEntry
    from pi.session.usage_totals import UsageTotals, usage_entry_totals

    user = assistant = tool_calls = tool_results = total = 0
    totals = UsageTotals()
    entries = session.session.get_entries()
    for entry in entries:
        if not isinstance(entry, MessageEntry):
            continue
        total += 1
        data = entry.message_json
        role = data.get("role")
        if role == "user":
            user += 1
        elif role == "assistant":
            assistant += 1
            content = data.get("content")
            if isinstance(content, list):
                tool_calls += sum(1 for block in content if isinstance(block, dict) and block.get("type") == "toolCall")
            totals.add_json(data.get("usage"))
        elif role == "toolResult":
            tool_results += 1
            totals.add_json(data.get("usage"))  # models the tool ran itself (codemode's models.*)
    outside = usage_entry_totals(entries)
    tokens = {key: value + outside.token_dict()[key] for key, value in totals.token_dict().items()}
    out: dict[str, Any] = {
        "sessionFile": session.session_file,
        "sessionId": session.session_id,
        "userMessages": user,
        "assistantMessages": assistant,
        "toolCalls": tool_calls,
        "toolResults": tool_results,
        "totalMessages": total,
        "tokens": {**tokens, "total": sum(tokens.values())},
        "cost": totals.cost + outside.cost,
    }
    from pi.app.context_usage import context_usage

    usage = context_usage(session)
    if usage is not None:
        out["contextUsage"] = usage
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
