"""From `pi`'s parsed arguments to the interactive mode: the context the CLI knows, then the UI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession
    from pi.app.args import Args


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


async def run_from_cli(session: AgentSession, args: Args, messages: list[str], images: list[Any]) -> int:
    """Build the interactive context from the CLI flags and settings, and run the UI."""
    from pi.app.modes.interactive import run_interactive_mode
    from pi.app.modes.interactive.context import InteractiveContext
    from pi.app.paths import agent_dir

    settings = session.settings
    tui_mode = args.tui_mode or settings.get("tuiMode")
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
    )
    from pi.app.modes.interactive.trust_prompt import untrusted_notice

    notice = untrusted_notice(Path(session.cwd), context.agent_dir, args.approve)
    if notice is not None:
        context.startup_notices.append(notice)
    return await run_interactive_mode(session, context)


__all__ = ["run_from_cli", "stdio_is_terminal", "wants_interactive"]
