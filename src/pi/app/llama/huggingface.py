"""Finding a GGUF model on Hugging Face for the router to download: search, then the quantizations.

Search is ``GET /api/models?search=<q>&filter=gguf&sort=downloads&direction=-1&limit=20``; a
repository's files come from ``GET /api/models/<owner>/<repo>?blobs=true`` (``siblings`` with
``rfilename`` and ``size``, and ``gated``: ``false``, ``"auto"`` or ``"manual"``). Quantizations are
read from the GGUF file names (shards and ``mmproj`` projector files folded in or left out), with
``Q4_K_M`` first as the usual choice, then by size.

The token is ``HF_TOKEN``, else the file named by ``HF_TOKEN_PATH``, ``$HF_HOME/token``,
``$XDG_CACHE_HOME/huggingface/token`` or ``~/.cache/huggingface/token``; search also works without
one. ``HF_ENDPOINT`` moves the API to another host (a mirror), as for Hugging Face's own tools.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from msgspec import Struct

from pi.app.llama.client import LlamaError

DEFAULT_ENDPOINT = "https://huggingface.co"
RECOMMENDED = "Q4_K_M"
TIMEOUT_S = 15.0
_QUANT = re.compile(r"(?:^|[-_.])((?:UD-)?(?:I?Q\d(?:_[A-Z0-9]+)+|BF16|F16|F32|MXFP\d(?:_[A-Z0-9]+)*))$", re.IGNORECASE)
_SHARD = re.compile(r"-\d{5}-of-\d{5}$")


class HuggingFaceError(LlamaError):
    """A Hugging Face request failed; the message is for the user."""


class Quantization(Struct, frozen=True):
    name: str
    size: int | None


class Repository(Struct, frozen=True):
    id: str
    gated: str | None
    """``auto`` or ``manual`` when access must be asked for, else None."""
    quantizations: list[Quantization]


def find_token(environ: Mapping[str, str] | None = None) -> str | None:
    environ = os.environ if environ is None else environ
    direct = (environ.get("HF_TOKEN") or "").strip()
    if direct:
        return direct
    candidates = [
        environ.get("HF_TOKEN_PATH"),
        str(Path(environ["HF_HOME"]) / "token") if environ.get("HF_HOME") else None,
        str(Path(environ["XDG_CACHE_HOME"]) / "huggingface" / "token") if environ.get("XDG_CACHE_HOME") else None,
        str(Path.home() / ".cache" / "huggingface" / "token"),
    ]
    for path in dict.fromkeys(p for p in candidates if p):
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if token:
            return token
    return None


def quantization_of(filename: str) -> str | None:
    """The quantization a GGUF file name ends with (``model-Q4_K_M-00001-of-00002.gguf`` -> ``Q4_K_M``)."""
    name = filename.rsplit("/", 1)[-1]
    if not name.lower().endswith(".gguf") or name.lower().startswith("mmproj"):
        return None
    match = _QUANT.search(_SHARD.sub("", name[: -len(".gguf")]))
    return match.group(1).upper() if match else None


def quantizations(siblings: Any) -> list[Quantization]:
    """The repository's quantizations with their total size (None when a file's size is unknown)."""
    sizes: dict[str, int | None] = {}
    for file in siblings if isinstance(siblings, list) else []:
        name = file.get("rfilename") if isinstance(file, dict) else None
        quant = quantization_of(name) if isinstance(name, str) else None
        if quant is None:
            continue
        size = file.get("size")
        known = sizes.get(quant, 0)
        sizes[quant] = known + size if isinstance(size, int) and known is not None else None
    found = [Quantization(name, size) for name, size in sizes.items()]
    return sorted(found, key=lambda q: (q.name != RECOMMENDED, q.size if q.size is not None else 2**63, q.name))


class HuggingFaceClient:
    def __init__(self, token: str | None = None, endpoint: str | None = None) -> None:
        self.token = token
        self.endpoint = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")

    async def _get(self, path: str, params: dict[str, str] | None = None) -> Any:
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            async with httpx.AsyncClient(timeout=TIMEOUT_S) as http:
                response = await http.get(f"{self.endpoint}{path}", params=params, headers=headers)
        except httpx.HTTPError as exc:
            raise HuggingFaceError(f"Could not reach Hugging Face: {exc or type(exc).__name__}") from exc
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.status_code == 429:
            delay = response.headers.get("retry-after")
            raise HuggingFaceError(
                f"Hugging Face rate limit reached; retry in {delay}s" if delay else "Hugging Face rate limit reached"
            )
        if response.status_code >= 400:
            error = payload.get("error") if isinstance(payload, dict) else None
            raise HuggingFaceError(
                error if isinstance(error, str) and error else f"Hugging Face returned HTTP {response.status_code}"
            )
        return payload

    async def search(self, query: str) -> list[tuple[str, int]]:
        """(repository id, downloads) of the GGUF repositories matching `query`, most downloaded first."""
        params = {"search": query, "filter": "gguf", "sort": "downloads", "direction": "-1", "limit": "20"}
        payload = await self._get("/api/models", params)
        if not isinstance(payload, list):
            raise HuggingFaceError("Hugging Face returned invalid search results")
        out: list[tuple[str, int]] = []
        for entry in payload:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                downloads = entry.get("downloads")
                out.append((entry["id"], downloads if isinstance(downloads, int) else 0))
        return out

    async def details(self, repository: str) -> Repository:
        path = "/api/models/" + "/".join(quote(part, safe="") for part in repository.split("/"))
        payload = await self._get(path, {"blobs": "true"})
        if not isinstance(payload, dict):
            raise HuggingFaceError("Hugging Face returned invalid model details")
        gated = payload.get("gated")
        model_id = payload.get("id")
        return Repository(
            model_id if isinstance(model_id, str) else repository,
            gated if gated in ("auto", "manual") else None,
            quantizations(payload.get("siblings")),
        )


def compact_count(value: int) -> str:
    """``950``, ``12.3k``, ``450k``, ``1.2M``, ``15M``."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.{0 if value >= 10_000_000 else 1}f}M"
    if value >= 1_000:
        return f"{value / 1_000:.{0 if value >= 100_000 else 1}f}k"
    return str(value)


__all__ = [
    "HuggingFaceClient",
    "HuggingFaceError",
    "Quantization",
    "Repository",
    "compact_count",
    "find_token",
    "quantization_of",
    "quantizations",
]
