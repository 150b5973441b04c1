"""/tree beyond navigation: filters, search, labels, copy, and the summarize-branch prompt (§10.6)."""

from __future__ import annotations

from pathlib import Path

from pi.ai.faux import faux_assistant_message
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.tree_view import TreeView
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, UP, Env, FakeApi, make_env

CTRL_U, CTRL_A, CTRL_D, CTRL_X, CTRL_O = "\x15", "\x01", "\x04", "\x18", "\x0f"
SHIFT_L, SHIFT_T = "L", "T"


async def _chat(env: Env, *prompts: str) -> None:
    for index, text in enumerate(prompts):
        env.reasoning.append_responses([faux_assistant_message(f"reply {index}")])
        await env.session.prompt(text)


async def _tree(api: FakeApi) -> TreeView:
    assert await CommandRegistry(api.session).execute(api, "/tree")
    assert isinstance(api.selector, TreeView)
    return api.selector


def _rows(api: FakeApi) -> list[str]:
    return [
        line for line in api.screen() if line.startswith(("› ", "  ")) and ("user:" in line or "assistant:" in line)
    ]


async def test_filters_tag_the_counter_and_keep_the_cursor(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    view = await _tree(api)
    assert any("assistant: reply 1" in row for row in _rows(api))
    api.press(CTRL_U)
    screen = api.screen()
    assert screen[-2].strip() == "(2/2) [user]"
    assert all("user:" in row for row in _rows(api)) and len(_rows(api)) == 2
    api.press(CTRL_A)
    assert api.screen()[-2].strip().endswith("[all]")
    assert any("[model: " in line for line in api.screen())
    api.press(CTRL_D)
    assert not any("[model: " in line for line in api.screen())
    assert "[" not in api.screen()[-2]
    api.press(CTRL_O)
    assert api.screen()[-2].strip().endswith("[no-tools]")
    assert view.filter_mode == "no-tools"


async def test_search_narrows_rows_and_backspace_widens(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "alpha question", "beta question")
    await _tree(api)
    api.press(*"beta")
    screen = api.screen()
    assert "  Type to search: beta" in screen
    assert [row.strip().lstrip("› ") for row in _rows(api)] == ["• user: beta question"]
    api.press("\x7f", "\x7f", "\x7f", "\x7f")
    assert len(_rows(api)) == 4


async def test_label_is_saved_and_shown(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question")
    await _tree(api)
    api.press(UP)  # the user message
    api.press(SHIFT_L)
    assert "Label" in "\n".join(api.screen())
    api.press(*"start", ENTER)
    assert isinstance(api.selector, TreeView)
    assert any("[start] user: first question" in line for line in api.screen())
    api.press(SHIFT_T)
    assert api.screen()[-2].strip().endswith("[+label time]")
    api.press(ESC)
    view = await _tree(api)  # kept in the session: a new tree shows it too
    assert any(row.label == "start" for row in view.rows)
    api.press(CTRL_O, CTRL_O, CTRL_O)  # labeled-only
    assert view.filter_mode == "labeled-only" and [r.label for r in view.rows] == ["start"]


async def test_ctrl_x_copies_the_selected_entry(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "copy   me please")
    await _tree(api)
    api.press(UP, CTRL_X)
    assert api.clipboard == ["copy   me please"]
    assert api.texts("status")[-1] == "Copied selected message to clipboard"


async def test_summarize_branch_records_a_summary(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    await _tree(api)
    api.press(UP)
    api.press(ENTER)
    screen = api.screen()
    assert [line.strip() for line in screen if "summary" in line.lower() or "Summarize" in line][:4] == [
        "Summarize branch?",
        "→ No summary",
        "Summarize",
        "Summarize with custom prompt",
    ]
    env.reasoning.append_responses([faux_assistant_message("The branch asked a second question.")])
    api.press(DOWN, ENTER)
    await api.run_spawned()
    assert ("working", "Summarizing branch... (escape to cancel)") in api.events
    assert api.events[-1] != ("working", "Summarizing branch... (escape to cancel)")
    assert api.texts("status")[-1] == "Navigated to selected point"
    assert api.editor_text == "second question"
    kinds = [entry.type for entry in env.session.session.get_branch()]
    assert kinds[-1] == "branch_summary"


async def test_custom_prompt_and_skip_prompt(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"branchSummary": {"skipPrompt": True}}, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    await _tree(api)
    api.press(UP, ENTER)  # no question: straight there, no summary
    await api.run_spawned()
    assert api.texts("status")[-1] == "Navigated to selected point"
    assert env.session.session.get_branch()[-1].type != "branch_summary"

    env2 = make_env(tmp_path / "b", persist=True)
    api2 = FakeApi(env2)
    await _chat(env2, "first question", "second question")
    await _tree(api2)
    api2.press(UP, ENTER, DOWN, DOWN, ENTER)
    assert "Custom summary instructions" in "\n".join(api2.screen())
    env2.reasoning.append_responses([faux_assistant_message("Summary focused on tests.")])
    api2.press(*"focus on tests", ENTER)
    await api2.run_spawned()
    assert "focus on tests" in str(env2.reasoning.contexts[-1].messages[-1].content)
    assert env2.session.session.get_branch()[-1].type == "branch_summary"


async def test_fold_hides_a_branch_and_unfold_shows_it(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    await _tree(api)
    api.press(UP, ENTER, ENTER)  # to before "second question", no summary
    await api.run_spawned()
    await _chat(env, "other branch")
    view = await _tree(api)
    starts = [i for i, row in enumerate(view.rows) if row.prefix.endswith(("├⊟ ", "└⊟ "))]
    assert len(starts) == 2
    view.selected = starts[0]
    before = len(view.rows)
    api.press("\x1b[1;5D")  # Ctrl+Left: fold
    assert len(view.rows) < before
    assert any("├⊞ " in line for line in api.screen())
    assert not any("reply 1" in line for line in api.screen())
    api.press("\x1b[1;5C")  # Ctrl+Right: unfold
    assert len(view.rows) == before
    api.press("\x1b[1;5C")  # not folded: jump to the next branch start
    assert view.selected == starts[1]
