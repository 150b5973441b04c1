"""pi.ai: one streaming interface to every LLM provider.

Importing this package loads the types and the dispatch functions only; each wire API's module is
imported the first time a model of that API is used. Heavier helpers (the model catalog, argument
validation) are loaded on first attribute access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pi.ai.abort import AbortController, AbortSignal
from pi.ai.cost import calculate_cost
from pi.ai.env_api_keys import get_env_api_key
from pi.ai.event_stream import AssistantMessageEventStream, EventStream
from pi.ai.events import AssistantMessageEvent, event_to_json_dict
from pi.ai.json_parse import parse_streaming_json
from pi.ai.options import StreamOptions, ThinkingBudgets
from pi.ai.registry import ApiProvider, StreamFunction, get_api_provider, register_api_provider
from pi.ai.sanitize import sanitize_surrogates
from pi.ai.stream import MissingApiKeyError, complete, complete_simple, stream, stream_simple
from pi.ai.transform_messages import transform_messages
from pi.ai.types import (
    REASONING_LEVELS,
    THINKING_LEVELS,
    AssistantMessage,
    Context,
    Cost,
    CostTier,
    ImageContent,
    InputLimits,
    Message,
    Model,
    ModelCompat,
    ModelCost,
    ReasoningLevel,
    StopReason,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

if TYPE_CHECKING:
    from pi.ai.estimate import estimate_context_tokens, fit_max_tokens_to_context
    from pi.ai.input_limits import image_resize_profile
    from pi.ai.models import (
        DEFAULT_MODEL_PER_PROVIDER,
        find_models,
        get_default_model,
        get_model,
        get_models,
        get_providers,
        models_are_equal,
    )
    from pi.ai.overflow import get_overflow_patterns, is_context_overflow
    from pi.ai.retry_classifier import is_retryable_assistant_error
    from pi.ai.thinking import clamp_thinking_level, provider_thinking_value, supported_thinking_levels
    from pi.ai.transcript import render_system_message_update, resolve_transcript, system_message_text
    from pi.ai.validation import ToolValidationError, validate_model_arguments

_LAZY = {
    "DEFAULT_MODEL_PER_PROVIDER": "pi.ai.models",
    "get_default_model": "pi.ai.models",
    "supported_thinking_levels": "pi.ai.thinking",
    "clamp_thinking_level": "pi.ai.thinking",
    "provider_thinking_value": "pi.ai.thinking",
    "resolve_transcript": "pi.ai.transcript",
    "render_system_message_update": "pi.ai.transcript",
    "system_message_text": "pi.ai.transcript",
    "estimate_context_tokens": "pi.ai.estimate",
    "image_resize_profile": "pi.ai.input_limits",
    "fit_max_tokens_to_context": "pi.ai.estimate",
    "find_models": "pi.ai.models",
    "get_model": "pi.ai.models",
    "get_models": "pi.ai.models",
    "get_providers": "pi.ai.models",
    "models_are_equal": "pi.ai.models",
    "is_context_overflow": "pi.ai.overflow",
    "get_overflow_patterns": "pi.ai.overflow",
    "is_retryable_assistant_error": "pi.ai.retry_classifier",
    "validate_model_arguments": "pi.ai.validation",
    "ToolValidationError": "pi.ai.validation",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pi.ai' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MODEL_PER_PROVIDER",
    "REASONING_LEVELS",
    "THINKING_LEVELS",
    "AbortController",
    "AbortSignal",
    "ApiProvider",
    "AssistantMessage",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "Context",
    "Cost",
    "CostTier",
    "EventStream",
    "ImageContent",
    "InputLimits",
    "Message",
    "MissingApiKeyError",
    "Model",
    "ModelCompat",
    "ModelCost",
    "ReasoningLevel",
    "StopReason",
    "StreamFunction",
    "StreamOptions",
    "SystemMessage",
    "TextContent",
    "ThinkingBudgets",
    "ThinkingContent",
    "ThinkingLevel",
    "Tool",
    "ToolCall",
    "ToolResultMessage",
    "ToolValidationError",
    "Usage",
    "UserMessage",
    "calculate_cost",
    "clamp_thinking_level",
    "complete",
    "complete_simple",
    "estimate_context_tokens",
    "event_to_json_dict",
    "find_models",
    "fit_max_tokens_to_context",
    "get_api_provider",
    "get_default_model",
    "get_env_api_key",
    "get_model",
    "get_models",
    "get_overflow_patterns",
    "get_providers",
    "image_resize_profile",
    "is_context_overflow",
    "is_retryable_assistant_error",
    "models_are_equal",
    "parse_streaming_json",
    "provider_thinking_value",
    "register_api_provider",
    "render_system_message_update",
    "resolve_transcript",
    "sanitize_surrogates",
    "stream",
    "stream_simple",
    "supported_thinking_levels",
    "system_message_text",
    "transform_messages",
    "validate_model_arguments",
]
