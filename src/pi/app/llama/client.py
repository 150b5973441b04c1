"""A client for the model-management API of a llama.cpp router server.

The router lists its models at ``GET /models`` (``{data: [{id, status: {value, failed?, exit_code?,
args?, progress?}, source?, meta?, architecture?}]}``; ``?reload=1`` rescans its model folders),
loads and unloads one with ``POST /models/load`` / ``POST /models/unload`` (``{model}``), starts a
Hugging Face download with ``POST /models`` (``{model: "owner/repo[:quant]"}``) and reports its
settings at ``GET /props``. Chat requests go to the OpenAI-compatible API under ``/v1``.

Loading, unloading and downloading are asynchronous on the router, so the ``*_and_wait`` methods
poll the model list until the model reaches the state asked for. Every request is bounded by a
timeout; an unreachable server raises `LlamaError` naming the server and the cause.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
from msgspec import Struct

REQUEST_TIMEOUT_S = 15.0
LOAD_POLL_S = 0.25
UNLOAD_POLL_S = 0.1
DOWNLOAD_POLL_S = 0.5


class LlamaError(Exception):
    """A request to the router failed; the message says why, in words for the user."""


class LlamaConnectionError(LlamaError):
    """The router could not be reached at all."""


class Progress(Struct, frozen=True):
    """How far a load or download is: a line to show and, when known, a fraction done."""

    message: str
    ratio: float | None = None
    detail: str | None = None


def normalize_server_url(value: str) -> str:
    """The router's root URL: http(s) only, without query, fragment, trailing slashes or ``/v1``."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LlamaError("Server URL must use http or https")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")).rstrip("/")


def inference_url(server_url: str) -> str:
    """The OpenAI-compatible base URL of the router."""
    return f"{normalize_server_url(server_url)}/v1"


def format_bytes(count: float) -> str:
    """A size the way the download progress shows it (``512 B``, ``1.50 MiB``, ``12.3 GiB``)."""
    if count < 1024:
        return f"{int(count)} B"
    value, unit = count / 1024, "KiB"
    for next_unit in ("MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    return f"{value:.1f} {unit}" if value >= 10 else f"{value:.2f} {unit}"


def status_of(model: dict[str, Any]) -> str:
    status = model.get("status")
    value = status.get("value") if isinstance(status, dict) else None
    return value if isinstance(value, str) else "unknown"


def is_loaded(model: dict[str, Any]) -> bool:
    """Loaded, or slept by the router while idle (a request wakes it)."""
    return status_of(model) in ("loaded", "sleeping")


def _error_message(payload: Any, fallback: str) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else fallback


def _is_model_info(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str) and isinstance(value.get("status"), dict)


def download_progress(data: Any) -> Progress | None:
    """Bytes done over bytes to fetch, summed over the files a download progress report lists."""
    if not isinstance(data, dict):
        return None
    nested = data.get("progress")
    files: dict[str, Any] = nested if isinstance(nested, dict) else data
    done = total = 0.0
    for entry in files.values():
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("done"), (int, float)) and isinstance(entry.get("total"), (int, float)):
            done += entry["done"]
            total += entry["total"]
    if total <= 0:
        return None
    return Progress("Downloading model", done / total, f"{format_bytes(done)} / {format_bytes(total)}")


class LlamaClient:
    """Requests to one router (see the module docstring)."""

    def __init__(self, server_url: str, api_key: str | None = None, *, timeout: float = REQUEST_TIMEOUT_S) -> None:
        self.server_url = normalize_server_url(server_url)
        self.api_key = api_key
        self.timeout = timeout

    def _headers(self, with_body: bool) -> dict[str, str]:
        headers = {"content-type": "application/json"} if with_body else {}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        return headers

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One JSON request; the decoded reply, or LlamaError with the server's own message."""
        url = f"{self.server_url}{path}"
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as http:
                response = await http.request(method, url, json=body, headers=self._headers(body is not None))
        except httpx.HTTPError as exc:
            detail = str(exc) or type(exc).__name__
            raise LlamaConnectionError(f"Could not reach llama.cpp server at {self.server_url}: {detail}") from exc
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.status_code >= 400:
            raise LlamaError(_error_message(payload, f"llama.cpp returned HTTP {response.status_code}"))
        return payload

    async def list(self, *, reload: bool = False) -> list[dict[str, Any]]:
        """The router's models (``GET /models``)."""
        payload = await self.request("GET", "/models?reload=1" if reload else "/models")
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise LlamaError("llama.cpp returned an invalid model catalog")
        if not all(_is_model_info(entry) for entry in data):
            raise LlamaError("Server is not running in llama.cpp router mode")
        return data

    async def props(self, model: str | None = None) -> dict[str, Any]:
        """The router's settings (``GET /props``: ``models_autoload``), or one model's (``chat_template``),
        asked with ``autoload=false`` so that asking never loads the model."""
        query = f"?{urlencode({'model': model, 'autoload': 'false'})}" if model else ""
        payload = await self.request("GET", f"/props{query}")
        return payload if isinstance(payload, dict) else {}

    async def load(self, model: str) -> None:
        await self.request("POST", "/models/load", {"model": model})

    async def unload(self, model: str) -> None:
        await self.request("POST", "/models/unload", {"model": model})

    async def download(self, model: str) -> None:
        await self.request("POST", "/models", {"model": model})

    async def _entry(self, model: str) -> dict[str, Any] | None:
        return next((entry for entry in await self.list() if entry["id"] == model), None)

    async def unload_and_wait(self, model: str) -> None:
        """Unload and return once the router lists the model as unloaded (or no longer lists it)."""
        await self.unload(model)
        while True:
            entry = await self._entry(model)
            if entry is None or status_of(entry) == "unloaded":
                return
            await asyncio.sleep(UNLOAD_POLL_S)

    async def load_and_wait(self, model: str, on_progress: Callable[[Progress], None]) -> dict[str, Any]:
        """Load and return the model's entry once loaded; LlamaError when the router gives up on it."""
        await self.load(model)
        on_progress(Progress("Loading model"))
        while True:
            entry = await self._entry(model)
            if entry is not None and status_of(entry) == "loaded":
                return entry
            status = entry.get("status", {}) if entry is not None else {}
            if status.get("failed"):
                code = status.get("exit_code")
                raise LlamaError("Model failed to load" if code is None else f"Model exited with code {code}")
            await asyncio.sleep(LOAD_POLL_S)

    async def download_and_wait(
        self, model: str, on_progress: Callable[[Progress], None]
    ) -> builtins.list[dict[str, Any]]:
        """Ask the router to download `model` and return the rescanned model list once it is there."""
        await self.download(model)
        on_progress(Progress("Downloading model"))
        seen_downloading, polls = False, 0
        while True:
            entry = await self._entry(model)
            polls += 1
            if entry is not None and status_of(entry) == "downloading":
                seen_downloading = True
                progress = download_progress(entry.get("status", {}).get("progress"))
                if progress is not None:
                    on_progress(progress)
            elif entry is not None and (seen_downloading or polls >= 2):
                return await self.list(reload=True)
            await asyncio.sleep(DOWNLOAD_POLL_S)


__all__ = [
    "LlamaClient",
    "LlamaConnectionError",
    "LlamaError",
    "Progress",
    "download_progress",
    "format_bytes",
    "inference_url",
    "is_loaded",
    "normalize_server_url",
    "status_of",
]
