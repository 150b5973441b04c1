"""Tool-argument validation: what the model gets back when its arguments do not fit."""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pi.ai.types import Tool, ToolCall
from pi.ai.validation import (
    ToolValidationError,
    format_validation_failure,
    validate_model_arguments,
    validate_tool_arguments,
    validate_tool_call,
)

BASH = Tool(
    name="bash",
    description="Run a command",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}},
        "required": ["command"],
    },
)


def call(arguments: dict[str, Any], name: str = "bash") -> ToolCall:
    return ToolCall(id="call_1", name=name, arguments=arguments)


def tool(parameters: dict[str, Any]) -> Tool:
    return Tool(name="t", description="", parameters=parameters)


def problems_of(tool_: Tool, arguments: dict[str, Any]) -> list[str]:
    with pytest.raises(ToolValidationError) as info:
        validate_tool_arguments(tool_, call(arguments, tool_.name))
    text = str(info.value)
    head, _, _ = text.partition("\n\nReceived arguments:")
    return [line[4:] for line in head.splitlines()[1:]]


# --- the frame ------------------------------------------------------------------------------------


def test_missing_required_property_has_the_exact_frame() -> None:
    arguments = {"timeout": "x"}
    with pytest.raises(ToolValidationError) as info:
        validate_tool_arguments(BASH, call(arguments))
    assert str(info.value) == (
        'Validation failed for tool "bash":\n'
        "  - command: must have required property 'command'\n"
        "  - timeout: must be number\n"
        "\n"
        "Received arguments:\n"
        '{\n  "timeout": "x"\n}'
    )


def test_format_validation_failure_names_root_for_an_empty_path() -> None:
    text = format_validation_failure("t", [("", "must be object")], {"a": 1})
    assert text.splitlines()[1] == "  - root: must be object"


def test_unknown_tool_is_named() -> None:
    with pytest.raises(ToolValidationError, match=r'^Tool "nope" not found$'):
        validate_tool_call([BASH], call({}, name="nope"))


def test_validate_tool_call_finds_the_tool_by_exact_name() -> None:
    other = Tool(name="Bash", description="", parameters={"type": "object", "properties": {}})
    assert validate_tool_call([other, BASH], call({"command": "ls", "timeout": "5"})) == {
        "command": "ls",
        "timeout": 5,
    }


# --- coercion -------------------------------------------------------------------------------------


def test_coerces_and_never_mutates_the_call() -> None:
    arguments = {"command": 42, "timeout": "1.5"}
    tool_call = call(arguments)
    before = copy.deepcopy(tool_call.arguments)
    result = validate_tool_arguments(BASH, tool_call)
    assert result == {"command": "42", "timeout": 1.5}
    assert tool_call.arguments == before
    assert result is not tool_call.arguments


@pytest.mark.parametrize(
    ("schema", "given", "expected"),
    [
        ({"type": "number"}, "5", 5),
        ({"type": "number"}, " 2.5 ", 2.5),
        ({"type": "integer"}, "7", 7),
        ({"type": "integer"}, 7.0, 7),
        ({"type": "integer"}, True, 1),
        ({"type": "number"}, None, 0),
        ({"type": "boolean"}, "true", True),
        ({"type": "boolean"}, "false", False),
        ({"type": "boolean"}, 1, True),
        ({"type": "boolean"}, 0, False),
        ({"type": "boolean"}, None, False),
        ({"type": "string"}, 12, "12"),
        ({"type": "string"}, 1.5, "1.5"),
        ({"type": "string"}, 3.0, "3"),
        ({"type": "string"}, True, "true"),
        ({"type": "string"}, None, ""),
        ({"type": "null"}, "", None),
        ({"type": "null"}, 0, None),
        ({"type": "null"}, False, None),
        ({"type": ["integer", "string"]}, "12", "12"),
        ({"type": ["integer", "boolean"]}, "12", 12),
    ],
)
def test_scalar_coercion(schema: dict[str, Any], given: Any, expected: Any) -> None:
    t = tool({"type": "object", "properties": {"v": schema}})
    result = validate_tool_arguments(t, call({"v": given}, "t"))["v"]
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("schema", "given", "message"),
    [
        ({"type": "number"}, "abc", "must be number"),
        ({"type": "number"}, "", "must be number"),
        ({"type": "number"}, "nan", "must be number"),
        ({"type": "integer"}, "2.5", "must be integer"),
        ({"type": "integer"}, 2.5, "must be integer"),
        ({"type": "boolean"}, "yes", "must be boolean"),
        ({"type": "boolean"}, 2, "must be boolean"),
        ({"type": "string"}, [1], "must be string"),
        ({"type": "array", "items": {"type": "string"}}, "a", "must be array"),
        ({"type": "object"}, "{}", "must be object"),
        ({"type": ["string", "null"]}, {}, "must be string,null"),
    ],
)
def test_values_that_cannot_be_coerced(schema: dict[str, Any], given: Any, message: str) -> None:
    assert problems_of(tool({"type": "object", "properties": {"v": schema}}), {"v": given}) == [f"v: {message}"]


# --- structure ------------------------------------------------------------------------------------

EDIT = tool(
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "edits": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {"old_text": {"type": "string"}, "new_text": {"type": "string"}},
                    "required": ["old_text", "new_text"],
                    "additionalProperties": False,
                },
            },
            "options": {
                "type": "object",
                "properties": {"mode": {"enum": ["fast", "slow"]}, "level": {"type": "integer", "maximum": 3}},
                "required": ["mode"],
            },
        },
        "required": ["path", "edits"],
    }
)


def test_every_nested_problem_is_listed_with_a_dotted_path() -> None:
    found = problems_of(
        EDIT,
        {
            "path": "",
            "edits": [{"old_text": "a", "new_text": 1}, {"old_text": "b", "extra": True}],
            "options": {"level": "9"},
        },
    )
    assert found == [
        "path: must NOT have fewer than 1 characters",
        "edits.1.new_text: must have required property 'new_text'",
        "edits.1: must NOT have additional property 'extra'",
        "options.mode: must have required property 'mode'",
        "options.level: must be <= 3",
    ]


def test_nested_values_are_coerced_in_place_of_a_copy() -> None:
    arguments = {"path": "a.txt", "edits": [{"old_text": 1, "new_text": False}], "options": {"mode": "fast"}}
    result = validate_tool_arguments(EDIT, call(arguments, "t"))
    assert result["edits"] == [{"old_text": "1", "new_text": "false"}]
    assert arguments["edits"] == [{"old_text": 1, "new_text": False}]


def test_empty_array_below_min_items() -> None:
    assert problems_of(EDIT, {"path": "a", "edits": []}) == ["edits: must NOT have fewer than 1 items"]


@pytest.mark.parametrize(
    ("schema", "given", "message"),
    [
        ({"enum": ["a", "b"]}, "c", 'must be equal to one of the allowed values: "a", "b"'),
        ({"enum": [1, 2]}, True, "must be equal to one of the allowed values: 1, 2"),
        ({"const": "x"}, "y", 'must be equal to constant "x"'),
        ({"type": "number", "minimum": 1}, 0, "must be >= 1"),
        ({"type": "number", "exclusiveMinimum": 0}, 0, "must be > 0"),
        ({"type": "number", "exclusiveMaximum": 10}, 10, "must be < 10"),
        ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, 0, "must be > 0"),
        ({"type": "integer", "multipleOf": 2}, 3, "must be multiple of 2"),
        ({"type": "string", "maxLength": 2}, "abc", "must NOT have more than 2 characters"),
        ({"type": "string", "pattern": "^[a-z]+$"}, "A1", 'must match pattern "^[a-z]+$"'),
        ({"type": "array", "maxItems": 1}, [1, 2], "must NOT have more than 1 items"),
        ({"type": "array", "uniqueItems": True}, [1, 2, 1], "must NOT have duplicate items"),
        ({"not": {"type": "string"}}, "s", "must NOT be valid"),
    ],
)
def test_keyword_messages(schema: dict[str, Any], given: Any, message: str) -> None:
    assert problems_of(tool({"type": "object", "properties": {"v": schema}}), {"v": given}) == [f"v: {message}"]


def test_enum_equal_values_pass() -> None:
    t = tool({"type": "object", "properties": {"v": {"type": "integer", "enum": [1, 2]}}})
    assert validate_tool_arguments(t, call({"v": "2"}, "t")) == {"v": 2}


def test_additional_properties_schema_validates_and_coerces_extras() -> None:
    t = tool({"type": "object", "additionalProperties": {"type": "integer"}})
    assert validate_tool_arguments(t, call({"a": "1"}, "t")) == {"a": 1}
    assert problems_of(t, {"a": "x"}) == ["a: must be integer"]


def test_tuple_items() -> None:
    t = tool({"type": "object", "properties": {"v": {"type": "array", "prefixItems": [{"type": "integer"}]}}})
    assert validate_tool_arguments(t, call({"v": ["1", "free"]}, "t")) == {"v": [1, "free"]}


# --- unions ---------------------------------------------------------------------------------------


OPTIONAL_TEXT = tool({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})


def test_union_keeps_a_value_that_already_fits_a_later_member() -> None:
    # Coercing through the first member would turn null into "".
    assert validate_tool_arguments(OPTIONAL_TEXT, call({"v": None}, "t")) == {"v": None}


def test_union_coerces_through_the_first_member_that_accepts() -> None:
    assert validate_tool_arguments(OPTIONAL_TEXT, call({"v": 5}, "t")) == {"v": "5"}


def test_union_failure_names_the_member_types() -> None:
    t = tool({"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}}})
    assert problems_of(t, {"v": "many"}) == ["v: must match a schema in anyOf (integer | boolean)"]


def test_one_of_rejects_a_value_matching_two_members() -> None:
    t = tool({"type": "object", "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}})
    assert problems_of(t, {"v": 3}) == ["v: must match exactly one schema in oneOf (integer | number)"]
    assert validate_tool_arguments(t, call({"v": 2.5}, "t")) == {"v": 2.5}


def test_all_of_applies_every_member() -> None:
    t = tool(
        {
            "type": "object",
            "properties": {"v": {"allOf": [{"type": "integer"}, {"minimum": 10}]}},
        }
    )
    assert validate_tool_arguments(t, call({"v": "12"}, "t")) == {"v": 12}
    assert problems_of(t, {"v": "3"}) == ["v: must be >= 10"]


# --- schemas from pydantic ------------------------------------------------------------------------


class Edit(BaseModel):
    old_text: str
    new_text: str


class EditParams(BaseModel):
    path: str
    edits: list[Edit]
    mode: Literal["fast", "slow"] = "fast"
    limit: int | None = Field(default=None, ge=1)


def test_pydantic_schema_with_refs_is_followed() -> None:
    t = Tool(name="edit", description="", parameters=EditParams.model_json_schema())
    assert "$defs" in t.parameters
    result = validate_tool_arguments(t, call({"path": "f", "edits": [{"old_text": 1, "new_text": "b"}]}, "edit"))
    assert result["edits"] == [{"old_text": "1", "new_text": "b"}]
    assert problems_of(t, {"path": "f", "edits": [{"old_text": "a"}], "limit": 0}) == [
        "edits.0.new_text: must have required property 'new_text'",
        "limit: must be >= 1",
    ]


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
