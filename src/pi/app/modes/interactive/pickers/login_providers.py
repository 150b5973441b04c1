"""The provider list of `/login` and `/logout`: a `> ` search over providers, each with its login state.

A row is the provider's short name (a featured provider adds a muted `✦`), what kind of login it
is when both kinds are listed (` [API key]`, ` [subscription]`, ` [account]`, muted), and whether it
is set up: ` ✓ ` and where its credential comes from (` ✓ env: OPENAI_API_KEY`; ` ✓ configured` when
the caller does not say), ` • not configured`, or which other kind of credential it has. Eight rows
show at a time, with `(i/n)` under them when there are more; the search is typed straight into the
list, so the picker shows no key hints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from pi.app.modes.interactive.pickers.frame import CursorList, framed

if TYPE_CHECKING:
    from pi.tui.keybindings import KeybindingsManager
    from pi.tui.theme import Theme

AuthType = Literal["oauth", "api_key"]
LOGIN_TITLE = "Select provider to configure:"
LOGOUT_TITLE = "Select provider to logout:"
NO_PROVIDERS = "No providers available"
NO_LOGGED_IN = "No providers logged in. Use /login first."
NO_MATCH = "No matching providers"
MAX_VISIBLE = 8


class ProviderOption(Struct, frozen=True):
    id: str
    name: str
    auth_type: AuthType
    configured: AuthType | None = None
    """The kind of credential auth.json holds for the provider (None: nothing stored)."""
    subscription: bool = False
    source: str | None = None
    """Where the credential of kind `configured` comes from (`stored`, `env: NAME`, `models_json_key`)."""
    featured: bool = False
    """A partner provider: marked with `✦` (the caller puts it first)."""
    method_name: str | None = None
    """The sign-in method's own name, which the search matches too: an account login's flow name
    (`Anthropic (Claude Pro/Max)`, so `claude` finds Anthropic), `<name> API key` for a key."""


def search_text(option: ProviderOption) -> str:
    """What the search matches an option against: its name, id, kind and method name."""
    return f"{option.name} {option.id} {option.auth_type} {option.method_name or ''}"


def kind_label(auth_type: AuthType, subscription: bool) -> str:
    if auth_type == "api_key":
        return "API key"
    return "subscription" if subscription else "account"


def status_suffix(theme: Theme, option: ProviderOption) -> str:
    if option.configured is None:
        return theme.fg("muted", " • not configured")
    if option.configured != option.auth_type:
        return theme.fg("muted", " • ") + theme.fg(
            "warning", f"{kind_label(option.configured, option.subscription)} configured"
        )
    return theme.fg("success", f" ✓ {option.source or 'configured'}")


class LoginProviderPicker:
    """Pick a provider; `on_select(option)` or `on_cancel()`. `empty` is what an empty list says
    (by default the login or logout wording, after `title`)."""

    def __init__(
        self,
        title: str,
        options: Sequence[ProviderOption],
        theme: Theme,
        keybindings: KeybindingsManager,
        *,
        on_select: Callable[[ProviderOption], None],
        on_cancel: Callable[[], None],
        query: str = "",
        empty: str | None = None,
    ) -> None:
        self.title = title
        self.empty = empty if empty is not None else NO_LOGGED_IN if title == LOGOUT_TITLE else NO_PROVIDERS
        self.theme = theme
        self.keybindings = keybindings
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.focused = True
        self.show_kind = len({o.auth_type for o in options}) > 1
        self.list: CursorList[ProviderOption] = CursorList(
            options, search_text, theme, keybindings, max_visible=MAX_VISIBLE, query=query
        )

    def invalidate(self) -> None:
        self.list.search.invalidate()

    def handle_input(self, data: str) -> bool:
        kb = self.keybindings
        if kb.matches(data, "tui.select.confirm"):
            option = self.list.current()
            if option is not None:
                self.on_select(option)
        elif kb.matches(data, "tui.select.cancel"):
            self.on_cancel()
        else:
            return self.list.handle_navigation(data)
        return True

    def _row(self, option: ProviderOption, selected: bool) -> str:
        theme = self.theme
        label = option.name
        head = theme.fg("accent", "→ " + label) if selected else "  " + label
        if option.featured:
            head += theme.fg("muted", " ✦")
        if self.show_kind:
            head += theme.fg("muted", f" [{kind_label(option.auth_type, option.subscription)}]")
        return " " + head + status_suffix(theme, option)

    def render(self, width: int) -> list[str]:
        theme = self.theme
        body = ["", " " + theme.fg("accent", theme.bold(self.title)), ""]
        body.extend(self.list.search.render(width))  # the `> ` prompt starts at the first column
        body.append("")
        rows = self.list.window()
        for index, option in rows:
            body.append(self._row(option, index == self.list.selected))
        count = len(self.list.items)
        if count > len(rows):
            body.append(" " + theme.fg("muted", f"  ({self.list.selected + 1}/{count})"))
        if not rows:
            message = self.empty if not self.list.all_items else NO_MATCH
            body.append(" " + theme.fg("muted", "  " + message))
        body.append("")
        return framed(theme, width, body)


__all__ = [
    "LOGIN_TITLE",
    "LOGOUT_TITLE",
    "MAX_VISIBLE",
    "NO_LOGGED_IN",
    "NO_MATCH",
    "NO_PROVIDERS",
    "LoginProviderPicker",
    "ProviderOption",
    "kind_label",
    "search_text",
    "status_suffix",
]
