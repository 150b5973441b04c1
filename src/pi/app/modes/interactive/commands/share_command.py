"""/share: the session as a secret GitHub gist, through the GitHub CLI (`gh`), with a viewer URL.

The session is exported to HTML in a temporary `session.html`, uploaded with
`gh gist create --public=false`, and the link is shown as `Share URL: <viewer>#<gist id>` (the
viewer is `PI_SHARE_VIEWER_URL`, else https://pi.dev/session/) followed by `Gist: <url>`. Without
`gh`, or with `gh` not logged in, the message says what to do. The Radius destination of pi
(`sessionShareDestination: "radius"`) has no service behind it here, so it is refused with a
pointer to the gist destination; `auto` means the gist.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

GH_MISSING = (
    "GitHub CLI (gh) is not installed. Install it from https://cli.github.com/ "
    "and run 'gh auth login' to share sessions as secret gists."
)
GH_LOGGED_OUT = "GitHub CLI is not logged in. Run 'gh auth login' first."
RADIUS_UNAVAILABLE = (
    'Sharing to Radius is not available in this version. Set "sessionShareDestination" to "gist" '
    '(or "auto") in /settings to share through a secret GitHub gist.'
)
DEFAULT_VIEWER = "https://pi.dev/session/"
SHARING = "Sharing session..."
_GIST_URL = re.compile(r"https://gist\.github\.com/\S+")


async def _run(*argv: str, timeout: float = 60.0) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except (TimeoutError, asyncio.CancelledError):
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


def viewer_url(gist_url: str) -> str:
    """`<viewer>#<gist id>` for a gist URL (the id is its last path part)."""
    base = os.environ.get("PI_SHARE_VIEWER_URL") or DEFAULT_VIEWER
    gist_id = gist_url.rstrip("/").rsplit("/", 1)[-1]
    return f"{base}#{gist_id}"


async def share_as_gist(api: InteractiveApi) -> None:
    gh = shutil.which("gh")
    if gh is None:
        api.show_error(GH_MISSING)
        return
    code, _out, _err = await _run(gh, "auth", "status")
    if code != 0:
        api.show_error(GH_LOGGED_OUT)
        return
    with tempfile.TemporaryDirectory(prefix="pi-share-") as folder:
        html = Path(folder) / "session.html"
        try:
            api.session.export_html(str(html))
        except (OSError, ValueError) as exc:
            api.show_error(f"Failed to export session: {exc}")
            return
        code, out, err = await _run(gh, "gist", "create", "--public=false", str(html))
    found = _GIST_URL.search(out)
    if code != 0 or found is None:
        detail = (err or out).strip() or f"gh exited with {code}"
        api.show_error(f"Failed to create gist: {detail}")
        return
    from pi.app.modes.interactive.commands.blocks import TextBlock

    url = found.group(0)
    api.show_notice(TextBlock([f"Share URL: {viewer_url(url)}", f"Gist: {url}"]))


async def cmd_share(api: InteractiveApi, args: str) -> None:
    destination = api.settings.get("sessionShareDestination", "auto")
    if destination == "radius":
        api.show_warning(RADIUS_UNAVAILABLE)
        return
    if not api.session.messages:
        api.show_error("Nothing to share yet: the session has no messages.")
        return
    api.set_working(SHARING)
    try:
        await share_as_gist(api)
    finally:
        api.set_working(None)


HANDLERS: dict[str, Handler] = {"share": cmd_share}

__all__ = ["GH_LOGGED_OUT", "GH_MISSING", "HANDLERS", "RADIUS_UNAVAILABLE", "cmd_share", "viewer_url"]
