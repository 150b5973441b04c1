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
    ImageContent,
    Message,
    Model,
    ModelCompat,
    ModelCost,
    ReasoningLevel,
    StopReason,
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
    from pi.ai.models import find_models, get_model, get_models, get_providers, models_are_equal
    from pi.ai.overflow import get_overflow_patterns, is_context_overflow
    from pi.ai.retry_classifier import is_retryable_assistant_error
    from pi.ai.validation import ToolValidationError, validate_model_arguments

_LAZY = {
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
    "EventStream",
    "ImageContent",
    "Message",
    "MissingApiKeyError",
    "Model",
    "ModelCompat",
    "ModelCost",
    "ReasoningLevel",
    "StopReason",
    "StreamFunction",
    "StreamOptions",
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
    "complete",
    "complete_simple",
    "event_to_json_dict",
    "find_models",
    "get_api_provider",
    "get_env_api_key",
    "get_model",
    "get_models",
    "get_overflow_patterns",
    "get_providers",
    "is_context_overflow",
    "is_retryable_assistant_error",
    "models_are_equal",
    "parse_streaming_json",
    "register_api_provider",
    "sanitize_surrogates",
    "stream",
    "stream_simple",
    "transform_messages",
    "validate_model_arguments",
]
