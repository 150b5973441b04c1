"""The router's model list as the ``llama.cpp`` provider's models, in `register_provider`'s format.

Selectable are loaded models, sleeping ones (a request wakes them) and, when the router loads
models on first use (``models_autoload``), unloaded presets that have not failed. Each selectable
model is offered twice: as a chat model on the OpenAI-compatible API (unless it only makes
decisions) and as a classifier. Decision models (``architecture.output_modalities`` holds
``decisions``) answer natively at ``/v1/systemone`` (``typesafe-system-one``, images as data URLs
when the model takes them); chat models classify through ``llama-cpp-classify``.

The context window is the running one (``meta.n_ctx``), else the ``--ctx-size``/``-c``/``-ctx``
argument the router starts it with, else the training context, else 128,000 tokens. A loaded
model whose chat template reads ``enable_thinking`` gets pi's thinking control.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from pi.app.llama.client import inference_url, status_of
from pi.app.llama.config import PROVIDER

FALLBACK_CONTEXT = 128000
CONTEXT_FLAGS = ("--ctx-size", "-c", "-ctx")
FREE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
THINKING_LEVELS = {"off": "off", "minimal": None, "low": None, "medium": "medium", "high": None, "xhigh": None}


def _modalities(model: Mapping[str, Any], key: str) -> list[Any]:
    architecture = model.get("architecture")
    value = architecture.get(key) if isinstance(architecture, dict) else None
    return value if isinstance(value, list) else []


def is_decision_model(model: Mapping[str, Any]) -> bool:
    return "decisions" in _modalities(model, "output_modalities")


def is_chat_model(model: Mapping[str, Any]) -> bool:
    return not is_decision_model(model) or "text" in _modalities(model, "output_modalities")


def is_selectable(model: Mapping[str, Any], autoload: bool) -> bool:
    status = model.get("status") or {}
    value = status_of(dict(model))
    if value in ("loaded", "sleeping"):
        return True
    return autoload and value == "unloaded" and not status.get("failed") and model.get("source") == "preset"


def needs_autoload_check(models: Sequence[Mapping[str, Any]]) -> bool:
    """Only unloaded presets depend on the router's autoload setting."""
    return any(status_of(dict(m)) == "unloaded" and m.get("source") == "preset" for m in models)


def configured_context(model: Mapping[str, Any]) -> int | None:
    status = model.get("status")
    found = status.get("args") if isinstance(status, dict) else None
    args: list[Any] = found if isinstance(found, list) else []
    for flag, value in itertools.pairwise(args):
        if flag in CONTEXT_FLAGS:
            try:
                size = int(value)
            except (TypeError, ValueError):
                continue
            if size > 0:
                return size
    return None


def context_window(model: Mapping[str, Any]) -> int:
    found = model.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    running = meta.get("n_ctx")
    if isinstance(running, int) and running > 0:
        return running
    configured = configured_context(model)
    if configured:
        return configured
    trained = meta.get("n_ctx_train")
    return trained if isinstance(trained, int) and trained > 0 else FALLBACK_CONTEXT


def chat_entry(model: Mapping[str, Any], template: str | None) -> dict[str, Any]:
    """A chat model on the router's OpenAI-compatible API."""
    window = context_window(model)
    reasoning = template is not None and "enable_thinking" in template
    compat: dict[str, Any] = {
        "supportsStore": False,
        "supportsReasoningEffort": False,
        "supportsUsageInStreaming": True,
        "supportsStrictMode": False,
        "maxTokensField": "max_tokens",
    }
    entry: dict[str, Any] = {
        "id": model["id"],
        "name": model["id"],
        "api": "openai-completions",
        "reasoning": reasoning,
        "input": ["text", "image"] if "image" in _modalities(model, "input_modalities") else ["text"],
        "cost": dict(FREE),
        "contextWindow": window,
        "maxTokens": window,
        "compat": compat,
    }
    if reasoning:
        compat["thinkingFormat"] = "qwen-chat-template"
        entry["thinkingLevelMap"] = dict(THINKING_LEVELS)
    return entry


def classifier_entry(model: Mapping[str, Any], server_url: str) -> dict[str, Any]:
    """The same model as a classifier: natively for decision models, else from label probabilities."""
    decision = is_decision_model(model)
    images = decision and "image" in _modalities(model, "input_modalities")
    entry: dict[str, Any] = {
        "id": model["id"],
        "name": model["id"],
        "type": "classifier",
        "api": "typesafe-system-one" if decision else "llama-cpp-classify",
        "baseUrl": inference_url(server_url) if decision else server_url,
        "input": ["text", "image"] if images else ["text"],
        "cost": dict(FREE),
        "contextWindow": context_window(model),
    }
    if images:
        entry["compat"] = {"imageInput": "images", "sendImageOptInHeader": False}
    return entry


def provider_config(
    models: Sequence[Mapping[str, Any]],
    server_url: str,
    api_key: str,
    *,
    autoload: bool = False,
    templates: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """`register_provider` config of the ``llama.cpp`` provider for the router's list `models`."""
    selectable = [m for m in models if is_selectable(m, autoload)]
    templates = templates or {}
    chat = [chat_entry(m, templates.get(m["id"])) for m in selectable if is_chat_model(m)]
    classifiers = [classifier_entry(m, server_url) for m in selectable]
    return {
        "name": PROVIDER,
        "baseUrl": inference_url(server_url),
        "api": "openai-completions",
        "apiKey": literal_key(api_key),
        "models": [*chat, *classifiers],
    }


def stored_config(models: Sequence[Mapping[str, Any]], server_url: str, api_key: str) -> dict[str, Any]:
    """`register_provider` config from kept model JSON (`pi.app.llama.store`), on the current router."""
    entries: list[dict[str, Any]] = []
    for model in models:
        entry = {k: v for k, v in model.items() if k not in ("provider", "baseUrl", "headers")}
        if entry.get("type") == "classifier":
            decision = entry.get("api") == "typesafe-system-one"
            entry["baseUrl"] = inference_url(server_url) if decision else server_url
        entries.append(entry)
    return {**provider_config([], server_url, api_key), "models": entries}


def kept_models(config: Mapping[str, Any], server_url: str) -> list[dict[str, Any]]:
    """The models of a `provider_config` as pi's model JSON, for `pi.app.llama.store`."""
    out: list[dict[str, Any]] = []
    for entry in config["models"]:
        model = {**entry, "provider": PROVIDER}
        model.setdefault("baseUrl", inference_url(server_url))
        out.append(model)
    return out


def literal_key(key: str) -> str:
    """`key` written so that the registry takes it as it is (no ``$NAME`` or ``!command`` reading)."""
    escaped = key.replace("$", "$$")
    return f"$!{escaped[1:]}" if escaped.startswith("!") else escaped


__all__ = [
    "chat_entry",
    "classifier_entry",
    "context_window",
    "is_chat_model",
    "is_decision_model",
    "is_selectable",
    "kept_models",
    "literal_key",
    "needs_autoload_check",
    "provider_config",
    "stored_config",
]
