"""/copy, /export, /import, /reload, /hotkeys, /changelog, /debug, /login, /logout, /trust and the unavailable ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi.ai.faux import faux_assistant_message
from pi.ai.types import AssistantMessage
from pi.app.modes.interactive.commands.account_commands import NO_CREDENTIALS
from pi.app.modes.interactive.commands.registry import CommandRegistry
from pi.app.modes.interactive.pickers.dialogs import SelectDialog
from tests.app.interactive.test_commands_fakes import DOWN, ENTER, ESC, Env, FakeApi, make_env, strip


async def _run(api: FakeApi, text: str) -> None:
    assert await CommandRegistry(api.session).execute(api, text)


async def _chat(env: Env, text: str = "hello", reply: str = "the reply") -> None:
    env.reasoning.append_responses([faux_assistant_message(reply)])
    await env.session.prompt(text)


async def test_copy_last_message_and_nothing_to_copy(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/copy")
    assert api.texts("error") == ["No agent messages to copy yet."]
    await _chat(env, reply="copy me")
    await _run(api, "/copy")
    assert api.clipboard == ["copy me"]
    assert api.texts("status") == ["Copied last agent message to clipboard"]
    api.clipboard_error = OSError("no clipboard tool")
    await _run(api, "/copy")
    assert api.texts("error")[-1] == "Could not copy to the clipboard: no clipboard tool"


async def test_export_html_default_name_quoted_path_and_jsonl(tmp_path: Path) -> None:
    env = make_env(tmp_path, persist=True)
    api = FakeApi(env)
    await _chat(env)
    await _run(api, "/export")
    stem = Path(env.session.session_file or "").name.removesuffix(".jsonl")
    default = env.cwd / f"pi-session-{stem}.html"
    assert api.texts("status") == [f"Session exported to: {default}"]
    assert "<html" in default.read_text().lower()
    await _run(api, '/export "my out.html"')
    assert (env.cwd / "my out.html").is_file()
    assert api.texts("status")[-1] == f"Session exported to: {env.cwd / 'my out.html'}"
    await _run(api, "/export copy.jsonl")
    assert (env.cwd / "copy.jsonl").read_text() == Path(env.session.session_file or "").read_text()


async def test_export_failure_is_reported(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/export out.jsonl")
    assert api.texts("error")[0].startswith("Failed to export session: ")
    assert not (env.cwd / "out.jsonl").exists()


async def test_import_usage_cancel_and_import(tmp_path: Path) -> None:
    source_env = make_env(tmp_path / "a", persist=True)
    await _chat(source_env, "imported question")
    exported = tmp_path / "exported.jsonl"
    exported.write_text(Path(source_env.session.session_file or "").read_text())
    env = make_env(tmp_path / "b", persist=True)
    api = FakeApi(env)
    await _run(api, "/import")
    assert api.texts("warning") == ["Usage: /import <path.jsonl>"]
    await _run(api, f"/import {exported}")
    assert isinstance(api.selector, SelectDialog)
    screen = api.screen()
    # The question wraps when the temporary path is long; compare it with the lines joined.
    joined = " ".join(line.strip() for line in screen if line.strip())
    assert " Import session" in screen and f"Replace current session with {exported}?" in joined
    api.press(ESC)
    assert api.texts("status") == ["Import cancelled"]
    await _run(api, f"/import {exported}")
    api.press(ENTER)
    await api.run_spawned()
    assert api.texts("status")[-1] == f"Session imported from: {exported}"
    assert env.session.session_id == source_env.session.session_id
    assert [m.role for m in env.session.messages] == ["system", "user", "assistant"]


async def test_reload_refused_while_streaming_else_reloads(tmp_path: Path) -> None:
    import asyncio

    env = make_env(tmp_path)
    api = FakeApi(env)
    gate, entered = asyncio.Event(), asyncio.Event()

    async def slow(context: Any, options: Any, state: Any, model: Any) -> AssistantMessage:
        entered.set()
        await gate.wait()
        return faux_assistant_message("late")

    env.reasoning.set_responses([slow])
    run = asyncio.create_task(env.session.prompt("slow one"))
    await asyncio.wait_for(entered.wait(), 10)
    assert env.session.is_streaming
    await _run(api, "/reload")
    assert api.texts("warning") == ["Wait for the current response to finish before reloading."]
    assert api.reloads == 0
    gate.set()
    await asyncio.wait_for(run, 10)
    api.events.clear()
    await _run(api, "/reload")
    assert api.reloads == 1
    box = api.selector_during_reload  # in the editor's place while reloading, gone afterwards
    assert box is not None and api.selector is None and not api.texts("notice")
    lines = [strip(line) for line in box.render(110)]
    assert lines == [
        "─" * 110,
        "",
        " Reloading keybindings, extensions, skills, prompts, themes, and context files...",
        "",
        "─" * 110,
    ]
    assert api.texts("status") == ["Reloaded keybindings, extensions, skills, prompts, themes, and context files"]


async def test_a_failed_reload_takes_its_box_down_too(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env, reload_error=RuntimeError("bad extension"))
    await _run(api, "/reload")
    assert api.selector_during_reload is not None and api.selector is None
    assert api.texts("error") == ["Reload failed: bad extension"]
    assert not api.texts("status")


async def test_hotkeys_tables_follow_the_keybindings(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/hotkeys")
    text = "\n".join(strip(line) for line in api.notices[-1].render(110))
    assert " Keyboard Shortcuts" in text
    for title in ("Navigation", "Editing", "Other"):
        assert f" {title}" in text
    assert "│ Ctrl+P / Shift+Ctrl+P │ Cycle models" in text
    assert all(len(line) <= 110 for line in text.splitlines())


async def test_debug_writes_the_log(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _chat(env)
    await _run(api, "/debug")
    log = env.agent_dir / "pi-debug.log"
    lines = log.read_text().splitlines()
    assert lines[0] == "Terminal: 110x35"
    assert "[1] (w=6) wide ✓" in lines
    assert json.loads(lines[-1])["role"] == "assistant"
    assert "✓ Debug log written" in api.texts("notice")[0] and str(log) in api.texts("notice")[0]


async def test_logout_with_nothing_stored_and_with_a_key(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/logout")
    assert api.texts("status") == [NO_CREDENTIALS]
    env.session.model_registry.auth.set_api_key("fake", "sk-test")
    await _run(api, "/logout")
    assert " → fake ✓ configured" in api.screen()
    api.press(ENTER)
    assert api.texts("status")[-1] == (
        "Removed stored API key for fake. Environment variables and models.json config are unchanged."
    )
    assert "fake" not in json.loads((env.agent_dir / "auth.json").read_text())


async def test_login_shows_the_three_methods(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/login")
    screen = api.screen()
    assert screen[2] == " Select authentication method:"
    assert screen[4:7] == [
        " → Sign in with an account",
        "   Sign in with an API key",
        "   Sign in with Radius • not configured",
    ]
    assert screen[8] == " ↑↓ navigate  enter select  escape/ctrl+c cancel"
    api.press(DOWN, ENTER)
    assert api.screen()[2] == " Select provider to configure:"  # the sign-in itself: tests/app/oauth/test_login_ui.py
    api.press(ESC, ESC)
    assert api.selector is None and api.events == []


async def test_trust_saves_the_decision(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/trust")
    screen = api.screen()
    assert " Project trust" in screen and " Saved decision: none" in screen
    api.press(ENTER)
    assert api.texts("status") == ["Saved trust decision: trusted. Restart pi for this to take effect."]
    from pi.app.trust import canonical_dir

    assert json.loads((env.agent_dir / "trust.json").read_text()) == {canonical_dir(env.cwd): True}
    await _run(api, "/trust")
    assert " Saved decision: trusted" in api.screen()
    api.press(DOWN, DOWN, ENTER)
    assert api.texts("status")[-1] == "Saved trust decision: untrusted. Restart pi for this to take effect."
    assert json.loads((env.agent_dir / "trust.json").read_text()) == {canonical_dir(env.cwd): False}


async def test_llama_without_the_extension_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi.app.llama.config import NOT_CONFIGURED
    from pi.app.modes.interactive.commands.account_commands import LLAMA_NOT_LOADED

    monkeypatch.delenv("LLAMA_BASE_URL", raising=False)
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/llama")
    monkeypatch.setenv("LLAMA_BASE_URL", "http://127.0.0.1:9931")
    await _run(api, "/llama")
    assert api.texts("warning") == [NOT_CONFIGURED, LLAMA_NOT_LOADED]


async def test_bug_asks_then_writes_the_report(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/bug it broke")
    assert "Include the conversation" in "\n".join(api.screen())
    api.press(ESC)
    assert api.texts("status") == ["Bug report cancelled"]
    await _run(api, "/bug it broke")
    api.press(DOWN, ENTER)  # without the conversation
    status = api.texts("status")[-1]
    assert status.startswith("Bug report written to ")
    body = Path(status.removeprefix("Bug report written to ")).read_text()
    assert "it broke" in body and "## Conversation" not in body


async def test_changelog_shows_the_bundled_changelog(tmp_path: Path) -> None:
    from pi.version import __version__

    env = make_env(tmp_path)
    api = FakeApi(env)
    await _run(api, "/changelog")
    shown = strip("\n".join(api.texts("notice")))
    assert "What's New" in shown
    assert f"[{__version__}]" in shown
