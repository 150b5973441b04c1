"""The extension events the session asks at fixed points of its work, and what their answers change.

`ExtensionPoints` is installed on the session once extensions are loaded; each method is the hook a
session module calls (see `AgentSession.install_extension_points`):

- `before_tree` (navigation, gate): `session_before_tree` may cancel a move in the tree, supply the
  branch summary, or override the instructions and the label;
- `user_bash` (user shell commands, fail closed): `user_bash` may run the command elsewhere or give
  its result; a failing handler blocks the command;
- `message_end` (chained transform): a handler's `{message}` replaces the message before it is stored;
- `turn_end` / `before_settle` (boundaries): drafted entries are appended, and `continue` asks for one
  more provider request before the run settles;
- `wrap_stream` (each provider request): see `pi.app.session_extension_stream` (request events and
  virtual-model routing); boundary drafts are checked and appended by `pi.app.session_extension_boundary`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi.app import session_extension_boundary as boundary
from pi.app.extensions import events as ext
from pi.app.extensions.results import result_field
from pi.app.session_extension_stream import LEADING_SYSTEM_DROPPED, RequestEvents

if TYPE_CHECKING:
    from pi.app.extensions.runner import ExtensionRunner
    from pi.app.session_extensions import SessionExtensions


def _role(message: Any) -> Any:
    return result_field(message, "role")


class ExtensionPoints:
    """See the module docstring; reads the owner's current runner at each call (it changes on reload)."""

    def __init__(self, owner: SessionExtensions) -> None:
        self.owner = owner
        self.continue_requested = False
        """A boundary handler asked for one more provider request; honoured before the run settles."""
        self.chained_message: Any = None
        """The last message `message_end` handlers already saw (the forwarder must not repeat it)."""
        from pi.app.session_extension_nested_events import NestedRecords

        self.nested = NestedRecords()
        """Nested tool calls, until their parent's tool-result message takes them (`nestedCalls`)."""

    @property
    def runner(self) -> ExtensionRunner | None:
        return self.owner.runner

    def _has(self, event: str) -> ExtensionRunner | None:
        runner = self.runner
        return runner if runner is not None and runner.has_handlers(event) else None

    # -- gates ----------------------------------------------------------------------------------

    async def before_tree(self, preparation: dict[str, Any]) -> dict[str, Any] | None:
        """`session_before_tree`: `{cancel}`, `{summary}` (a `BranchSummaryResult`) and overrides."""
        runner = self._has("session_before_tree")
        if runner is None:
            return None
        result = await runner.emit_gate(
            ext.SessionBeforeTreeEvent(preparation=preparation, signal=None), ext.SessionBeforeTreeEventResult
        )
        if result is None:
            return None
        if result.cancel:
            return {"cancel": True}
        out: dict[str, Any] = {}
        given = result.model_fields_set
        for name in ("custom_instructions", "replace_instructions", "label"):
            if name in given:
                out[name] = getattr(result, name)
        if result.summary is not None:
            from pi.session.branch_summary import BranchSummaryResult

            summary = result.summary
            out["summary"] = BranchSummaryResult(summary=str(result_field(summary, "summary") or ""), usage=None)
        return out

    async def user_bash(self, command: str, exclude_from_context: bool) -> ext.UserBashEventResult | None:
        """`user_bash`: None runs the command here; raises (command blocked) when a handler fails."""
        runner = self._has("user_bash")
        if runner is None:
            return None
        event = ext.UserBashEvent(
            command=command, exclude_from_context=exclude_from_context, cwd=str(self.owner.session.cwd)
        )
        return await runner.emit_user_bash(event)

    # -- messages and boundaries ----------------------------------------------------------------

    async def message_end(self, message: Any) -> Any:
        """The message to store: `message_end` handlers' replacement (same role), else `message`.

        A tool result whose call made nested calls gets their record first."""
        if _role(message) == "toolResult" and hasattr(message, "nested_calls"):
            record = self.nested.take(message.tool_call_id)
            if record is not None:
                message.nested_calls = record
            nested_usage = self.nested.take_usage(message.tool_call_id)
            if nested_usage is not None:
                from pi.app.tool_usage import combine_usage

                own = message.usage
                message.usage = nested_usage if own is None else combine_usage(own, nested_usage)
        runner = self._has("message_end")
        if runner is None:
            return message
        replaced = await runner.emit_message_end(message)
        if replaced is message or _role(replaced) != _role(message):
            self.chained_message = message
            return message
        if hasattr(replaced, "model_dump"):  # validated again: a handler may have put plain dicts inside
            replaced = replaced.model_dump(by_alias=True, warnings=False)
        if isinstance(replaced, dict):
            try:
                replaced = type(message).model_validate(replaced)
            except Exception as error:
                runner.registry.report("<runtime>", "message_end", error)
                self.chained_message = message
                return message
        self.chained_message = message
        if type(replaced) is type(message) and hasattr(type(message), "model_fields"):
            # In place: the run's own context and the agent's transcript hold this very object.
            for name in type(message).model_fields:
                setattr(message, name, getattr(replaced, name))
            return message
        _swap_in_transcript(self.owner.session.agent.state.messages, message, replaced)
        self.chained_message = replaced
        return replaced

    async def turn_end(self, event: ext.TurnEndEvent) -> None:
        """`turn_end` as a boundary: fill in the entry ids, run the handlers, apply their proposal."""
        runner = self._has("turn_end")
        if runner is None:
            return
        event.message_entry_id, event.tool_result_entry_ids = self._entry_ids(event.message, event.tool_results)
        await self._boundary(runner, event)

    async def before_settle(self, outcome: str) -> bool:
        """`agent_before_settle`; True when one more provider request must be made before settling."""
        requested, self.continue_requested = self.continue_requested, False
        runner = self._has("agent_before_settle")
        if runner is not None:
            event = ext.AgentBeforeSettleEvent(entries=[], outcome=outcome)
            event.continue_ = requested
            await self._boundary(runner, event)
            requested, self.continue_requested = self.continue_requested, False
        if not requested or outcome != "completed":
            return False
        agent = self.owner.session.agent
        if self._context([])["can_continue"] or agent.has_queued_messages():
            return True
        if runner is not None:
            runner.registry.report(
                "<runtime>", "agent_before_settle", "continue requested, but nothing is left to answer"
            )
        return False

    async def _boundary(self, runner: ExtensionRunner, event: Any) -> None:
        event.context = self._context([])
        outcome = await runner.emit_boundary(event, self._context)
        if not outcome.valid:
            return
        manager = self.owner.session.session
        try:
            drafts = [boundary.check(draft, manager) for draft in outcome.entries]
        except ValueError as error:
            runner.registry.report("<runtime>", event.type, f"Invalid boundary entries: {error}")
            return
        boundary.append(self.owner.session, drafts)
        if outcome.continue_:
            self.continue_requested = True

    def _context(self, drafts: list[Any]) -> dict[str, Any]:
        """The boundary `context` with `drafts` applied (raises for a draft that cannot be applied)."""
        session = self.owner.session
        messages = boundary.preview(list(session.agent.state.messages), drafts, session.session)
        return {
            "context_entries": list(session.session.get_branch()),
            "context_messages": messages,
            "llm_messages": messages,
            "pending_messages": [*session.agent.steering_queue, *session.agent.follow_up_queue],
            "can_continue": bool(messages) and _role(messages[-1]) != "assistant",
        }

    def _entry_ids(self, message: Any, tool_results: Any) -> tuple[str | None, list[str]]:
        wanted = [message, *(tool_results or [])]
        ids: dict[int, str] = {}
        for entry in reversed(self.owner.session.session.get_branch()[-(len(wanted) + 8) :]):
            stored = getattr(entry, "message", None)
            if stored is not None and any(stored is w for w in wanted):
                ids[id(stored)] = entry.id
        return ids.get(id(message)), [ids[id(r)] for r in tool_results or [] if id(r) in ids]

    def prompt_edits(self, options: dict[str, Any]) -> PromptEdits:
        """Add the editable prompt parts to `before_agent_start`'s `system_prompt_options`."""
        session = self.owner.session
        return PromptEdits(session.cwd, list(session.agent.state.tools), session.resources, options)

    # -- provider requests ----------------------------------------------------------------------

    def wrap_stream(self, inner: Any) -> Any:
        """A stream function that runs the request events (and virtual routing) around `inner`."""
        return RequestEvents(self.owner).wrap(inner)


class PromptEdits:
    """`sections` (name -> text, in prompt order), `selected_tools` and `prompt_guidelines` as handlers
    may edit them in place; `edited_prompt` is the prompt for the run when they changed anything."""

    def __init__(self, cwd: Any, tools: list[Any], resources: Any, options: dict[str, Any]) -> None:
        from pi.app.system_prompt import build_prompt_sections

        self._tools = tools
        self._cwd, self._resources = cwd, resources
        self._sections = {part.name: part.content for part in build_prompt_sections(self._inputs(tools))}
        self._selected = [tool.name for tool in tools]
        options["sections"] = dict(self._sections)
        options["selected_tools"] = list(self._selected)
        options["prompt_guidelines"] = []

    def _inputs(self, tools: list[Any]) -> Any:
        from pi.app.session_requests import prompt_inputs

        return prompt_inputs(self._cwd, tools, self._resources)

    def edited_prompt(self, options: dict[str, Any]) -> str | None:
        """The prompt built from the edited parts, or None when no handler changed them."""
        from pi.app.system_prompt import PromptSection, build_prompt_sections, render_prompt_sections

        sections = options.get("sections")
        selected = options.get("selected_tools")
        guidelines = [str(g) for g in options.get("prompt_guidelines") or []]
        sections = dict(sections) if isinstance(sections, dict) else dict(self._sections)
        if isinstance(selected, list) and selected != self._selected:
            chosen = [tool for tool in self._tools if tool.name in selected]
            rebuilt = {part.name: part.content for part in build_prompt_sections(self._inputs(chosen))}
            for name in ("tools", "rules"):  # what follows the tools, unless a handler rewrote it too
                if sections.get(name) == self._sections.get(name):
                    if name in rebuilt:
                        sections[name] = rebuilt[name]
                    else:
                        sections.pop(name, None)
        if guidelines and "rules" in sections:
            sections["rules"] = "\n".join([sections["rules"], *(f"- {g}" for g in guidelines)])
        if sections == self._sections:
            return None
        return render_prompt_sections([PromptSection(name, str(text)) for name, text in sections.items()])


def _swap_in_transcript(messages: list[Any], old: Any, new: Any) -> None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index] is old:
            messages[index] = new
            return


__all__ = ["LEADING_SYSTEM_DROPPED", "ExtensionPoints"]
