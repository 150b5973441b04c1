"""Drive a pi session from Python: one prompt, printing each event's type and then the reply.

    python sdk_session.py "List the Python files here and summarise them"

The session is built from the same files as the `pi` command (settings, keys, models.json,
AGENTS.md, skills), so the default model and its API key must be configured.
"""

from __future__ import annotations

import asyncio
import sys

from pi.app.sdk import CreateSessionOptions, create_agent_session


async def main(prompt: str) -> int:
    session = create_agent_session(CreateSessionOptions())
    session.subscribe(lambda event: print(event.to_json_dict()["type"], file=sys.stderr))
    await session.prompt(prompt)
    print(session.last_assistant_text() or "")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(" ".join(sys.argv[1:]) or "Say hello")))
