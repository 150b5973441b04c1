"""`!cmd` and `!!cmd` from the editor: run the command, stream its output into a block, one at a time.

`!` output reaches the model with the next prompt, `!!` never (the session decides). A block
started while the agent works waits in the pending area and joins the chat when the run ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.app import InteractiveApp
    from pi.app.modes.interactive.components.bash_block import UserBashView

ALREADY_RUNNING = "A bash command is already running. Press Esc to cancel it first."


class UserBashRunner:
    """The user's own shell commands (see the module docstring)."""

    def __init__(self, app: InteractiveApp) -> None:
        self.app = app
        self.view: UserBashView | None = None
        self.running = False
        self._cancel_requested = False
        """Esc came before the command's task got to start it: it is then not started at all."""

    def start(self, text: str) -> bool:
        """Run `!cmd` / `!!cmd`; refused (the text goes back into the editor) while another one runs."""
        app = self.app
        if self.running:
            app.show_warning(ALREADY_RUNNING)
            app.editor.set_text(text)
            return False
        exclude = text.startswith("!!")
        command = text[2:] if exclude else text[1:]
        command = command.strip()
        view = app.chat.new_bash_view(command, exclude)
        if app.session.is_streaming:
            app.pending.bash_blocks.append(view)
        else:
            app.chat.add(view)
        self.view = view
        self.running = True
        self._cancel_requested = False
        app.spawn(self._run(command, exclude, view))
        app.ensure_ticking()
        app.request_render()
        return True

    def abort(self) -> None:
        """Esc while `!` runs: kill the command, or keep it from starting if its task has not run yet."""
        if self.running:
            self._cancel_requested = True
            self.app.session.abort_bash()

    async def _run(self, command: str, exclude: bool, view: UserBashView) -> None:
        try:
            if self._cancel_requested:  # nothing awaited between this test and the session taking the command
                from pi.app.session_bash import BashResult

                result = BashResult(output="", exit_code=None, cancelled=True, truncated=False)
            else:
                result = await self.app.session.execute_bash(command, exclude_from_context=exclude)
            await self.app.session.drain_events()  # every output chunk is in the block before it ends
            view.finish(result)
            self.app.footer.refresh()  # the output is now part of the context the footer measures
        finally:
            self.running = False
            self.view = None
            self.app.request_render()

    def output(self, delta: str) -> None:
        if self.view is not None:
            self.view.append(delta)


__all__ = ["ALREADY_RUNNING", "UserBashRunner"]
