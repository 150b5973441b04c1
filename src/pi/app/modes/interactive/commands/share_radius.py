"""/share to Radius: the current branch uploaded as a Radius artifact, visible to the user's organization.

What is uploaded is the branch as JSON lines, the way a session file reads: a fresh ``session``
header, the branch's entries from the root to the leaf (each one's ``parentId`` the entry before
it, so that the branch reads as a straight line), then one ``custom`` entry of type ``pi.share``
carrying the system prompt and the active tools' schemas, which the Radius viewer shows next to the
conversation. It is sent as ``application/x-ndjson`` to ``<gateway>/v1/artifacts`` with the
visibility and title in the query, under the Radius credential (the `/login radius` token,
refreshed when it has less than five minutes left, or a Radius API key); the answer names the
artifact's ``canonical_url``, the link to share. The gateway is ``PI_RADIUS_GATEWAY`` when set.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from pi.app.agent_session import AgentSession

UPLOADING = "Uploading to Radius..."
NOT_CONFIGURED = "Radius authentication is not configured. Run '/login radius' first."
ARTIFACT_TITLE = "Pi session"
ARTIFACT_VISIBILITY = "organization"
UPLOAD_TIMEOUT_S = 120.0
SHARE_ENTRY_TYPE = "pi.share"


class ShareUploadError(Exception):
    """The upload failed; the message is what to put after ``Failed to upload Radius artifact: ``."""


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def share_jsonl(session: AgentSession) -> bytes:
    """The current branch as JSON lines, with the trailing ``pi.share`` entry (see the module docstring)."""
    from pi.session.header import CURRENT_SESSION_VERSION, iso_now

    manager = session.session
    timestamp = iso_now()
    header = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": manager.get_session_id(),
        "timestamp": timestamp,
        "cwd": manager.get_cwd(),
    }
    lines = [_line(header)]
    parent: str | None = None
    for entry in manager.get_branch():
        data = entry.to_dict()
        data["parentId"] = parent
        lines.append(_line(data))
        parent = entry.id
    state = session.agent.state
    tools = [tool.to_tool().to_json_dict() for tool in state.tools]
    share = {
        "type": "custom",
        "customType": SHARE_ENTRY_TYPE,
        "id": secrets.token_hex(4),
        "parentId": parent,
        "timestamp": timestamp,
        "data": {
            "systemPrompt": state.system_prompt,
            "tools": [
                {"name": t["name"], "description": t["description"], "parameters": t["parameters"]} for t in tools
            ],
        },
    }
    lines.append(_line(share))
    return ("\n".join(lines) + "\n").encode("utf-8")


async def radius_token(session: AgentSession) -> str | None:
    """The Radius credential as of now: the stored login (refreshed first when about to expire), else a key.

    Raises the login's error when a needed refresh fails.
    """
    resolver = session.request_resolver()
    auth = await resolver.request_auth("radius")
    if auth is not None and auth.api_key:
        return auth.api_key
    return resolver.api_key("radius")


def artifact_url(gateway: str) -> str:
    query = urlencode({"visibility": ARTIFACT_VISIBILITY, "title": ARTIFACT_TITLE})
    return f"{gateway.rstrip('/')}/v1/artifacts?{query}"


def _failure_detail(status: int, reason: str, payload: Any) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        error = error.get("message") or error.get("code")
    if isinstance(error, str) and error:
        return error
    return reason or str(status)


async def upload_artifact(body: bytes, token: str, gateway: str) -> str:
    """POST the session to the gateway's artifacts endpoint; the artifact's URL, or ShareUploadError."""
    import httpx

    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/x-ndjson",
        "Content-Length": str(len(body)),
    }
    try:
        async with httpx.AsyncClient(timeout=UPLOAD_TIMEOUT_S) as client:
            response = await client.post(artifact_url(gateway), content=body, headers=headers)
    except httpx.HTTPError as exc:
        raise ShareUploadError(str(exc) or type(exc).__name__) from exc
    try:
        payload: Any = response.json()
    except ValueError:
        payload = None
    artifact = payload.get("artifact") if isinstance(payload, dict) else None
    if response.is_error or not isinstance(artifact, dict):
        raise ShareUploadError(_failure_detail(response.status_code, response.reason_phrase, payload))
    url = artifact.get("canonical_url")
    if not isinstance(url, str) or not url:
        raise ShareUploadError("the answer named no canonical_url for the artifact")
    return url


__all__ = [
    "ARTIFACT_TITLE",
    "ARTIFACT_VISIBILITY",
    "NOT_CONFIGURED",
    "SHARE_ENTRY_TYPE",
    "UPLOADING",
    "ShareUploadError",
    "artifact_url",
    "radius_token",
    "share_jsonl",
    "upload_artifact",
]
