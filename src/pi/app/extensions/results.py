"""Reading what a handler returned: a result model, a dict with snake_case or camelCase keys, or None.

Anything else is not a result; the dispatcher decides what that means for its event (ignored and
reported, or, for `tool_call`, a blocked call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    from pi.app.extensions.events import ResultModel

R = TypeVar("R", bound="ResultModel")


class InvalidResult(Exception):
    """A handler returned something that is not a result of its event."""

    def __init__(self, value: object, detail: str | None = None) -> None:
        super().__init__(detail or f"unexpected handler result: {value!r}")
        self.value = value


def coerce_result(value: Any, model: type[R]) -> R | None:
    """`value` as `model`, None for None; raises InvalidResult for anything else."""
    if value is None:
        return None
    if isinstance(value, model):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_unset=True)
    if not isinstance(value, dict):
        raise InvalidResult(value)
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise InvalidResult(value, f"invalid {model.__name__}: {error.errors()[0].get('msg', error)}") from error


def result_field(value: Any, *names: str) -> Any:
    """The first of `names` a handler's answer carries, as a dict key or an attribute; None when absent.

    Answers arrive as dicts or as objects, under the Python or the pi (camelCase) name, so callers list both.
    """
    for name in names:
        if isinstance(value, dict):
            if name in value:
                return value[name]
        elif hasattr(value, name):
            return getattr(value, name)
    return None


__all__ = ["InvalidResult", "coerce_result", "result_field"]
