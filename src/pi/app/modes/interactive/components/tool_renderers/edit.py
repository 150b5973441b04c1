"""The edit card: `edit <path>`, then the diff.

Once the arguments are complete — before the tool runs — the edit is applied to the file's
text in memory and the numbered diff is shown, so the user sees the change while it is pending;
a preview that cannot be made (text not found, no such file) turns the card's background to the
error colour. The final diff from the result details replaces the preview; an error shows its text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi.app.modes.interactive.components.formatting import wrap
from pi.app.modes.interactive.components.tool_renderers.base import (
    INVALID_ARG,
    BaseRenderer,
    ToolState,
    arg_text,
    colored_block,
    detail,
    display_path,
    output_lines,
    styled_arg,
    title,
)
from pi.tui.diff_view import DiffView

if TYPE_CHECKING:
    from pi.tui.theme import Theme


def preview_diff(args: dict[str, Any], cwd: str) -> tuple[bool, str]:
    """(True, numbered diff) of applying the edit arguments to the file, or (False, why not)."""
    from pi.tools.diff import generate_diff_string
    from pi.tools.edit_arguments import prepare_edit_arguments
    from pi.tools.edit_engine import EditError, Replacement, apply_edits
    from pi.tools.paths import resolve_to_cwd

    repaired = prepare_edit_arguments(args)
    path = repaired.get("path", repaired.get("file_path"))
    edits = repaired.get("edits")
    if not isinstance(path, str) or not isinstance(edits, list) or not edits:
        return False, "invalid edit arguments"
    replacements: list[Replacement] = []
    for entry in edits:
        if not isinstance(entry, dict):
            return False, "invalid edit arguments"
        old, new = entry.get("oldText"), entry.get("newText")
        if not isinstance(old, str) or not isinstance(new, str):
            return False, "invalid edit arguments"
        replacements.append(Replacement(old, new))
    try:
        with open(resolve_to_cwd(path, cwd), "rb") as handle:
            text = handle.read().decode("utf-8", "surrogateescape")
        outcome = apply_edits(text, replacements, path)
    except (OSError, EditError, ValueError) as exc:
        return False, str(exc)
    diff = generate_diff_string(outcome.base_content, outcome.new_content).diff
    return True, diff.encode("utf-8", "replace").decode("utf-8")


class EditRenderer(BaseRenderer):
    """The preview is made at the first frame after the arguments are complete, and only while no
    result is known: a resumed session, whose results come with their final diffs, reads no files."""

    def _preview(self, state: ToolState) -> tuple[bool, str] | None:
        preview: tuple[bool, str] | None = state.memo.get("preview")
        if preview is None and state.args_complete and state.result is None:
            preview = preview_diff(state.args, state.cwd)
            state.memo["preview"] = preview
        return preview

    def background(self, state: ToolState) -> str | None:
        preview = self._preview(state)
        if state.result is None and preview is not None and not preview[0]:
            return "toolErrorBg"
        return None

    def _diff(self, state: ToolState) -> str:
        result = state.result
        if result is not None and not state.is_error:
            final = detail(result.details, "diff")
            if isinstance(final, str) and final:
                return final
        preview = self._preview(state)
        if preview is not None and preview[0]:
            return preview[1]
        return ""

    def _diff_view(self, state: ToolState, theme: Theme, diff: str) -> DiffView:
        memo = state.memo.get("diff_view")
        if memo is not None and memo[0] == diff:
            view: DiffView = memo[1]
            return view
        view = DiffView(diff, theme)
        state.memo["diff_view"] = (diff, view)
        return view

    def render(self, state: ToolState, theme: Theme, width: int) -> list[str]:
        raw = arg_text(state.args, "path", "file_path")
        out = wrap(title(theme, "edit") + " " + styled_arg(theme, display_path(state, raw), "accent"), width)
        if raw == INVALID_ARG:
            return out
        diff = self._diff(state)
        if diff:
            out.append("")
            out.extend(self._diff_view(state, theme, diff).render(width))
        if state.result is not None and state.is_error:
            lines = output_lines(state.result.text)
            if lines:
                out.append("")
                out.extend(colored_block(lines, width, lambda s: theme.fg("error", s)))
        return out


__all__ = ["EditRenderer", "preview_diff"]
