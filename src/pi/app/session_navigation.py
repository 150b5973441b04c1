"""Moving between session files and branches: new, switch (resume), fork, clone, and the tree.

Each move first stops whatever runs (so no reply of the old conversation lands in the new one), then
makes the Agent's transcript, model and thinking level those of the new branch, and reports the
move as `session_start` with its reason and the file left behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi.ai.types import UserMessage
from pi.app.session_events import SessionStartEvent, SessionStartReason
from pi.app.session_models import ModelControl
from pi.app.session_runtime import SessionCore, message_text
from pi.session.entries import BranchSummaryEntry, MessageEntry

if TYPE_CHECKING:
    from pi.app.session_compaction import Compactor
    from pi.session.branch_summary import BranchSummaryResult

NO_LEAF_TO_CLONE = "Cannot clone session: no current entry selected"
NOT_SAVED_YET = "This session has not been saved yet. Send a message before cloning or forking it."


class BranchSummaryCancelled(Exception):
    """The summary of the branch being left was aborted; the leaf did not move."""


class TreeNavigationCancelled(BranchSummaryCancelled):
    """A `session_before_tree` extension handler cancelled the move; the leaf did not move."""


TreeGate = Callable[[dict[str, Any]], Awaitable["dict[str, Any] | None"]]
"""Asked before each move in the tree with its preparation; may cancel, give a summary or override inputs."""


class Navigation:
    def __init__(
        self,
        core: SessionCore,
        models: ModelControl,
        abort: Callable[[], Awaitable[None]],
        compactor: Compactor | None = None,
    ) -> None:
        self.core = core
        self.models = models
        self._abort = abort
        self._compactor = compactor
        self.before_tree: TreeGate | None = None
        self.last_summary: tuple[BranchSummaryEntry, bool] | None = None
        """The `branch_summary` entry the latest tree move recorded, and whether an extension gave it."""

    def _previous_file(self) -> str | None:
        path = self.core.manager.get_session_file()
        return str(path) if path is not None else None

    def _require_saved(self) -> None:
        """A copy of a branch is made from the session file, as pi makes it; one that is not on disk yet
        (nothing was sent) has nothing to copy, and saying so beats a clone of only the start entries.
        Sessions kept in memory (`--no-session`) copy from memory and need no file."""
        path = self.core.manager.get_session_file()
        if path is not None and not path.exists():
            raise ValueError(NOT_SAVED_YET)

    async def _moved(self, reason: SessionStartReason, previous: str | None) -> None:
        await self.core.events.emit(SessionStartEvent(reason, previous))

    def reload_from_session(self) -> None:
        """Make the agent's context, model and thinking level those of the session's current branch.

        The messages come deferred, as on resume: a long session switched to is parsed when something
        first reads its transcript, not before the switch is answered.
        """
        core = self.core
        context = core.manager.build_deferred_context()
        core.agent.reset()
        core.agent.replace_messages(context.messages)
        if context.model is not None:
            model = core.registry.find(context.model.provider, context.model.model_id)
            if model is not None and core.registry.has_auth(model):
                self.models.restore_model(model)
        if core.manager.get_entries():
            self.models.set_thinking_level(context.thinking_level, record=False)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
    ) -> str | None:
        """Move the branch's leaf to `target_id` and make it the agent's context.

        Going to a user message goes to the point just before it and hands its text back (for the
        editor, so the user can send it again or change it); any other entry becomes the leaf.
        With `summarize`, what the abandoned branch did is summarized first and recorded as a
        `branch_summary` entry at the new position (its `fromId` the leaf left behind); a failed
        summary raises and leaves the leaf where it was, a cancelled one raises
        `BranchSummaryCancelled`.
        """
        await self._abort()
        self.last_summary = None
        manager = self.core.manager
        entry = manager.get_entry(target_id)
        if entry is None:
            raise ValueError(f"Entry {target_id} not found")
        old_leaf = manager.get_leaf_id()
        if target_id == old_leaf:
            return None
        given: BranchSummaryResult | None = None
        if self.before_tree is not None:
            decision = await self._ask_before_tree(
                old_leaf, target_id, summarize, custom_instructions, replace_instructions
            )
            custom_instructions = decision.get("custom_instructions", custom_instructions)
            replace_instructions = bool(decision.get("replace_instructions", replace_instructions))
            given = decision.get("summary") if summarize else None
            if decision.get("label") is not None:
                self.core.manager.append_label_change(target_id, decision["label"])
        summary = given
        if summarize and given is None:
            summary = await self._branch_summary(old_leaf, target_id, custom_instructions, replace_instructions)
        text: str | None = None
        new_leaf: str | None = target_id
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            text = message_text(entry.message)
            new_leaf = entry.parent_id
        if summary is not None:
            summary_id = manager.branch_with_summary(
                new_leaf, summary.summary or "", summary.details, given is not None, summary.usage
            )
            recorded = manager.get_entry(summary_id)
            if isinstance(recorded, BranchSummaryEntry):
                self.last_summary = (recorded, given is not None)
        elif new_leaf is None:
            manager.reset_leaf()
        else:
            manager.branch(new_leaf)
        self.reload_from_session()
        return text

    async def _ask_before_tree(
        self,
        old_leaf: str | None,
        target_id: str,
        summarize: bool,
        custom_instructions: str | None,
        replace_instructions: bool,
    ) -> dict[str, Any]:
        """The `before_tree` gate's decision; raises `TreeNavigationCancelled` when it cancelled."""
        from pi.session.branch_summary import collect_entries_for_branch_summary

        assert self.before_tree is not None
        branch = collect_entries_for_branch_summary(self.core.manager, old_leaf, target_id)
        preparation = {
            "target_id": target_id,
            "old_leaf_id": old_leaf,
            "common_ancestor_id": branch.common_ancestor_id,
            "entries_to_summarize": list(branch.entries),
            "user_wants_summary": summarize,
            "custom_instructions": custom_instructions,
            "replace_instructions": replace_instructions,
        }
        decision = await self.before_tree(preparation) or {}
        if decision.get("cancel"):
            raise TreeNavigationCancelled()
        return decision

    async def _branch_summary(
        self, old_leaf: str | None, target_id: str, custom_instructions: str | None, replace_instructions: bool
    ) -> BranchSummaryResult | None:
        """The summary of the branch between `old_leaf` and the common ancestor with `target_id` (None: empty)."""
        from pi.session.branch_summary import collect_entries_for_branch_summary

        if self._compactor is None or self.core.model is None:
            raise ValueError("No model available for summarization")
        branch = collect_entries_for_branch_summary(self.core.manager, old_leaf, target_id)
        if not branch.entries:
            return None
        result = await self._compactor.summarize_branch(branch, custom_instructions, replace_instructions)
        if result.aborted:
            raise BranchSummaryCancelled()
        if result.error:
            raise ValueError(result.error)
        return result

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
        if entry.parent_id is not None:
            self._require_saved()
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
        self._require_saved()
        await self._abort()
        previous = self._previous_file()
        manager.create_branched_session(leaf)
        self.reload_from_session()
        await self._moved("fork", previous)
        return {"cancelled": False}


__all__ = [
    "NOT_SAVED_YET",
    "NO_LEAF_TO_CLONE",
    "BranchSummaryCancelled",
    "Navigation",
    "TreeGate",
    "TreeNavigationCancelled",
]
