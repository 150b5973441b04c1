"""Tool-argument validation: what the model gets back when its arguments do not fit."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pi.ai.validation import ToolValidationError, format_validation_failure, validate_model_arguments


def test_format_validation_failure_names_root_for_an_empty_path() -> None:
    text = format_validation_failure("t", [("", "must be object")], {"a": 1})
    assert text.splitlines()[1] == "  - root: must be object"


def test_format_validation_failure_has_the_exact_frame() -> None:
    text = format_validation_failure("bash", [("command", "must have required property 'command'")], {"timeout": 5})
    assert text == (
        'Validation failed for tool "bash":\n'
        "  - command: must have required property 'command'\n"
        "\n"
        "Received arguments:\n"
        '{\n  "timeout": 5\n}'
    )


class Edit(BaseModel):
    old_text: str
    new_text: str


class EditParams(BaseModel):
    path: str
    edits: list[Edit]
    mode: Literal["fast", "slow"] = "fast"
    limit: int | None = Field(default=None, ge=1)


# --- pydantic parameter models --------------------------------------------------------------------


def test_model_arguments_are_coerced_laxly() -> None:
    params = validate_model_arguments("edit", EditParams, {"path": "f", "edits": [], "limit": "5"})
    assert isinstance(params, EditParams)
    assert params.limit == 5


def test_model_arguments_error_frame() -> None:
    arguments: dict[str, Any] = {"edits": [{"old_text": "a"}], "mode": "quick", "limit": "x"}
    snapshot = json.dumps(arguments)
    with pytest.raises(ToolValidationError) as info:
        validate_model_arguments("edit", EditParams, arguments)
    lines = str(info.value).splitlines()
    assert lines[0] == 'Validation failed for tool "edit":'
    assert "  - path: must have required property 'path'" in lines
    assert "  - edits.0.new_text: must have required property 'new_text'" in lines
    assert "  - mode: Input should be 'fast' or 'slow'" in lines
    assert "  - limit: Input should be a valid integer, unable to parse string as an integer" in lines
    assert str(info.value).endswith("Received arguments:\n" + json.dumps(arguments, indent=2))
    assert json.dumps(arguments) == snapshot


def test_model_params_share_nothing_with_the_arguments() -> None:
    class Bag(BaseModel):
        data: dict[str, Any]

    arguments: dict[str, Any] = {"data": {"inner": [1]}}
    params = validate_model_arguments("bag", Bag, arguments)
    assert isinstance(params, Bag)
    params.data["inner"].append(2)
    assert arguments == {"data": {"inner": [1]}}


def test_model_root_error_says_root() -> None:
    class Strict(BaseModel):
        model_config = {"extra": "forbid"}
        a: int = 0

    with pytest.raises(ToolValidationError) as info:
        validate_model_arguments("s", Strict, {"b": 1})
    assert "  - b: Extra inputs are not permitted" in str(info.value).splitlines()
