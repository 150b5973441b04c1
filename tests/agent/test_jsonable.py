"""Tool details of any type reach the wire under their JSON (camelCase) names."""

from __future__ import annotations

import dataclasses

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel
from pydantic.dataclasses import dataclass as pydantic_dataclass

from pi.agent.messages import to_jsonable
from pi.tools.edit import EditToolDetails


@pydantic_dataclass(config=ConfigDict(alias_generator=to_camel, populate_by_name=True))
class Details:
    first_changed_line: int
    full_output_path: str | None = None


@dataclasses.dataclass
class Plain:
    some_field: int


def test_a_pydantic_dataclass_uses_its_aliases_and_drops_unset_optionals() -> None:
    assert to_jsonable(Details(first_changed_line=3)) == {"firstChangedLine": 3}
    assert to_jsonable({"inner": [Details(first_changed_line=1, full_output_path="/t")]}) == {
        "inner": [{"firstChangedLine": 1, "fullOutputPath": "/t"}]
    }


def test_the_edit_tools_details_are_camel_case() -> None:
    details = EditToolDetails(diff="d", patch="p", first_changed_line=2)
    assert to_jsonable(details) == {"diff": "d", "patch": "p", "firstChangedLine": 2}


def test_a_plain_dataclass_keeps_its_field_names() -> None:
    assert to_jsonable(Plain(some_field=1)) == {"some_field": 1}
