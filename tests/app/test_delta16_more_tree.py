"""`session_tree` after a move with a summary carries the summary entry and who wrote it (extensions spec)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.session.entries import BranchSummaryEntry
from tests.app.extensions.test_session_binding import make_session


async def _two_prompts(faux: FauxProvider, session: Any) -> str:
    faux.set_responses([faux_assistant_message("one"), faux_assistant_message("two")])
    await session.prompt("first")
    await session.prompt("second")
    return str(session.fork_messages()[1]["entryId"])


def _recording(gate: dict[str, Any] | None) -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    def setup(pi: Any) -> None:
        if gate is not None:
            pi.on("session_before_tree", lambda event, ctx: gate)
        pi.on("session_tree", lambda event, ctx: seen.append(event))

    return setup, seen


async def test_session_tree_names_the_summary_an_extension_gave(faux: FauxProvider, tmp_path: Path) -> None:
    setup, seen = _recording({"summary": {"summary": "from the extension"}})
    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    target = await _two_prompts(faux, session)
    old_leaf = session.session.get_leaf_id()
    await session.navigate_tree(target, summarize=True)
    (event,) = seen
    (recorded,) = [e for e in session.session.get_entries() if isinstance(e, BranchSummaryEntry)]
    assert event.old_leaf_id == old_leaf and event.new_leaf_id == recorded.id
    assert event.summary_entry is not None and event.summary_entry.id == recorded.id
    assert event.summary_entry.summary == "from the extension"
    assert event.from_extension is True


async def test_session_tree_names_a_summary_the_model_wrote(faux: FauxProvider, tmp_path: Path) -> None:
    setup, seen = _recording(None)
    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    target = await _two_prompts(faux, session)
    faux.set_responses([faux_assistant_message("what the branch did")])
    await session.navigate_tree(target, summarize=True)
    (event,) = seen
    assert event.summary_entry is not None and "what the branch did" in event.summary_entry.summary
    assert event.from_extension is False


async def test_session_tree_without_a_summary_has_no_summary_entry(faux: FauxProvider, tmp_path: Path) -> None:
    setup, seen = _recording(None)
    session = make_session(faux, tmp_path, [setup])
    await session.bind_extensions()
    target = await _two_prompts(faux, session)
    await session.navigate_tree(target)
    (event,) = seen
    assert event.summary_entry is None and event.from_extension is None
    assert event.new_leaf_id == session.session.get_leaf_id()
