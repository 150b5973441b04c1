"""`ctx.ui`: what extensions may show or ask, and how it degrades where there is no terminal UI.

`UIContext` is the surface (27 methods and `theme`, extension spec §1.8). `NoOpUI` is what print
and JSON modes give: dialogs answer their default at once (`None`, or `False` for `confirm`),
everything else does nothing. RPC mode uses `pi.app.extensions.rpc_ui.RpcUI`; the terminal UI
provides its own implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal

NotifyType = Literal["info", "warning", "error"]
WidgetPlacement = Literal["aboveEditor", "belowEditor"]
UI_NOT_AVAILABLE = "UI not available"


class UIContext(Protocol):
    """The `ctx.ui` surface every mode implements."""

    @property
    def theme(self) -> Any: ...

    async def select(
        self, title: str, options: Sequence[str], *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> str | None: ...

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> bool: ...

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
    ) -> str | None: ...

    async def editor(self, title: str, prefill: str | None = None) -> str | None: ...

    def notify(self, message: str, type: NotifyType | None = None) -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, content: Any, *, placement: WidgetPlacement | None = None) -> None: ...

    def set_title(self, title: str) -> None: ...

    def set_editor_text(self, text: str) -> None: ...

    def paste_to_editor(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], None] | None = None,
        blocked: bool = False,
    ) -> Any: ...

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]: ...

    def set_working_message(self, message: str | None = None) -> None: ...

    def set_working_visible(self, visible: bool) -> None: ...

    def set_working_indicator(self, indicator: Any = None) -> None: ...

    def set_hidden_thinking_label(self, label: str | None = None) -> None: ...

    def set_footer(self, factory: Any) -> None: ...

    def set_header(self, factory: Any) -> None: ...

    def add_autocomplete_provider(self, provider: Any) -> Callable[[], None] | None: ...

    def set_editor_component(self, factory: Any) -> None: ...

    def get_editor_component(self) -> Any: ...

    def set_tools_expanded(self, expanded: bool) -> None: ...

    def get_tools_expanded(self) -> bool: ...

    def get_all_themes(self) -> list[dict[str, Any]]: ...

    def get_theme(self, name: str) -> Any: ...

    def set_theme(self, theme: Any) -> dict[str, Any]: ...


def _no_op() -> None:
    return None


class HeadlessUI:
    """The parts print, JSON and RPC modes share: no terminal, so the TUI-only methods do nothing."""

    def __init__(self, theme: Any = None) -> None:
        self._theme = theme

    @property
    def theme(self) -> Any:
        """The current theme (pi's dark theme unless the mode gave one)."""
        if self._theme is None:
            from pi.tui.theme import builtin_theme

            self._theme = builtin_theme("dark")
        return self._theme

    def get_editor_text(self) -> str:
        return ""

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], None] | None = None,
        blocked: bool = False,
    ) -> Any:
        return None

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        return _no_op

    def set_working_message(self, message: str | None = None) -> None:
        return None

    def set_working_visible(self, visible: bool) -> None:
        return None

    def set_working_indicator(self, indicator: Any = None) -> None:
        return None

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        return None

    def set_footer(self, factory: Any) -> None:
        return None

    def set_header(self, factory: Any) -> None:
        return None

    def add_autocomplete_provider(self, provider: Any) -> Callable[[], None] | None:
        return _no_op

    def set_editor_component(self, factory: Any) -> None:
        return None

    def get_editor_component(self) -> Any:
        return None

    def set_tools_expanded(self, expanded: bool) -> None:
        return None

    def get_tools_expanded(self) -> bool:
        return False

    def get_all_themes(self) -> list[dict[str, Any]]:
        return []

    def get_theme(self, name: str) -> Any:
        return None


class NoOpUI(HeadlessUI):
    """`ctx.ui` in print and JSON modes: dialogs return their default, the rest does nothing."""

    async def select(
        self, title: str, options: Sequence[str], *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> str | None:
        return None

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> bool:
        return False

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
    ) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    def notify(self, message: str, type: NotifyType | None = None) -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, content: Any, *, placement: WidgetPlacement | None = None) -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def paste_to_editor(self, text: str) -> None:
        return None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        return {"success": False, "error": UI_NOT_AVAILABLE}


__all__ = ["UI_NOT_AVAILABLE", "HeadlessUI", "NoOpUI", "NotifyType", "UIContext", "WidgetPlacement"]
