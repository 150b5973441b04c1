"""Session commands against a real session: /new, /resume, /name, /session, /compact, /clone, /fork, /tree."""

from __future__ import annotations

from pathlib import Path

from pi.ai.faux import faux_assistant_message
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.fork_picker import ForkPicker
from pi.app.modes.interactive.pickers.session_picker import SessionPicker
from pi.app.modes.interactive.pickers.tree_view import TreeView
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, UP, Env, FakeApi, make_env, strip


async def _run(api: FakeApi, text: str) -> None:
    assert await CommandRegistry(api.session).execute(api, text)


async def _chat(env: Env, *prompts: str) -> None:
    for index, text in enumerate(prompts):
        env.reasoning.append_responses([faux_assistant_message(f"reply {index}")])
        await env.session.prompt(text)


async def test_new_session_restores_default_thinking_level(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"defaultThinkingLevel": "low"})
    api = FakeApi(env)
    await _chat(env, "hello")
    env.session.set_thinking_level("high")
    old_id = env.session.session_id
    await _run(api, "/new")
    assert env.session.session_id != old_id
    assert env.session.messages == []
    assert env.session.thinking_level == "low"
    assert api.rebuilt == 1
    assert api.events[-1] == ("notice", "\n ✓ New session started")


async def test_name_set_show_usage_and_normalized(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/name")
    assert api.texts("warning") == ["Usage: /name <name>"]
    await _run(api, "/name demo")
    assert api.texts("status") == ["Session name set: demo"]
    assert env.session.session_name == "demo"
    await _run(api, "/name")
    assert api.texts("status")[-1] == "Session name: demo"
    await _run(api, "/name two\nlines")
    assert env.session.session_name == "two lines"
    assert api.texts("warning")[-1] == 'Session name was normalized from "two\nlines" to "two lines"'


async def test_session_info_block(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "hello", "again")
    await _run(api, "/session")
    text = "\n".join(strip(line) for line in api.notices[-1].render(400))
    assert " Session Info" in text
    assert f" File: {env.session.session_file}" in text
    assert f" ID: {env.session.session_id}" in text
    # Total counts every message of the session, the system message (prompt and tools) included.
    assert " Total: 5\n User: 2\n Assistant: 2\n Tools: 0 calls, 0 results" in text
    # The warmer's real state: the scripted model declares no prompt-cache lifetime.
    assert " Cache Warming\n Mode: idle\n Status: Inactive (cache lifetime unavailable)" in text


async def test_compact_on_tiny_session_reports_nothing_to_compact(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/compact")
    assert api.texts("error") == ["Compaction failed: Nothing to compact (session too small)"]


async def test_clone_and_nothing_to_clone(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _run(api, "/clone")
    assert api.texts("status") == ["Nothing to clone yet"]
    await _chat(env, "hello")
    old = env.session.session_file
    await _run(api, "/clone")
    assert api.texts("status")[-1] == "Cloned to new session"
    assert env.session.session_file != old
    assert [m.role for m in env.session.messages] == ["system", "user", "assistant"]


async def test_fork_picker_lists_user_messages_and_forks(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    await _run(api, "/fork")
    assert isinstance(api.selector, ForkPicker)
    screen = api.screen()
    assert "  Message 1 of 2" in screen and "› second question" in screen
    api.press(UP, ENTER)
    await api.run_spawned()
    assert api.editor_text == "first question"
    assert api.texts("status") == ["Forked to new session"]
    assert [m.role for m in env.session.messages] == ["system"]  # the prompt declaration before the fork point


async def test_resume_picker_switches_and_cancel(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "the first session")
    first = env.session.session_file
    await _run(api, "/new")
    await _chat(env, "the second session")
    await _run(api, "/resume")
    assert isinstance(api.selector, SessionPicker)
    screen = api.screen()
    assert screen[2].startswith("Resume Session (Current Folder)")
    rows = [line for line in screen if line.startswith(("› ", "  the"))]
    assert rows[0].startswith("› the second session") and rows[1].startswith("  the first session")
    api.press(ESC)
    assert api.texts("status")[-1] == "Resume cancelled"
    await _run(api, "/resume")
    api.press(DOWN, ENTER)
    await api.run_spawned()
    assert env.session.session_file == first
    assert api.texts("status")[-1] == "Resumed session"
    assert [m.role for m in env.session.messages] == ["system", "user", "assistant"]


async def test_tree_navigates_to_a_user_message(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env, "first question", "second question")
    await _run(api, "/tree")
    assert isinstance(api.selector, TreeView)
    screen = api.screen()
    assert "   Session Tree" in screen
    assert "› • assistant: reply 1" in screen
    assert screen[-2].strip() == f"({len(api.selector.rows)}/{len(api.selector.rows)})"
    api.press(ENTER)
    await api.run_spawned()
    assert api.texts("status") == ["Already at this point"]
    await _run(api, "/tree")
    api.press(UP)  # the second user message
    api.press(ENTER)
    assert "Summarize branch?" in api.screen()[2]
    api.press(ENTER)  # No summary
    await api.run_spawned()
    assert api.texts("status")[-1] == "Navigated to selected point"
    assert api.editor_text == "second question"
    assert [m.role for m in env.session.messages] == ["system", "user", "assistant"]
    await _chat(env, "another branch")
    await _run(api, "/tree")
    joined = "\n".join(api.screen())
    assert "├⊟ " in joined and "└⊟ " in joined


async def test_compact_summarizes_and_redraws(tmp_path: Path) -> None:
    env = make_env(tmp_path, {"compaction": {"keepRecentTokens": 10}}, persist=True)
    api = FakeApi(env)
    await _chat(env, "word " * 200, "more " * 200, "last question")
    env.reasoning.append_responses([faux_assistant_message("## Goal\nsummary of it all")])
    await _run(api, "/compact keep the goal")
    assert api.texts("error") == []
    assert api.rebuilt == 1
    assert [m.role for m in env.session.messages[:2]] == ["system", "compactionSummary"]  # checkpoint first
    assert "keep the goal" in str(env.reasoning.contexts[-1].messages[-1].content)
