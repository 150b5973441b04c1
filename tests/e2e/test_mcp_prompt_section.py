"""The `mcp_servers` section when the servers change mid-session: appended, the system prompt kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.extensions.cli_support import Rpc, write_extension
from tests.app.mcp.conftest import FIXTURE
from tests.e2e.mcp_support import fixture_entry, system_prompt, write_mcp
from tests.support.cli_env import Env, env
from tests.support.openai_chunks import text_reply

__all__ = ["env"]

ADD_LATER = """
import sys
def setup(pi):
    def add(args, ctx):
        config = {{"command": sys.executable, "args": [{fixture!r}], "exposure": "deferred",
                   "description": "Tickets filed later"}}
        pi.register_mcp_server("later", config)
    pi.register_command("addsrv", add)
"""

FIRST = "- mcp__srv (tool_search): Search the docs"
LATER = "- mcp__later (tool_search): Tickets filed later"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [_text(m["content"]) for m in body["messages"] if m["role"] == "user"]


def test_a_changed_section_is_appended_and_the_system_prompt_stays_the_same(env: Env, tmp_path: Path) -> None:
    write_mcp(env.agent_dir, {"srv": fixture_entry(exposure="deferred", description="Search the docs")})
    ext = write_extension(tmp_path / "ext", "later.py", ADD_LATER.format(fixture=FIXTURE))
    env.server.queue(text_reply("one"), text_reply("two"), text_reply("three"))
    rpc = Rpc(env, "-e", str(ext))
    try:
        for index, message in enumerate(["first question", "/addsrv", "second question", "third question"]):
            rpc.send({"id": f"p{index}", "type": "prompt", "message": message})
            if message.startswith("/"):
                rpc.response(f"p{index}")
            else:
                rpc.read_until(lambda o: o.get("type") == "agent_settled")
    finally:
        assert rpc.close() == 0
    first, second, third = env.server.requests
    prompt = system_prompt(first)
    assert FIRST in prompt and "mcp__later" not in prompt
    assert system_prompt(second) == prompt and system_prompt(third) == prompt, "the cached prefix stays the same"
    first_body, second_body, third_body = first.json(), second.json(), third.json()
    assert second_body["messages"][: len(first_body["messages"])] == first_body["messages"]
    updates = [t for t in _user_texts(second_body) if t.startswith("MCP servers whose tools are not declared")]
    (update,) = updates
    assert FIRST in update and LATER in update
    assert update.index(LATER) < update.index(FIRST), "servers are listed by name"
    third_updates = [t for t in _user_texts(third_body) if t.startswith("MCP servers whose tools")]
    assert third_updates == updates, "an unchanged section is not appended again"
