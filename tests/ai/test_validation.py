"""Tool-argument validation: what the model gets back when its arguments do not fit."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi.ai.validation import ToolValidationError, format_validation_failure, validate_model_arguments


def test_format_validation_failure_names_root_for_an_empty_path() -> None:
    text = format_validation_failure("t", [("", "must be object")], {"a": 1})
    assert text.splitlines()[1] == "  - root: must be object"


def test_format_validation_failure_has_the_exact_frame() -> None:
    text = format_validation_failure("bash", [("command", "missing")], {"timeout": 5})
    assert text == (
        'Validation failed for tool "bash":\n  - command: missing\n\nReceived arguments:\n{\n  "timeout": 5\n}'
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
    assert lines[1:5] == [
        "  - path: missing",
        "  - edits.0.new_text: missing",
        '  - mode: expected one of ["fast","slow"]',
        "  - limit: expected integer, got string",
    ]
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
    assert "  - b: unknown field" in str(info.value).splitlines()


# --- pi 1.6.0's wording and coercion (pi-schema) ---------------------------------------------------


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    old_text: str
    new_text: str


class Opts(BaseModel):
    path: str
    edits: list[Camel] = []
    tags: list[str] = []
    limit: int = 100
    ratio: float | None = None
    count: int = Field(default=1, ge=1, le=10)
    flag: bool = False


def _problems(arguments: dict[str, Any], model: type[BaseModel] = Opts) -> list[str]:
    with pytest.raises(ToolValidationError) as info:
        validate_model_arguments("t", model, arguments)
    text = str(info.value)
    return text.split("\n\nReceived arguments:")[0].splitlines()[1:]


def test_a_missing_property_says_missing_at_its_path() -> None:
    assert _problems({}) == ["  - path: missing"]


def test_nested_paths_are_dotted_with_the_wire_names() -> None:
    assert _problems({"path": "f", "edits": [{"oldText": "a"}]}) == ["  - edits.0.newText: missing"]


def test_type_errors_name_the_expected_and_the_received_type() -> None:
    assert _problems({"path": "f", "limit": "many"}) == ["  - limit: expected integer, got string"]
    assert _problems({"path": "f", "ratio": "x"}) == ["  - ratio: expected number, got string"]
    assert _problems({"path": "f", "edits": [{"oldText": 1.5, "newText": []}]}) == [
        "  - edits.0.newText: expected string, got array"
    ]


def test_bounds_are_written_as_comparisons() -> None:
    assert _problems({"path": "f", "count": 0}) == ["  - count: expected >= 1"]
    assert _problems({"path": "f", "count": 11}) == ["  - count: expected <= 10"]


def test_the_arguments_object_itself_is_root() -> None:
    class Strict(BaseModel):
        model_config = {"extra": "forbid"}
        a: int = 0

    with pytest.raises(ToolValidationError) as info:
        validate_model_arguments("s", Strict, [1])  # type: ignore[arg-type]
    assert str(info.value).splitlines()[1] == "  - root: expected object, got array"


def test_scalars_become_strings_where_a_string_belongs() -> None:
    params = validate_model_arguments("t", Opts, {"path": 5, "tags": [True, 2.0]})
    assert isinstance(params, Opts)
    assert params.path == "5"
    assert params.tags == ["true", "2"]


def test_numeric_strings_become_numbers() -> None:
    params = validate_model_arguments("t", Opts, {"path": "f", "limit": "42", "ratio": "0.5", "flag": "true"})
    assert isinstance(params, Opts)
    assert (params.limit, params.ratio, params.flag) == (42, 0.5, True)


def test_a_single_value_becomes_a_one_item_array() -> None:
    params = validate_model_arguments("t", Opts, {"path": "f", "tags": "x", "edits": {"oldText": "a", "newText": "b"}})
    assert isinstance(params, Opts)
    assert params.tags == ["x"]
    assert params.edits == [Camel(old_text="a", new_text="b")]


def test_null_for_an_omitted_optional_is_dropped() -> None:
    params = validate_model_arguments("t", Opts, {"path": "f", "limit": None, "ratio": None})
    assert isinstance(params, Opts)
    assert (params.limit, params.ratio) == (100, None)


def test_null_for_a_required_property_is_still_an_error() -> None:
    assert _problems({"path": None}) == ["  - path: expected string, got null"]


def test_the_error_quotes_the_arguments_as_sent_not_as_coerced() -> None:
    arguments: dict[str, Any] = {"path": 5, "limit": "many"}
    with pytest.raises(ToolValidationError) as info:
        validate_model_arguments("t", Opts, arguments)
    assert str(info.value).endswith("Received arguments:\n" + json.dumps(arguments, indent=2))
