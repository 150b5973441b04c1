"""The footer: where you are (cwd, git branch, session name) and what it costs (tokens, context, model).

Line 1: the cwd (`~` for the home directory), ` (<branch>)`, ` • <name>`, cut with `...`.
Line 2: `↑in ↓out Rread Wwrite`, `CH<hit>%`, `$<cost>`, `<pct>%/<window>` with ` (auto)`, on the
left; `(<provider>) <model> • <level>` on the right, cut first when space runs out.
The totals are summed over every session entry, recomputed only when `refresh()` is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi.session.usage_totals import UsageTotals
from pi.tui.text_width import truncate_to_width, visible_width

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.tui.theme import Theme


def format_tokens(count: float) -> str:
    """Raw below 1000, `1.2k` below 10k, `12k` below 1M, `1.2M` below 10M, `12M` above."""
    if count < 1000:
        return str(int(count))
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch (or a short commit when detached), read from `.git/HEAD`."""
    for directory in [cwd, *cwd.parents]:
        dot_git = directory / ".git"
        if dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            dot_git = (directory / text.split(":", 1)[1].strip()).resolve()
        if dot_git.is_dir():
            try:
                head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if head.startswith("ref: refs/heads/"):
                return head[len("ref: refs/heads/") :]
            return head[:7] or None
    return None


class Totals(UsageTotals):
    """The session's summed usage (`UsageTotals`) and what the footer shows of the context now."""

    context_tokens: int | None = 0
    """Tokens the context holds now: the latest usable reply's usage plus an estimate of what came
    after it, or an estimate of everything before any reply reported usage (pi's reading). None
    right after a compaction, until a reply reports usage again: the old usage no longer applies."""
    last_cache_hit: float | None = None


def session_totals(session: AgentSession) -> Totals:
    """Token and cost totals over every entry of the session file, and the context use now."""
    from pi.session.tokens import estimate_context_tokens

    totals = Totals()
    for entry in session.session.get_entries():
        kind = getattr(entry, "type", "")
        if kind == "message":
            message = getattr(entry, "message_json", None) or {}
            if message.get("role") == "toolResult":  # models a tool ran itself (codemode's models.*)
                totals.add_json(message.get("usage"))
                continue
            if message.get("role") != "assistant":
                continue
            usage = message.get("usage")
            totals.add_json(usage)
            if isinstance(usage, dict) and message.get("stopReason") not in ("aborted", "error"):
                used = sum(int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))
                totals.context_tokens = used
                read = int(usage.get("cacheRead") or 0)
                prompt = read + int(usage.get("input") or 0) + int(usage.get("cacheWrite") or 0)
                totals.last_cache_hit = (100.0 * read / prompt) if read and prompt else None
        elif kind in ("usage", "compaction", "branch_summary"):
            totals.add_json(getattr(entry, "usage", None))
            if kind == "compaction":
                totals.context_tokens = None
    if totals.context_tokens is not None:  # from the transcript the agent holds (already in memory)
        totals.context_tokens = estimate_context_tokens(session.messages).tokens
    return totals


class Footer:
    """The two footer lines (see the module docstring); a third for extension statuses when set."""

    def __init__(self, session: AgentSession, theme: Theme, home: str) -> None:
        self.session = session
        self.theme = theme
        self.home = home
        self.statuses: dict[str, str] = {}
        self.totals = Totals()
        self._branch: str | None = None
        self._cache: tuple[tuple[object, ...], list[str]] | None = None
        self.refresh()

    def refresh(self) -> None:
        """Re-read the totals and the git branch (after a turn, a model change, a session switch)."""
        self.totals = session_totals(self.session)
        self._branch = git_branch(self.session.cwd)
        self._cache = None

    def invalidate(self) -> None:
        self._cache = None

    def _location(self) -> str:
        cwd = str(self.session.cwd)
        if self.home and (cwd == self.home or cwd.startswith(self.home + "/")):
            cwd = "~" + cwd[len(self.home) :]
        if self._branch:
            cwd += f" ({self._branch})"
        name = self.session.session_name
        if name:
            cwd += f" • {name}"
        return cwd

    def _usage_part(self) -> str:
        t = self.totals
        parts = []
        if t.input:
            parts.append(f"↑{format_tokens(t.input)}")
        if t.output:
            parts.append(f"↓{format_tokens(t.output)}")
        if t.cache_read:
            parts.append(f"R{format_tokens(t.cache_read)}")
        if t.cache_write:
            parts.append(f"W{format_tokens(t.cache_write)}")
        if t.last_cache_hit is not None:
            parts.append(f"CH{t.last_cache_hit:.1f}%")
        subscription = self._subscription()
        if t.cost > 0 or subscription:
            parts.append(f"${t.cost:.3f}" + (" (sub)" if subscription else ""))
        return " ".join(parts)

    def _subscription(self) -> bool:
        model = self.session.model
        if model is None:
            return False
        from pi.app.oauth.subscription import uses_subscription

        return uses_subscription(self.session.model_registry.auth, model.provider)

    def _context_part(self) -> str:
        model = self.session.model
        window = model.context_window if model is not None else 0
        auto = " (auto)" if self.session.auto_compaction_enabled else ""
        if self.totals.context_tokens is None:
            return f"?/{format_tokens(window)}{auto}"
        pct = 100.0 * self.totals.context_tokens / window if window else 0.0
        text = f"{pct:.1f}%/{format_tokens(window)}{auto}"
        if pct > 90:
            return self.theme.fg("error", text)
        if pct > 70:
            return self.theme.fg("warning", text)
        return text

    def _model_part(self, routed: tuple[str, str | None] | None) -> tuple[str, str]:
        """(provider prefix, model and level) of the right side; `routed`: where a virtual model last went."""
        model = self.session.model
        if model is None:
            return "", "no model"
        text = model.id
        if routed is not None:  # a virtual model: where its last request went, at which level
            routed_id, routed_level = routed
            text += f" → {routed_id}" + (f" • {routed_level}" if routed_level else "")
        elif model.reasoning:
            level = self.session.thinking_level
            text += " • thinking off" if level == "off" else f" • {level}"
        providers = {m.provider for m in self.session.model_registry.available_models()}
        prefix = f"({model.provider}) " if len(providers) > 1 else ""
        return prefix, text

    def render(self, width: int) -> list[str]:
        routed = self.session.routed_model()  # kept by the session where routes are recorded: no branch walk
        key = (
            width,
            self.session.session_name,
            self.session.model.id if self.session.model else None,
            self.session.thinking_level,
            routed,
            tuple(sorted(self.statuses.items())),
        )
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        lines = self._render(width, routed)
        self._cache = (key, lines)
        return lines

    def _render(self, width: int, routed: tuple[str, str | None] | None) -> list[str]:
        dim = self.theme.dim
        line1 = dim(truncate_to_width(self._location(), width))
        left = " ".join(p for p in (self._usage_part(), self._context_part()) if p)
        prefix, right = self._model_part(routed)
        left_width = visible_width(left)
        if left_width + 2 + visible_width(prefix + right) <= width:
            right = prefix + right
        room = width - left_width - 2
        if room < 1:
            line2 = dim(truncate_to_width(left, width))
        else:
            right = truncate_to_width(right, room)
            gap = width - left_width - visible_width(right)
            line2 = dim(left + " " * gap + right)
        lines = [line1, line2]
        if self.statuses:
            text = " ".join("".join(ch for ch in value if ch >= " ") for _, value in sorted(self.statuses.items()))
            lines.append(dim(truncate_to_width(text, width)))
        return lines


__all__ = ["Footer", "Totals", "format_tokens", "git_branch", "session_totals"]
