"""`/llama`: the router's models with their state; choosing one loads or unloads it, and the last
row asks the router to download a Hugging Face model: an exact ``owner/repository[:quant]``, or a
search whose result and quantization are then chosen (`pi.app.llama.huggingface`).

Runs through `ctx.ui` dialogs only. The list is the router's live state, read again after every
action (other clients may share the router). Loading while other models are loaded asks whether to
unload them first; a load that fails after they were unloaded loads them again. While a load or
download runs, the status line shows its progress. A router that cannot be reached offers Retry
and Close.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pi.app.llama.client import LlamaClient, LlamaConnectionError, LlamaError, Progress, is_loaded, status_of
from pi.app.llama.config import NOT_CONFIGURED, PROVIDER, resolve_router

if TYPE_CHECKING:
    from pi.app.llama.extension import LlamaProvider

DOWNLOAD_ROW = "Download model…"
STATUS_KEY = "llama.cpp"
UNLOAD_ALL = "Unload all and load"
KEEP_LOADED = "Keep loaded and load"
CANCEL = "Cancel"
SEARCH_HINT = "Model name or owner/repository[:quant]"
REPOSITORY = re.compile(r"^[^/\s]+/[^:\s]+(?::[^\s:]+)?$")


def context_label(model: dict[str, Any]) -> str | None:
    from pi.app.llama.catalog import configured_context

    found = model.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    size = meta.get("n_ctx") or meta.get("n_ctx_train") or configured_context(model)
    if not isinstance(size, int) or size <= 0:
        return None
    return f"{round(size / 1000)}k" if size >= 1000 else str(size)


def describe(model: dict[str, Any]) -> str:
    """The state shown after a model's id: ``loaded · 32k context``, ``downloading``, or nothing."""
    parts: list[str] = []
    if is_loaded(model):
        parts.append("loaded")
        context = context_label(model)
        if context:
            parts.append(f"{context} context")
    elif status_of(model) != "unloaded":
        parts.append(status_of(model))
    return " · ".join(parts)


def model_rows(catalog: list[dict[str, Any]]) -> dict[str, dict[str, Any] | None]:
    """Row text -> model (None: the download row), loaded models first, then by id."""
    ordered = sorted(catalog, key=lambda m: (status_of(m) != "loaded", m["id"]))
    rows: dict[str, dict[str, Any] | None] = {}
    for model in ordered:
        detail = describe(model)
        rows[f"{model['id']}  ·  {detail}" if detail else model["id"]] = model
    rows[DOWNLOAD_ROW] = None
    return rows


def failure_text(error: BaseException) -> str:
    if isinstance(error, LlamaConnectionError):
        return "Could not connect to the server."
    return str(error) or type(error).__name__


class LlamaManager:
    """One `/llama` run: its client, the provider to keep in step, and the command's `ctx`."""

    def __init__(self, provider: LlamaProvider, client: LlamaClient, ctx: Any) -> None:
        self.provider = provider
        self.client = client
        self.ctx = ctx
        self.ui = ctx.ui

    async def read_catalog(self) -> list[dict[str, Any]] | None:
        """The router's list (publishing it); on failure ask Retry/Close (None: closed)."""
        while True:
            try:
                return await self.provider.sync(self.client)
            except LlamaError as exc:
                title = f"llama.cpp unavailable: {self.client.server_url} ({failure_text(exc)})"
                if await self.ui.select(title, ["Retry", "Close"]) != "Retry":
                    return None

    async def run(self) -> None:
        catalog = await self.read_catalog()
        while catalog is not None:
            rows = model_rows(catalog)
            choice = await self.ui.select(f"llama.cpp models  {self.client.server_url}", list(rows))
            if choice is None:
                return
            error: BaseException | None = None
            try:
                await self.act(rows[choice], catalog)
            except LlamaError as exc:
                error = exc
            catalog = await self.read_catalog()
            if catalog is not None and error is not None and not isinstance(error, LlamaConnectionError):
                self.ui.notify(failure_text(error), "error")

    async def act(self, model: dict[str, Any] | None, catalog: list[dict[str, Any]]) -> None:
        if model is None:
            await self.download()
        elif is_loaded(model):
            await self.unload(model["id"])
        elif status_of(model) == "unloaded":
            await self.load(model["id"], catalog)
        else:
            self.ui.notify(f"{model['id']} is {status_of(model)}", "warning")

    def _progress(self, title: str, model_id: str) -> Any:
        def show(progress: Progress) -> None:
            ratio = f" {round(progress.ratio * 100)}%" if progress.ratio is not None else ""
            detail = f" ({progress.detail})" if progress.detail else ""
            self.ui.set_status(STATUS_KEY, f"{title} {model_id}: {progress.message}{ratio}{detail}")

        show(Progress("Starting…"))
        return show

    async def load(self, model_id: str, catalog: list[dict[str, Any]]) -> None:
        others = [m["id"] for m in catalog if m["id"] != model_id and is_loaded(m)]
        replace = False
        if others:
            title = f"{len(others)} model is loaded" if len(others) == 1 else f"{len(others)} models are loaded"
            choice = await self.ui.select(title, [UNLOAD_ALL, KEEP_LOADED, CANCEL])
            if choice in (None, CANCEL):
                return
            replace = choice == UNLOAD_ALL
        if replace:
            for other in others:
                await self.client.unload_and_wait(other)
        try:
            await self.client.load_and_wait(model_id, self._progress("Loading model", model_id))
        except LlamaError:
            if replace:
                await self._restore(others)
            raise
        finally:
            self.ui.set_status(STATUS_KEY, None)
        refreshed = await self.provider.sync(self.client)
        entry = next((m for m in refreshed if m["id"] == model_id), None)
        loaded = entry is not None and status_of(entry) == "loaded"
        self.ui.notify(f"Loaded {model_id}" if loaded else f"Load started for {model_id}")

    async def _restore(self, models: list[str]) -> None:
        self.ui.notify("Restoring previously loaded models")
        try:
            for model_id in models:
                await self.client.load_and_wait(model_id, lambda _progress: None)
        except LlamaError:
            pass  # the original load error is the one to report

    async def unload(self, model_id: str) -> None:
        if not await self.ui.confirm("Unload model?", model_id):
            return
        await self.client.unload_and_wait(model_id)
        await self.provider.sync(self.client)
        self.ui.notify(f"Unloaded {model_id}")

    async def download(self) -> None:
        from pi.app.llama.huggingface import HuggingFaceClient, find_token

        value = ((await self.ui.input("Download model", SEARCH_HINT)) or "").strip()
        if not value:
            return
        hub = HuggingFaceClient(find_token())
        chosen = value if REPOSITORY.match(value) else await self._search(hub, value)
        if chosen is None:
            return
        colon = chosen.find(":", chosen.find("/") + 1)
        repository, quant = (chosen, None) if colon < 0 else (chosen[:colon], chosen[colon + 1 :])
        details = await hub.details(repository)
        if details.gated:
            approval = "Manual approval is required" if details.gated == "manual" else "Accept the access terms"
            title = (
                f"Hugging Face access required for {details.id}: {approval} at https://huggingface.co/{details.id}. "
                "The llama.cpp server needs HF_TOKEN with access."
            )
            if await self.ui.select(title, ["Continue", "Back"]) != "Continue":
                return
        if quant is None and details.quantizations:
            quant = await self._quantization(details)
            if quant is None:
                return
        await self._download(f"{details.id}:{quant}" if quant else details.id)

    async def _search(self, hub: Any, query: str) -> str | None:
        from pi.app.llama.huggingface import compact_count

        if len(query) < 2:
            self.ui.notify("Type at least 2 characters", "warning")
            return None
        results = await hub.search(query)
        if not results:
            self.ui.notify("No GGUF models found", "warning")
            return None
        rows = {f"{model_id}  ·  {compact_count(downloads)} downloads": model_id for model_id, downloads in results}
        choice = await self.ui.select(f"Download model: {query}", list(rows))
        return rows[choice] if choice is not None else None

    async def _quantization(self, details: Any) -> str | None:
        from pi.app.llama.client import format_bytes
        from pi.app.llama.huggingface import RECOMMENDED

        rows: dict[str, str] = {}
        for entry in details.quantizations:
            parts = [entry.name]
            if entry.size is not None:
                parts.append(format_bytes(entry.size))
            if entry.name == RECOMMENDED:
                parts.append("recommended")
            rows[" · ".join(parts)] = entry.name
        choice = await self.ui.select(f"Select quantization for {details.id}", list(rows))
        return rows[choice] if choice is not None else None

    async def _download(self, model: str) -> None:
        try:
            catalog = await self.client.download_and_wait(model, self._progress("Downloading model", model))
        finally:
            self.ui.set_status(STATUS_KEY, None)
        await self.provider.sync(self.client, catalog)
        self.ui.notify(f"Downloaded {model}")


async def run_llama_command(provider: LlamaProvider, ctx: Any) -> None:
    """The `/llama` command of the extension instance `provider`."""
    if ctx.mode != "tui":
        ctx.ui.notify("/llama is available in interactive mode", "warning")
        return
    try:
        config = resolve_router(ctx.model_registry.auth.raw_entry(PROVIDER))
    except LlamaError as exc:
        ctx.ui.notify(str(exc), "error")
        return
    if config is None:
        ctx.ui.notify(NOT_CONFIGURED, "warning")
        return
    await LlamaManager(provider, LlamaClient(config.server_url, config.api_key), ctx).run()


__all__ = ["DOWNLOAD_ROW", "NOT_CONFIGURED", "LlamaManager", "describe", "model_rows", "run_llama_command"]
