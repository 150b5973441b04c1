"""Hand a sub-task to a separate `pi` process and get back its final answer.

The `subagent` tool runs `pi --mode json -p <task>` in the session's directory with the same
model, reads the JSON event stream it prints, and returns the text of the child's last assistant
message. The child has its own context (it sees none of this conversation) and keeps no session
file. `PI_SUBAGENT_ARGS` may add options for the child (for example `--tools read,grep`).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from pi.app.extensions import ExtensionAPI

PARAMETERS = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "Everything the helper needs to know"}},
    "required": ["task"],
}


def final_text(stdout: str) -> str | None:
    """The text of the last assistant message in a `--mode json` event stream."""
    answer: str | None = None
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        message = event.get("message") if event.get("type") == "message_end" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            texts = [b.get("text", "") for b in message.get("content", []) if b.get("type") == "text"]
            answer = "".join(texts) or answer
    return answer


def setup(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        model = ctx.model
        args = ["-m", "pi", "--mode", "json", "--no-session"]
        if model is not None:
            args += ["--provider", model.provider, "--model", model.id]
        args += [*shlex.split(os.environ.get("PI_SUBAGENT_ARGS", "")), "-p", params["task"]]
        result = await pi.exec(sys.executable, args, signal=signal, timeout_ms=10 * 60 * 1000)
        answer = final_text(result.stdout)
        if result.code != 0 or answer is None:
            detail = result.stderr.strip() or f"exit code {result.code}"
            return {
                "content": [{"type": "text", "text": f"The helper failed: {detail}"}],
                "details": None,
                "isError": True,
            }
        return {"content": [{"type": "text", "text": answer}], "details": {"exitCode": result.code}}

    pi.register_tool(
        {
            "name": "subagent",
            "label": "Subagent",
            "description": "Run a self-contained sub-task in a separate pi and return its final answer.",
            "parameters": PARAMETERS,
            "execute": execute,
        }
    )
