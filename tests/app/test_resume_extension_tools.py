"""The `pi` process end to end: a resumed session gets back the extension tools it had active.

Built-in tools come back from the session's system messages at start-up; extension and MCP tools
register later (after `setup`, or when a server connects), and are activated as they register.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.app.test_cli_e2e import Rpc
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply

EXTENSION = textwrap.dedent(
    '''
    """A tool that is off until the prompt `enable beacon` turns it on."""

    from typing import Any


    def setup(pi: Any) -> None:
        async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
            return {"content": [{"type": "text", "text": "beep"}]}

        registered = []

        def register() -> None:
            if registered:
                return
            registered.append(True)
            pi.register_tool(
                {
                    "name": "beacon",
                    "label": "Beacon",
                    "description": "Send a beep.",
                    "parameters": {"type": "object", "properties": {}},
                    "execute": execute,
                    "default_active": False,
                }
            )

        if WHEN == "setup":
            register()
        else:
            pi.on(WHEN, lambda event, ctx: register())

        def on_input(event: Any, ctx: Any) -> Any:
            if event.text == "enable beacon":
                pi.set_active_tools([*pi.get_active_tools(), "beacon"])
            return None

        pi.on("input", on_input)
    '''
)


def _extension(env: Env, when: str = "setup") -> Path:
    """The extension registering its tool in `setup`, or in the handler of the event `when`."""
    path = env.cwd.parent / f"beacon_{when}.py"
    path.write_text(f"WHEN = {when!r}\n" + EXTENSION)
    return path


def _sent_tools(env: Env, *args: str) -> list[str]:
    env.server.queue(text_reply("ok"))
    before = len(env.server.requests)
    done = env.run("-p", *MODEL, *args)
    assert done.returncode == 0, done.stderr
    assert len(env.server.requests) == before + 1
    body = env.server.requests[-1].json()
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def test_continue_declares_the_extension_tool_the_session_had_activated(env: Env) -> None:
    extension = str(_extension(env))
    assert "beacon" not in _sent_tools(env, "-e", extension, "-t", "read", "hello")
    assert _sent_tools(env, "-e", extension, "-c", "enable beacon") == ["read", "beacon"]
    assert _sent_tools(env, "-e", extension, "-c", "still there?") == ["read", "beacon"]


def test_a_tool_registered_after_start_up_comes_back_too(env: Env) -> None:
    extension = str(_extension(env, "session_start"))
    assert _sent_tools(env, "-e", extension, "enable beacon")[-1] == "beacon"
    assert _sent_tools(env, "-e", extension, "-c", "next")[-1] == "beacon"


def test_a_fresh_session_and_an_explicit_tool_list_do_not_restore_it(env: Env) -> None:
    extension = str(_extension(env))
    assert _sent_tools(env, "-e", extension, "enable beacon")[-1] == "beacon"
    assert "beacon" not in _sent_tools(env, "-e", extension, "new session")
    assert _sent_tools(env, "-e", extension, "enable beacon")[-1] == "beacon"
    assert _sent_tools(env, "-e", extension, "-c", "-t", "read", "explicit") == ["read"]


def test_a_tool_that_registers_after_the_first_request_is_restored_for_the_next(env: Env) -> None:
    """Like an MCP server connecting late: the first request goes out without it (and the session
    records that), yet the tool comes back once it registers."""
    first = str(_extension(env))
    assert _sent_tools(env, "-e", first, "enable beacon")[-1] == "beacon"
    late = str(_extension(env, "agent_end"))
    env.server.queue(text_reply("one"), text_reply("two"))
    rpc = Rpc(env, "-e", late, "-c")
    try:
        for index, text in enumerate(("one", "two")):
            rpc.send({"id": f"p{index}", "type": "prompt", "message": text})
            rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    one, two = (request.json() for request in env.server.requests[-2:])
    assert "beacon" not in [tool["function"]["name"] for tool in one.get("tools", [])]
    assert [tool["function"]["name"] for tool in two.get("tools", [])][-1] == "beacon"
