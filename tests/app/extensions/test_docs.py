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


SESSION_SOURCES = [
    *sorted((Path(__file__).resolve().parents[3] / "src" / "pi" / "app").glob("session_*.py")),
    *(
        Path(__file__).resolve().parents[3] / "src" / "pi" / "app" / "extensions" / n
        for n in ("hook_bridge.py", "project_trust.py")
    ),
]


def _raised_by_the_session(event: str) -> bool:
    """Whether session code builds the event's model or calls the runner's `emit_<event>`."""
    model = "".join(part.capitalize() for part in event.split("_")) + "Event"
    text = "\n".join(path.read_text(encoding="utf-8") for path in SESSION_SOURCES)
    return re.search(rf"\b{model}\b|\bemit_{event}\(", text) is not None


def test_the_delivered_column_matches_what_the_session_raises() -> None:
    rows = re.findall(r"^\| `(\w+)` \|.*\| (yes|no) \|$", section("Events"), flags=re.MULTILINE)
    assert len(rows) == 41
    wrong = [(name, said) for name, said in rows if (said == "yes") != _raised_by_the_session(name)]
    assert wrong == []
