"""Moving between session files and branches: new, switch (resume), fork, clone, and the tree.

Each move first stops whatever runs (so no reply of the old conversation lands in the new one), then
makes the Agent's transcript, model and thinking level those of the new branch, and reports the
move as `session_start` with its reason and the file left behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi.ai.types import UserMessage
from pi.app.session_events import SessionStartEvent, SessionStartReason
from pi.app.session_models import ModelControl
from pi.app.session_runtime import SessionCore, message_text
from pi.session.entries import MessageEntry

NO_LEAF_TO_CLONE = "Cannot clone session: no current entry selected"


class Navigation:
    def __init__(self, core: SessionCore, models: ModelControl, abort: Callable[[], Awaitable[None]]) -> None:
        self.core = core
        self.models = models
        self._abort = abort

    def _previous_file(self) -> str | None:
        path = self.core.manager.get_session_file()
        return str(path) if path is not None else None

    async def _moved(self, reason: SessionStartReason, previous: str | None) -> None:
        await self.core.events.emit(SessionStartEvent(reason, previous))

    def reload_from_session(self) -> None:
        """Make the agent's context, model and thinking level those of the session's current branch."""
        core = self.core
        context = core.manager.build_session_context()
        core.agent.reset()
        core.agent.replace_messages(context.messages)
        if context.model is not None:
            model = core.registry.find(context.model.provider, context.model.model_id)
            if model is not None and core.registry.has_auth(model):
                self.models.restore_model(model)
        if core.manager.get_entries():
            self.models.set_thinking_level(context.thinking_level, record=False)

    async def navigate_tree(self, target_id: str) -> str | None:
        """Move the branch's leaf to `target_id` and make it the agent's context.

        Going to a user message goes to the point just before it and hands its text back (for the
        editor, so the user can send it again or change it); any other entry becomes the leaf.
        """
        await self._abort()
        manager = self.core.manager
        entry = manager.get_entry(target_id)
        if entry is None:
            raise ValueError(f"Entry {target_id} not found")
        text: str | None = None
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            text = message_text(entry.message)
            if entry.parent_id is None:
                manager.reset_leaf()
            else:
                manager.branch(entry.parent_id)
        else:
            manager.branch(target_id)
        self.reload_from_session()
        return text

    def start_entries(self) -> None:
        """A new session file starts by naming its model and thinking level."""
        core = self.core
        model = core.model
        if model is not None:
            core.manager.append_model_change(model.provider, model.id)
        core.manager.append_thinking_level_change(core.agent.state.thinking_level)

    async def new_session(self, parent_session: str | None = None) -> None:
        """Start an empty conversation in a new session file."""
        await self._abort()
        previous = self._previous_file()
        self.core.manager.new_session(parent_session=parent_session)
        self.core.agent.reset()
        self.start_entries()
        await self._moved("new", previous)

    async def switch_session(self, path: str) -> None:
        """Continue the session stored at `path`."""
        await self._abort()
        previous = self._previous_file()
        self.core.manager.set_session_file(path)
        self.reload_from_session()
        await self._moved("resume", previous)

    def fork_messages(self) -> list[dict[str, str]]:
        """The user messages of the current branch, which a fork can start from."""
        out: list[dict[str, str]] = []
        for entry in self.core.manager.get_branch():
            message = entry.message if isinstance(entry, MessageEntry) else None
            if isinstance(message, UserMessage):
                out.append({"entryId": entry.id, "text": message_text(message)})
        return out

    async def fork(self, entry_id: str) -> dict[str, Any]:
        """Continue in a new session file holding the branch up to (not including) user message `entry_id`.

        Returns the text of that message, so a UI can put it back in the editor for the user to edit.
        """
        manager = self.core.manager
        entry = manager.get_entry(entry_id)
        message = entry.message if isinstance(entry, MessageEntry) else None
        if entry is None or not isinstance(message, UserMessage):
            raise ValueError(f"Entry {entry_id} is not a user message of this session; use get_fork_messages")
        await self._abort()
        previous = self._previous_file()
        if entry.parent_id is None:
            manager.new_session(parent_session=previous)
            self.core.agent.reset()
            self.start_entries()
        else:
            manager.create_branched_session(entry.parent_id)
            self.reload_from_session()
        await self._moved("fork", previous)
        return {"text": message_text(message), "cancelled": False}

    async def clone(self) -> dict[str, Any]:
        """Continue in a new session file holding the current branch as it is."""
        manager = self.core.manager
        leaf = manager.get_leaf_id()
        if leaf is None:
            raise ValueError(NO_LEAF_TO_CLONE)
        await self._abort()
        previous = self._previous_file()
        manager.create_branched_session(leaf)
        self.reload_from_session()
        await self._moved("fork", previous)
        return {"cancelled": False}


__all__ = ["NO_LEAF_TO_CLONE", "Navigation"]
