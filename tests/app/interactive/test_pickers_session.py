"""Session picker behaviour: search forms, named filter, path column, rename and delete with confirmation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from pi.ai.faux import faux_assistant_message
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.session_picker import (
    DELETE_PROMPT,
    NO_SESSION_SELECTED,
    SessionPicker,
    startup_session_picker,
)
from pi.app.modes.interactive.pickers.session_rows import age, arrange, match_score
from pi.session.listing import SessionInfo, session_info
from pi.tui.keybindings import KeybindingsManager
from pi.tui.theme import Theme
from tests.app.interactive.test_commands_fakes import ENTER, ESC, FakeApi, make_env, strip

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CTRL_D, CTRL_N, CTRL_P, CTRL_R = "\x04", "\x0e", "\x10", "\x12"


def _info(name: str | None, first: str, minutes: int, text: str = "", parent: str | None = None) -> SessionInfo:
    moment = NOW - timedelta(minutes=minutes)
    path = f"/s/{first.replace(' ', '_')}.jsonl"
    return SessionInfo(Path(path), path, "/w", name, parent, moment, moment, 4, first, f"{first} {text}")


SESSIONS = [
    _info("demo", "alpha question", 1, "talks about parsers"),
    _info(None, "beta question", 10, "mentions Regex-42 here"),
    _info(None, "gamma question", 60 * 30, "exact phrase inside"),
]


def _picker(**kwargs: object) -> tuple[SessionPicker, list[str]]:
    calls: list[str] = []
    picker = SessionPicker(
        lambda scope: list(SESSIONS) if scope == "current" else [*SESSIONS, _info(None, "elsewhere", 5)],
        Theme.plain(),
        KeybindingsManager(),
        on_select=lambda info: calls.append(f"select {info.first_message}"),
        on_cancel=lambda: calls.append("cancel"),
        on_rename=lambda info, name: calls.append(f"rename {info.first_message} -> {name}"),
        on_delete=lambda info: calls.append(f"delete {info.first_message}"),
        now=lambda: NOW,
        **kwargs,  # type: ignore[arg-type]
    )
    return picker, calls


def _rows(picker: SessionPicker) -> list[str]:
    return [r.info.first_message for r in picker.rows]


def test_age_column() -> None:
    assert [age(NOW - timedelta(seconds=s), NOW) for s in (5, 120, 7200, 3 * 86400, 15 * 86400)] == [
        "now",
        "2m",
        "2h",
        "3d",
        "2w",
    ]


def test_search_fuzzy_regex_and_phrase() -> None:
    assert match_score(SESSIONS[1], "re:regex-\\d+") is not None
    assert match_score(SESSIONS[0], "re:regex-\\d+") is None
    assert match_score(SESSIONS[2], '"exact phrase"') is not None
    assert match_score(SESSIONS[2], '"phrase exact"') is None
    assert match_score(SESSIONS[0], "re:[") is None
    assert [r.info.first_message for r in arrange(SESSIONS, "fuzzy", "gamma", False)] == ["gamma question"]


def test_typing_filters_and_enter_selects() -> None:
    picker, calls = _picker()
    for ch in "beta":
        picker.handle_input(ch)
    assert _rows(picker) == ["beta question"]
    picker.handle_input(ENTER)
    assert calls == ["select beta question"]


def test_named_filter_scope_and_path_column() -> None:
    picker, _ = _picker()
    picker.handle_input(CTRL_N)
    assert _rows(picker) == ["alpha question"]
    assert strip(picker.render(110)[2]).endswith("Name: Named  Sort: Threaded")
    picker.handle_input(CTRL_N)
    picker.handle_input("\t")
    assert "elsewhere" in _rows(picker)
    picker.handle_input(CTRL_P)
    assert "/s/alpha_question.jsonl" in strip(picker.render(110)[8])
    assert "path (on)" in strip(picker.render(110)[4])


def test_delete_asks_first_and_escape_keeps_the_session() -> None:
    picker, calls = _picker()
    picker.handle_input(CTRL_D)
    assert DELETE_PROMPT in [strip(line).strip() for line in picker.render(110)]
    picker.handle_input(ESC)
    assert calls == []
    picker.handle_input(CTRL_D)
    picker.handle_input(ENTER)
    assert calls == ["delete alpha question"]


def test_current_session_cannot_be_deleted() -> None:
    picker, calls = _picker(current_path="/s/alpha_question.jsonl")
    picker.handle_input(CTRL_D)
    picker.handle_input(ENTER)
    assert calls == []
    assert "Cannot delete the current session" in [strip(line).strip() for line in picker.render(110)]


def test_rename_inline() -> None:
    picker, calls = _picker()
    picker.handle_input("\x1b[B")
    picker.handle_input(CTRL_R)
    for ch in "new name":
        picker.handle_input(ch)
    assert "Rename: new name" in [strip(line) for line in picker.render(110)]
    picker.handle_input(ENTER)
    assert calls == ["rename beta question -> new name"]


def test_threaded_nests_forks() -> None:
    parent = _info(None, "root", 5)
    child = _info(None, "child", 3, parent=str(parent.path))
    grandchild = _info(None, "grandchild", 1, parent=str(child.path))
    rows = arrange([grandchild, child, parent], "threaded", "", False)
    assert [(r.info.first_message, r.depth) for r in rows] == [("root", 0), ("child", 1), ("grandchild", 2)]
    assert [r.info.first_message for r in arrange([grandchild, child, parent], "recent", "", False)] == [
        "grandchild",
        "child",
        "root",
    ]


async def test_startup_picker_lists_this_folder_and_reports_cancel(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    env.reasoning.append_responses([faux_assistant_message("hi")])
    await env.session.prompt("hello there")
    results: list[SessionInfo | None] = []
    picker = startup_session_picker(str(env.cwd), env.agent_dir, Theme.plain(), KeybindingsManager(), results.append)
    screen = [strip(line) for line in picker.render(110)]
    assert screen[4] == "ctrl+s sort · ctrl+n named · ctrl+d delete · ctrl+p path (off)"
    assert screen[8].startswith("› hello there") and screen[8].endswith("3 now")  # the system message counts too
    picker.handle_input(ENTER)
    assert results and results[0] is not None and str(results[0].path) == env.session.session_file
    picker.handle_input(ESC)
    assert results[-1] is None
    assert NO_SESSION_SELECTED == "No session selected"


async def test_resume_rename_other_session_and_delete_it(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    env.reasoning.append_responses([faux_assistant_message("a"), faux_assistant_message("b")])
    await env.session.prompt("older one")
    older = env.session.session_file
    assert older is not None
    await env.session.new_session()
    await env.session.prompt("newer one")
    assert await CommandRegistry(env.session).execute(api, "/resume")
    # Both sessions can carry the same millisecond (and the same coarse file mtime), so the older one
    # is picked by a search, not by its place in the list.
    for ch in "older":
        api.press(ch)
    assert [strip(line) for line in api.screen()][8].startswith("› older one")
    api.press(CTRL_R)
    for ch in "kept":
        api.press(ch)
    api.press(ENTER)
    info = session_info(older)
    assert info is not None and info.name == "kept"
    api.press(CTRL_N)
    assert [strip(line) for line in api.screen()][8].startswith("› kept")
    api.press(CTRL_D, ENTER)
    assert not Path(older).exists()
    assert Path(env.session.session_file or "").exists()
