"""One JSON request to a classifier or image service: auth, headers, retries, abort, and the errors.

Classifier and image APIs answer a POST with one JSON document (no stream). This module sends it
with the same retry rules as chat requests (`pi.ai.http.open_stream`), lets an abort signal end it
at once, and words failures so that the user can act: which provider and address answered, and
what to change when the answer is not in the expected shape.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

from pi.ai.options import StreamOptions, apply_on_payload, merge_headers
from pi.ai.types import Model, Usage

T = TypeVar("T")


class UnexpectedResponse(Exception):
    """The server answered 2xx, but not in the shape of the API the model names."""


class RequestFailed(Exception):
    """The request could not be made or was refused; the message is complete as it stands."""


def base_url(model: Model, options: StreamOptions) -> str:
    """The model's base URL (or the one an OAuth login moved it to), account placeholders filled in."""
    url = str(options.extra.get("base_url") or model.base_url)
    env: Mapping[str, str] = {**os.environ, **(options.extra.get("env") or {})}
    if "{CLOUDFLARE_ACCOUNT_ID}" in url:
        account = env.get("CLOUDFLARE_ACCOUNT_ID")
        if not account:
            raise RequestFailed(
                f"The base URL of {model.provider}/{model.id} needs a Cloudflare account id: "
                "set CLOUDFLARE_ACCOUNT_ID (or replace the placeholder in models.json)."
            )
        url = url.replace("{CLOUDFLARE_ACCOUNT_ID}", account)
    return url.rstrip("/")


def require_key(model: Model, options: StreamOptions) -> str:
    if not options.api_key:
        raise RequestFailed(
            f"No API key for provider: {model.provider}. Set the provider's API key environment variable, "
            f"store a key with `pi auth login {model.provider}` or in auth.json, or pass --api-key."
        )
    return options.api_key


async def until_aborted(work: Awaitable[T], options: StreamOptions) -> T:
    """`work`'s result, or CancelledError as soon as `options.signal` fires."""
    signal = options.signal
    task = asyncio.ensure_future(work)
    if signal is None:
        return await task
    if signal.aborted:
        task.cancel()
        raise asyncio.CancelledError
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if not task.done():
        task.cancel()
        raise asyncio.CancelledError
    return task.result()


async def post_json(
    model: Model,
    url: str,
    body: dict[str, Any],
    options: StreamOptions,
    *,
    auth: bool = True,
    observe: bool = True,
    no_retry: frozenset[int] = frozenset(),
) -> Any:
    """POST `body` as JSON and return the parsed answer.

    `auth` sends ``Authorization: Bearer <key>`` (required then); `observe` runs the caller's
    `on_payload` hook on the body first. Statuses in `no_retry` fail at once although they are
    normally retried. Raises `ProviderHTTPError` for a refusal, `ConnectionError` when the server
    cannot be reached, `UnexpectedResponse` for a 2xx answer that is not JSON.
    """
    from pi.ai.http import RequestSpec, open_stream

    fixed: dict[str, str] = {"content-type": "application/json"}
    if auth:
        fixed["authorization"] = f"Bearer {require_key(model, options)}"
    elif options.api_key:
        fixed["authorization"] = f"Bearer {options.api_key}"
    payload = await apply_on_payload(body, model, options) if observe else body
    headers = merge_headers(fixed, model.headers, options.headers)

    async def send() -> Any:
        response = await open_stream(
            RequestSpec(url=url, headers=headers, body=payload),
            signal=options.signal,
            max_retries=options.max_retries,
            max_retry_delay_ms=options.max_retry_delay_ms,
            provider=model.provider,
            model_id=model.id,
            timeout_s=options.timeout_s,
            no_retry=no_retry,
        )
        try:
            raw = await response.aread()
        finally:
            await response.aclose()
        try:
            return json.loads(raw)
        except ValueError:
            raise UnexpectedResponse("the answer is not JSON") from None

    return await until_aborted(send(), options)


def failure_text(label: str, model: Model, url: str, error: BaseException) -> str:
    """The error message of a failed call: what went wrong, who answered, and what to do."""
    if isinstance(error, RequestFailed):
        return str(error)
    if isinstance(error, UnexpectedResponse):
        return (
            f"{label} returned an unexpected response ({error}) from provider {model.provider} at {url}. "
            f'Check that the base URL of provider "{model.provider}" points at a {label} server '
            f"(models.json or the extension that registered it), then retry."
        )
    if isinstance(error, ConnectionError):
        return f"{label} error: {error}. Check that {url} is reachable (network, proxy, base URL) and retry."
    return f"{label} error: {error}"


def token_usage(model: Model, value: Any, cache_details: Any = None) -> Usage | None:
    """Usage from ``{input_tokens, output_tokens}``, priced from the catalog; None when absent or malformed."""
    if not isinstance(value, dict) or ("input_tokens" not in value and "output_tokens" not in value):
        return None
    from pi.ai.cost import calculate_cost

    def count(raw: Any) -> int:
        return int(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw > 0 else 0

    usage = Usage(input=count(value.get("input_tokens")), output=count(value.get("output_tokens")))
    usage.total_tokens = usage.input + usage.output
    calculate_cost(model, usage)
    return usage


def number(value: Any, what: str) -> float:
    """A finite number from the answer, else `UnexpectedResponse` naming the field."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or value != value
        or value
        in (
            float("inf"),
            float("-inf"),
        )
    ):
        raise UnexpectedResponse(f"invalid {what}")
    return float(value)


__all__ = [
    "RequestFailed",
    "UnexpectedResponse",
    "base_url",
    "failure_text",
    "number",
    "post_json",
    "require_key",
    "token_usage",
    "until_aborted",
]
