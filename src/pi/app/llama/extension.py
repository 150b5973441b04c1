"""`builtin:llama.cpp`: the configured router's models as the ``llama.cpp`` provider, and `/llama`.

With a router configured (`pi.app.llama.config`), start-up lists the models kept from the last
run (`pi.app.llama.store`) and then, unless pi is offline, reads the router's model list once.
When the model asked for is a llama.cpp one, or is not found yet, start-up waits for that read at
most `STARTUP_WAIT_S`, so a `pi -p --provider llama.cpp --model <id>` run finds its model; a run on
another provider's model does not wait. Either way a slower router's models arrive when it
answers. A router that is not running is not an error: the kept models stay listed (a debug log
line says why the router was not read). `/llama` reads the list again on every use.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.llama.config import PROVIDER, RouterConfig, offline, resolve_router, stored_entry

if TYPE_CHECKING:
    from pi.app.extensions.api import ExtensionAPI
    from pi.app.llama.client import LlamaClient

logger = logging.getLogger(__name__)

STARTUP_WAIT_S = 1.5
"""Longest start-up waits for the router's model list (a local router answers in milliseconds)."""
STARTUP_TIMEOUT_S = 5.0
"""Longest the start-up request itself may take before it is given up."""
COMMAND_DESCRIPTION = "Manage llama.cpp router models"


class LlamaProvider:
    """The ``llama.cpp`` provider of one loaded extension instance: registers the router's models."""

    def __init__(self, pi: ExtensionAPI, agent_dir: Path | None = None) -> None:
        self.pi = pi
        self.agent_dir = agent_dir
        """Where the model list is kept between runs (None: not kept)."""
        self.catalog: list[dict[str, Any]] = []
        self._startup: asyncio.Task[None] | None = None

    async def sync(self, client: LlamaClient, catalog: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Read the router's list (unless given) and publish its selectable models; returns the list."""
        from pi.app.llama.catalog import needs_autoload_check, provider_config

        current = catalog if catalog is not None else await client.list()
        autoload = False
        if needs_autoload_check(current):
            try:
                autoload = (await client.props()).get("models_autoload") is True
            except Exception as exc:  # an older router without /props: no autoload
                logger.debug("llama.cpp /props failed: %s", exc)
        templates = await self._templates(client, current)
        config = provider_config(
            current, client.server_url, client.api_key or "", autoload=autoload, templates=templates
        )
        self.catalog = current
        self.pi.register_provider(PROVIDER, config)
        if self.agent_dir is not None:
            from pi.app.llama.catalog import kept_models
            from pi.app.llama.store import keep_models

            keep_models(self.agent_dir, kept_models(config, client.server_url))
        return current

    def restore(self, config: RouterConfig) -> None:
        """List the models kept from the last run at once, before (or instead of) asking the router."""
        if self.agent_dir is None:
            return
        from pi.app.llama.catalog import stored_config
        from pi.app.llama.store import stored_models

        models = stored_models(self.agent_dir)
        if models:
            self.pi.register_provider(PROVIDER, stored_config(models, config.server_url, config.api_key))

    async def _templates(self, client: LlamaClient, catalog: list[dict[str, Any]]) -> dict[str, str]:
        """Chat templates of the loaded models (asking about others would load or wake them)."""
        from pi.app.llama.catalog import is_chat_model

        loaded = [m["id"] for m in catalog if m["status"].get("value") == "loaded" and is_chat_model(m)]
        answers = await asyncio.gather(*(client.props(model_id) for model_id in loaded), return_exceptions=True)
        out: dict[str, str] = {}
        for model_id, answer in zip(loaded, answers, strict=True):
            template = answer.get("chat_template") if isinstance(answer, dict) else None
            if isinstance(template, str):
                out[model_id] = template
        return out

    async def start(self, config: RouterConfig, *, wait: bool = True) -> None:
        """The start-up read (see the module docstring); `wait` False leaves it to finish in the background."""
        from pi.app.llama.client import LlamaClient

        client = LlamaClient(config.server_url, config.api_key, timeout=STARTUP_TIMEOUT_S)
        self._startup = asyncio.ensure_future(self._startup_sync(client))
        if wait:
            await asyncio.wait({self._startup}, timeout=STARTUP_WAIT_S)

    async def _startup_sync(self, client: LlamaClient) -> None:
        try:
            await self.sync(client)
        except Exception as exc:  # no router running: nothing to list, and nothing to complain about
            logger.debug("llama.cpp router at %s not listed: %s", client.server_url, exc)


def startup_config(agent_dir: Path) -> RouterConfig | None:
    """The configured router: None when none is configured (or its URL is not http(s))."""
    from pi.app.llama.client import LlamaError

    try:
        return resolve_router(stored_entry(agent_dir))
    except LlamaError as exc:
        logger.warning("llama.cpp: %s", exc)
        return None


def create_llama_extension(startup_provider: str | None = None) -> Callable[[ExtensionAPI], Awaitable[None]]:
    """The `setup(pi)` of `builtin:llama.cpp`; `startup_provider` is the provider of the model asked
    for (None: none resolved yet, which may be a llama.cpp model not listed yet)."""

    async def setup(pi: ExtensionAPI) -> None:
        from pi.app.paths import agent_dir

        directory = agent_dir()
        provider = LlamaProvider(pi, directory)

        async def command(args: str, ctx: Any) -> None:
            from pi.app.llama.manager import run_llama_command

            await run_llama_command(provider, ctx)

        pi.register_command("llama", command, description=COMMAND_DESCRIPTION)
        config = startup_config(directory)
        if config is None:
            return
        provider.restore(config)
        if not offline():
            await provider.start(config, wait=startup_provider in (None, PROVIDER))

    return setup


__all__ = ["COMMAND_DESCRIPTION", "LlamaProvider", "create_llama_extension", "startup_config"]
