"""Messages of an agent conversation: the LLM's three roles plus whatever roles an application adds.

An application keeps its own entries in the transcript (a notification, a bash run the user did by
hand, a compaction summary) next to the model's messages, so the transcript is the single record of
what happened. The model sees none of them unless `convert_to_llm` maps them to a role it knows.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias

from msgspec import Struct
from pydantic import BaseModel, TypeAdapter
from pydantic.dataclasses import is_pydantic_dataclass

from pi.ai.types import AssistantMessage, Message, ToolResultMessage, UserMessage


class CustomAgentMessage(Protocol):
    """Any object with a `role` is a message the transcript can hold (pydantic models fit best)."""

    @property
    def role(self) -> str: ...


AgentMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | CustomAgentMessage
"""A transcript entry: one of the LLM's messages, or an application's own role."""

LLM_MESSAGE_TYPES = (UserMessage, AssistantMessage, ToolResultMessage)


class DeferredMessages(abc.ABC):
    """A transcript whose length is known but whose message objects are built only when first read.

    A resumed conversation can be tens of thousands of messages; building their objects costs far more
    than reading the file, and much of what a client asks first (a count, the model) needs none of
    them. The `Agent` holds one of these until something reads its messages, then keeps the built
    list and forgets the source, so there is never a second copy to go stale.
    """

    @abc.abstractmethod
    def __len__(self) -> int:
        """How many messages `build` returns, known without building them."""

    @abc.abstractmethod
    def build(self) -> list[AgentMessage]:
        """The messages, in order (called at most once by the Agent)."""


def default_convert_to_llm(messages: Sequence[AgentMessage]) -> list[Message]:
    """Keep the roles every provider understands; drop application roles."""
    return [m for m in messages if isinstance(m, LLM_MESSAGE_TYPES)]


@functools.lru_cache(maxsize=256)
def _dataclass_adapter(kind: type[Any]) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def to_jsonable(value: Any) -> Any:
    """pi's JSON form of a message, tool details or content block, whatever type an application used."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    to_json = getattr(value, "to_json_dict", None)
    if callable(to_json):
        return to_json()
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, Struct):
        return {name: to_jsonable(getattr(value, name)) for name in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if is_pydantic_dataclass(type(value)):  # its aliases (camelCase) are its JSON names
            return _dataclass_adapter(type(value)).dump_python(value, by_alias=True, exclude_none=True, mode="json")
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "__dict__"):
        return {k: to_jsonable(v) for k, v in vars(value).items() if not k.startswith("_")}
    return str(value)


__all__ = [
    "LLM_MESSAGE_TYPES",
    "AgentMessage",
    "CustomAgentMessage",
    "DeferredMessages",
    "default_convert_to_llm",
    "to_jsonable",
]
