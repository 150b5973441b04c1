"""docs/extensions.md cannot drift from the code: every documented name exists, and every API
method and event the code has is documented."""

from __future__ import annotations

import re
from pathlib import Path

from pi.app.extensions.api import ExtensionAPI
from pi.app.extensions.context import ExtensionCommandContext, ExtensionToolContext
from pi.app.extensions.event_base import EventModel
from pi.app.extensions.ui import UIContext

DOC = (Path(__file__).resolve().parents[3] / "docs" / "extensions.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = DOC.index(f"\n## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end != -1 else None]


def public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def event_names() -> set[str]:
    from pi.app.extensions import events

    names = set()
    for value in vars(events).values():
        if isinstance(value, type) and issubclass(value, EventModel):
            field = value.model_fields.get("type")
            if field is not None and field.default:
                names.add(field.default)
    return names


def test_every_api_method_is_documented_and_exists() -> None:
    documented = set(re.findall(r"`pi\.(\w+)", section("The `pi` object")))
    assert documented == public(ExtensionAPI)


def test_every_event_is_documented_and_exists() -> None:
    rows = re.findall(r"^\| `(\w+)` \|", section("Events"), flags=re.MULTILINE)
    assert len(rows) == len(set(rows))
    assert set(rows) == event_names()
    assert len(rows) == 41


def test_documented_ctx_members_exist() -> None:
    documented = set(re.findall(r"^\| `ctx\.(\w+)", section("The `ctx` object"), flags=re.MULTILINE))
    assert documented == public(ExtensionCommandContext) | public(ExtensionToolContext)


def test_documented_ui_methods_exist() -> None:
    documented = set(re.findall(r"`ctx\.ui\.(\w+)\(", section("The `ctx` object")))
    assert documented and documented <= public(UIContext)
