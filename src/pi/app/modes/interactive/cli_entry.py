"""From `pi`'s parsed arguments to the interactive mode: the context the CLI knows, then the UI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.args import Args
    from pi.app.modes.interactive.first_frame import FirstFrame


def stdio_is_terminal() -> bool:
    """Both stdin and stdout are terminals (a redirect of either selects print mode)."""
    try:
        return sys.stdin is not None and sys.stdout is not None and sys.stdin.isatty() and sys.stdout.isatty()
    except (OSError, ValueError):
        return False


def wants_interactive(args: Args, mode: str) -> bool:
    """The UI opens in a terminal unless `-p`, `--mode json|rpc`, or redirected stdin or stdout ask for print mode."""
    return mode == "text" and not args.print and stdio_is_terminal()


def _version() -> str:
    try:
        from pi import __version__

        return str(__version__)
    except ImportError:
        return "0.0.0"


def first_frame_before_session(args: Args, cwd: Path, agent_dir: Path) -> FirstFrame | None:
    """For `pi` in a terminal, the UI's first frame drawn before the session is built (None: not drawn).

    Not for runs that open a picker or a stored session first (`-r`, `--session`, `--fork`) or that
    end without the UI (`--list-models`, `--export`); see `first_frame` for what else skips it.
    """
    if not wants_interactive(args, args.mode or "text") or args.resume or args.session or args.fork:
        return None
    if args.list_models or args.export is not None:
        return None
    from pi.app.modes.interactive.first_frame import show_first_frame

    return show_first_frame(args, cwd, agent_dir, _version())


async def run_from_cli(
    session: AgentSession, args: Args, messages: list[str], images: list[Any], *, first_frame: FirstFrame | None = None
) -> int:
    """Build the interactive context from the CLI flags and settings, and run the UI.

    `first_frame`: the frame drawn before the session was built; the UI takes its terminal over.
    """
    try:
        return await _run_from_cli(session, args, messages, images, first_frame)
    except BaseException:
        if first_frame is not None:
            first_frame.close()  # idempotent: the UI restores the same terminal when it ran
        raise


async def _run_from_cli(
    session: AgentSession, args: Args, messages: list[str], images: list[Any], first_frame: FirstFrame | None
) -> int:
    from pi.app.modes.interactive import run_interactive_mode
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.modes.interactive.missing_cwd import resolve_at_startup
    from pi.app.paths import agent_dir

    settings = session.settings
    tui_mode = args.tui_mode or settings.get("tuiMode")
    # `--session` and `-r` (which picks one) name a stored session; its folder may be gone.
    asks = bool(args.session) and first_frame is None
    if asks and not await resolve_at_startup(
        session, agent_dir(), tui_mode=str(tui_mode or ""), theme_name=args.use_theme
    ):
        return 0
    scope = [m.id for m, _ in session.scoped_models] if args.models is not None or settings.get("enabledModels") else []
    context = InteractiveContext(
        agent_dir=agent_dir(),
        cwd=Path(session.cwd),
        version=_version(),
        tui_mode="regular" if tui_mode == "regular" else "fullscreen",
        theme_name=args.use_theme,
        verbose=bool(args.verbose),
        initial_prompt="\n\n".join(messages) if messages else None,
        initial_images=list(images),
        no_session=bool(args.no_session),
        session_dir=args.session_dir,
        model_scope=scope,
        terminal=first_frame.take_over() if first_frame is not None else None,
    )
    from pi.app.modes.interactive.trust_prompt import untrusted_notice

    notice = untrusted_notice(Path(session.cwd), context.agent_dir, args.approve)
    if notice is not None:
        context.startup_notices.append(notice)
    return await run_interactive_mode(session, context)


__all__ = ["first_frame_before_session", "run_from_cli", "stdio_is_terminal", "wants_interactive"]
