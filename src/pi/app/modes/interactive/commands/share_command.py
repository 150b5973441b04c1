"""/share: the session as a Radius artifact or a secret GitHub gist, with the link to it.

`sessionShareDestination` picks where: ``radius`` uploads to Radius (see `share_radius`) and needs
a Radius login or key; ``gist`` goes through the GitHub CLI; ``auto`` (the default) uploads to
Radius when a Radius credential is configured and makes a gist otherwise. For a gist the session is
exported to HTML in a temporary `session.html`, uploaded with `gh gist create --public=false`, and
the link is shown as `Share URL: <viewer>#<gist id>` (the viewer is `PI_SHARE_VIEWER_URL`, else
https://pi.dev/session/) followed by `Gist: <url>`. Without `gh`, or with `gh` not logged in, the
message says what to do.
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


async def share_to_radius(api: InteractiveApi) -> bool:
    """Upload to Radius when a Radius credential is configured; False (nothing done) when none is."""
    from pi.app.modes.interactive.commands import share_radius as radius
    from pi.app.oauth.errors import OAuthError

    try:
        token = await radius.radius_token(api.session)
    except (OAuthError, OSError) as exc:  # a failed refresh of the stored login: say so, no silent fall back
        api.show_error(f"Failed to upload Radius artifact: {exc}")
        return True
    if not token:
        return False
    try:
        body = radius.share_jsonl(api.session)
    except (OSError, ValueError) as exc:
        api.show_error(f"Failed to export session: {exc}")
        return True
    from pi.ai.providers.radius import gateway_url

    api.set_working(radius.UPLOADING)
    try:
        url = await radius.upload_artifact(body, token, gateway_url())
    except radius.ShareUploadError as exc:
        api.show_error(f"Failed to upload Radius artifact: {exc}")
        return True
    finally:
        api.set_working(None)
    api.show_status(f"Share URL: {url}")
    return True


async def cmd_share(api: InteractiveApi, args: str) -> None:
    destination = api.settings.get("sessionShareDestination", "auto")
    if not api.session.messages:
        api.show_error("Nothing to share yet: the session has no messages.")
        return
    if destination != "gist":
        if await share_to_radius(api):
            return
        if destination == "radius":
            from pi.app.modes.interactive.commands.share_radius import NOT_CONFIGURED

            api.show_error(NOT_CONFIGURED)
            return
    api.set_working(SHARING)
    try:
        await share_as_gist(api)
    finally:
        api.set_working(None)


HANDLERS: dict[str, Handler] = {"share": cmd_share}

__all__ = ["GH_LOGGED_OUT", "GH_MISSING", "HANDLERS", "cmd_share", "share_to_radius", "viewer_url"]
