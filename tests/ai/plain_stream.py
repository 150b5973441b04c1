"""Open a response through the shared HTTP layer with no retries, as the transport tests need it."""

from __future__ import annotations

from pi.ai.http import RequestSpec, Response, open_stream


async def open_plain(
    url: str, body: dict[str, object] | None = None, headers: dict[str, str] | None = None
) -> Response:
    """POST `body` (JSON) to `url` and return the open response; a failure is raised at once."""
    return await open_stream(
        RequestSpec(url=url, headers=headers or {}, body=body or {}),
        signal=None,
        max_retries=0,
        max_retry_delay_ms=0,
        provider="test",
        model_id="m",
    )
