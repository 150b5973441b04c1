"""The transcript: one container of message views, tool cards and notices, in the order they happened.

`ChatView` is what the rest of the UI talks to: it creates the right component for each thing
(user message, assistant reply, tool call, status, warning, error) and keeps the global display
toggles (tool output expanded, thinking hidden) applied to old and new components alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.assistant_message import ABORTED, AssistantMessageView
from pi.app.modes.interactive.components.bash_block import UserBashView
from pi.app.modes.interactive.components.notices import ErrorLine, StatusLine, WarningLine
from pi.app.modes.interactive.components.summaries import CompactionView
from pi.app.modes.interactive.components.tool_card import ToolCard
from pi.app.modes.interactive.components.user_message import UserMessageView
from pi.tui.component import Component, Container

if TYPE_CHECKING:
    from pi.ai.types import AssistantMessage
    from pi.tui.theme import Theme


def message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") or "" for block in content or [] if getattr(block, "type", "") == "text")


class ChatView(Container):
    """See the module docstring."""

    def __init__(
        self,
        theme: Theme,
        cwd: Path,
        *,
        output_pad: int = 1,
        hide_thinking: bool = False,
        hidden_label: str = "Thinking...",
        now: Callable[[], float] = time.monotonic,
        tool_names: Callable[[], set[str]] | None = None,
    ) -> None:
        super().__init__()
        self.tool_names = tool_names
        """The tools the session defines (a call to any other tool is shown as unknown)."""
        self.theme = theme
        self.cwd = cwd
        self.output_pad = output_pad
        self.tools_expanded = False
        self.hide_thinking = hide_thinking
        self.hidden_label = hidden_label
        self.now = now
        self.tool_cards: dict[str, ToolCard] = {}
        """Cards still waiting for their result, by call id. A card leaves once its result is in (and
        all leave when a run starts or ends), because providers reuse ids such as `call_0` every
        turn: a later call with the same id is a new call and gets a card of its own."""
        self.on_tick_needed: Callable[[], None] | None = None
        """Called when a component starts something that redraws on its own (a tool timer)."""
        self._pending: dict[int, tuple[AssistantMessageView, Any]] = {}
        self.tool_renderer_hook: Callable[[str], Any] | None = None
        """Extensions' renderer for a tool name (a card renderer, or None for pi's own)."""
        self.custom_message_hook: Callable[[Any], Component | None] | None = None
        """The view of a stored custom message (set while extensions are loaded)."""
        self.markdown_hook: Callable[[str, str, bool], str] | None = None
        """Extensions' markdown transformers: (message type, markdown, streaming) -> markdown to draw."""
        self.rebuild_hook: Callable[[Sequence[Any]], Callable[[Any], None] | None] | None = None
        """Called as `rebuild` starts; what it returns is called after each stored message is drawn."""

    def render(self, width: int) -> list[str]:
        # Streaming replies are re-laid out once per frame, not once per token.
        if self._pending:
            pending, self._pending = self._pending, {}
            for view, message in pending.values():
                view.update(self._shown(message, True))
        return super().render(width)

    def assistant_update(self, view: AssistantMessageView, message: Any) -> None:
        """Record the latest partial reply; the view takes it at the next frame."""
        self._pending[id(view)] = (view, message)

    def assistant_finish(self, view: AssistantMessageView, message: Any) -> None:
        self._pending.pop(id(view), None)
        view.finish(self._shown(message, False))

    # --- adding --------------------------------------------------------------------------------
    def _shown(self, message: Any, streaming: bool) -> Any:
        """A reply as displayed: extensions' markdown transformers applied (the stored message stays as is)."""
        if self.markdown_hook is None:
            return message
        from pi.app.modes.interactive.components.extension_markdown import displayed_reply

        return displayed_reply(message, self.markdown_hook, streaming)

    def add_user(self, text: str) -> Component:
        if self.markdown_hook is not None:
            text = self.markdown_hook("user", text, False)
        view = UserMessageView(text, self.theme, self.output_pad, expanded=self.tools_expanded)
        self.add(view)
        return view

    def assistant_start(self, message: AssistantMessage | None = None) -> AssistantMessageView:
        view = AssistantMessageView(
            self.theme, hide_thinking=self.hide_thinking, hidden_label=self.hidden_label, output_pad=self.output_pad
        )
        if message is not None:
            view.update(message)
        self.add(view)
        return view

    def tool_start(self, call_id: str, name: str, args: dict[str, Any], *, complete: bool = True) -> ToolCard:
        """The card of a call: created when its arguments start streaming, updated until they are complete."""
        card = self.tool_cards.get(call_id)
        if card is None:
            card = self._new_tool_card(call_id, name, args)
            self.tool_cards[call_id] = card
            self.add(card)
        card.set_args(args, complete)
        return card

    def _new_tool_card(self, call_id: str, name: str, args: dict[str, Any]) -> ToolCard:
        defined = name in self.tool_names() if self.tool_names is not None else None
        card = ToolCard(
            name,
            call_id,
            args,
            self.theme,
            cwd=str(self.cwd),
            expanded=self.tools_expanded,
            output_pad=self.output_pad,
            now=self.now,
            defined=defined,
        )
        renderer = self.tool_renderer_hook(name) if self.tool_renderer_hook is not None else None
        if renderer is not None:
            card.renderer = renderer
        return card

    def tool_running(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self.tool_start(call_id, name, args).start()
        if self.on_tick_needed is not None:
            self.on_tick_needed()

    def tool_update(self, call_id: str, partial: Any) -> None:
        card = self.tool_cards.get(call_id)
        if card is not None:
            card.update(partial)

    def tool_end(self, call_id: str, result: Any, is_error: bool, duration_ms: float | None) -> None:
        card = self.tool_cards.pop(call_id, None)
        if card is not None:
            card.finish(result, is_error, duration_ms)

    def fail_calls_of(self, message: Any) -> None:
        """A reply that failed or was aborted mid-call: its calls never ran, so their cards say why
        instead of waiting for a result (live, and when the chat is rebuilt from the transcript)."""
        text = ABORTED if message.stop_reason == "aborted" else (message.error_message or "Error")
        for block in message.content:
            if getattr(block, "type", "") == "toolCall":
                card = self.tool_cards.pop(block.id, None)
                if card is not None and not card.done:
                    card.fail(text)

    def forget_pending_tools(self) -> None:
        """Stop matching events to the cards drawn so far (they stay on screen as they are)."""
        self.tool_cards.clear()

    def new_bash_view(self, command: str, exclude_from_context: bool) -> UserBashView:
        """A `!` block (not yet placed: the app puts it in the chat or the pending area)."""
        return UserBashView(
            command, exclude_from_context, self.theme, expanded=self.tools_expanded, output_pad=self.output_pad
        )

    def needs_tick(self) -> bool:
        """Whether a running timer or spinner in the transcript wants a frame soon."""
        return any(card.needs_timer_tick() for card in self.tool_cards.values())

    def add_status(self, text: str) -> None:
        """A dim status line; one right after another status replaces it."""
        last = self.children[-1] if self.children else None
        if isinstance(last, StatusLine):
            last.set_text(text)
            return
        self.add(StatusLine(text, self.theme, self.output_pad))

    def add_warning(self, text: str) -> None:
        self.add(WarningLine(text, self.theme, self.output_pad))

    def add_error(self, text: str) -> None:
        self.add(ErrorLine(text, self.theme, self.output_pad))

    def add_notice(self, component: Component) -> None:
        self.add(component)

    def clear_chat(self) -> None:
        self.clear()
        self.tool_cards.clear()

    # --- global toggles ---------------------------------------------------------------------------
    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded
        for child in self.children:
            setter = getattr(child, "set_expanded", None)
            if setter is not None:
                setter(expanded)

    def set_thinking_hidden(self, hidden: bool) -> None:
        self.hide_thinking = hidden
        for child in self.children:
            if isinstance(child, AssistantMessageView):
                child.set_hide_thinking(hidden)

    # --- resume ------------------------------------------------------------------------------------
    def rebuild(self, messages: Sequence[Any]) -> None:
        """The whole transcript from stored messages (resume, or after a compaction)."""
        self.clear_chat()
        after = self.rebuild_hook(messages) if self.rebuild_hook is not None else None
        for message in messages:
            self._add_stored(message)
            if after is not None:
                after(message)

    def _add_stored(self, message: Any) -> None:
        role = getattr(message, "role", None)
        if role == "user":
            self.add_user(message_text(message.content))
        elif role == "assistant":
            view = self.assistant_start()
            view.finish(self._shown(message, False))
            for block in message.content:
                if getattr(block, "type", "") == "toolCall":
                    self.tool_start(block.id, block.name, dict(block.arguments))
            if getattr(message, "stop_reason", None) in ("error", "aborted"):
                self.fail_calls_of(message)
        elif role == "toolResult":
            self.tool_end(message.tool_call_id, message, bool(getattr(message, "is_error", False)), None)
        elif role == "bashExecution":
            bash = self.new_bash_view(message.command, bool(message.exclude_from_context))
            bash.append(message.output)
            bash.finish(message)
            self.add(bash)
        elif role == "custom" and self.custom_message_hook is not None:
            custom = self.custom_message_hook(message)
            if custom is not None:
                self.add(custom)
        elif role == "compactionSummary":
            self.add(CompactionView(message.tokens_before, message.summary, self.theme, expanded=self.tools_expanded))


__all__ = ["ChatView", "message_text"]
