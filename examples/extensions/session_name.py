"""Name sessions after their first prompt, and rename them with `/name <text>`.

A session without a name gets the first line of its first prompt (shortened to 60 characters)
once the first reply is in; session lists then show something better than an id.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI


def short_name(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def setup(pi: ExtensionAPI) -> None:
    first_prompt: dict[str, str] = {}

    @pi.on("before_agent_start")
    def remember(event: Any, ctx: Any) -> None:
        if event.message_type == "user":
            first_prompt.setdefault("text", event.prompt)

    @pi.on("agent_end")
    def name_it(event: Any, ctx: Any) -> None:
        if pi.get_session_name() is None and first_prompt.get("text"):
            pi.set_session_name(short_name(first_prompt["text"]))

    async def rename(args: str, ctx: Any) -> None:
        if not args.strip():
            ctx.ui.notify("Usage: /name <new session name>", "warning")
            return
        pi.set_session_name(args.strip())

    pi.register_command("name", rename, description="Rename the session")
