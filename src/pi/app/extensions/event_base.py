"""The base of every extension event payload: snake_case attributes, pi's camelCase JSON."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SkipValidation
from pydantic.alias_generators import to_camel

Shared = SkipValidation[Any]
"""A value passed through as the very object the host gave (messages, mutable dicts)."""


class EventModel(BaseModel):
    # Schemas are built on first use: a run touches a few of the 41 events, and building all at
    # import would cost start-up time for nothing.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, arbitrary_types_allowed=True, defer_build=True
    )
    type: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class ResultModel(EventModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, arbitrary_types_allowed=True, extra="ignore", defer_build=True
    )


__all__ = ["EventModel", "ResultModel", "Shared"]
