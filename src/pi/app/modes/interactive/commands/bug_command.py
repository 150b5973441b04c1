"""/bug [text]: a bug report about this session, redacted, written to a file the user can attach.

A dialog asks whether the conversation goes in (`Include the conversation` / `Without the
conversation` / `Summarize it with the model`: the model reads the redacted conversation and a short
account of it goes in instead, see `bug_summary`). The report (Markdown) holds the user's
description, the pi, Python and platform versions, the terminal and UI mode, the model, the
settings, the last render crash log if there is one, and optionally the conversation as role/text
pairs. Before it is written everything passes `redact`: API keys and tokens, the values of
secret-looking environment variables, and the home directory (shown as `~`). Nothing is uploaded;
the path is shown: `Bug report written to <path>`.
"""

from __future__ import annotations

import json
import os
import platform
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi.app.modes.interactive.commands.api import InteractiveApi
    from pi.app.modes.interactive.commands.registry import Handler

REPORT_DIR = "bug-reports"
OPTIONS = ("Include the conversation", "Without the conversation", "Summarize it with the model")
_TOKEN_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{8,}"),
    re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{8,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r'(?i)("(?:api_?key|apiKey|token|secret|password|access|refresh)"\s*:\s*")[^"]+'),
)
_SECRET_NAME = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$")


def redact(text: str, environ: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """`text` with secrets replaced by `[redacted]` and the home directory by `~`."""
    env = os.environ if environ is None else environ
    for name, value in env.items():
        if _SECRET_NAME.search(name) and len(value) >= 6:
            text = text.replace(value, "[redacted]")
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + "[redacted]", text)
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/":
        text = text.replace(home, "~")
    return text


def _message_text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(getattr(block, "text", ""))
        elif kind == "toolCall":
            parts.append(f"[tool call {getattr(block, 'name', '')}: {json.dumps(getattr(block, 'arguments', {}))}]")
    return "\n".join(parts)


def conversation_lines(messages: list[Any]) -> list[str]:
    """The conversation as Markdown: a `### <role>` heading and the text of each message."""
    lines: list[str] = []
    for message in messages:
        role = getattr(message, "role", "?")
        lines += [f"### {role}", "", _message_text(message) or "(no text)", ""]
    return lines


def build_report(api: InteractiveApi, description: str, with_conversation: bool, summary: str | None = None) -> str:
    """The report's Markdown, redacted; `summary`: the model's account, which replaces the conversation."""
    from pi import __version__

    session = api.session
    model = session.model
    env = os.environ
    lines = [
        "# pi bug report",
        "",
        "## What happened",
        "",
        description or "(no description given)",
        "",
        "## Environment",
        "",
        f"- pi {__version__}, Python {platform.python_version()}, {platform.platform()}",
        f"- terminal: TERM={env.get('TERM', '')} TERM_PROGRAM={env.get('TERM_PROGRAM', '')}"
        f" tmux={'yes' if env.get('TMUX') else 'no'}",
        f"- UI mode: {api.settings.get('tuiMode', 'fullscreen')}",
        f"- model: {f'{model.provider}/{model.id}' if model is not None else '(none)'}",
        f"- session: {session.session_id}",
        "",
        "## Settings",
        "",
        "```json",
        json.dumps(api.settings.data, indent=2, default=str),
        "```",
    ]
    crash = api.agent_dir / "pi-tui-crash.log"
    if crash.is_file():
        lines += ["", "## Last render crash", "", "```", crash.read_text(errors="replace")[-4000:], "```"]
    if summary is not None:
        author = f"{model.provider}/{model.id}" if model is not None else "the model"
        lines += ["", f"## Summary of the conversation (written by {author})", "", summary]
    elif with_conversation:
        lines += ["", "## Conversation", "", *conversation_lines(session.messages)]
    return redact("\n".join(lines) + "\n")


def write_report(api: InteractiveApi, description: str, with_conversation: bool, summary: str | None = None) -> Path:
    from pi.app.atomic_file import write_atomic

    folder = api.agent_dir / REPORT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"pi-bug-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.md"
    write_atomic(path, build_report(api, description, with_conversation, summary))
    return path


async def _summarized_report(api: InteractiveApi, description: str) -> None:
    from pi.app.modes.interactive.commands.bug_summary import BugSummaryError, summarize_for_report

    transcript = redact("\n".join(conversation_lines(api.session.messages)))
    api.set_working("Summarizing the conversation for the bug report...")
    try:
        summary = await summarize_for_report(api.session, transcript, redact(description))
    except BugSummaryError as exc:
        api.show_error(f"Failed to summarize the conversation: {exc}")
        return
    finally:
        api.set_working(None)
    try:
        path = write_report(api, description, with_conversation=False, summary=summary)
    except OSError as exc:
        api.show_error(f"Failed to write the bug report: {exc}")
        return
    api.show_status(f"Bug report written to {path}")


async def cmd_bug(api: InteractiveApi, args: str) -> None:
    from pi.app.modes.interactive.pickers.dialogs import SelectDialog

    def chosen(index: int) -> None:
        api.close_selector()
        if index == 2:
            api.spawn(_summarized_report(api, args.strip()))
            return
        try:
            path = write_report(api, args.strip(), with_conversation=index == 0)
        except OSError as exc:
            api.show_error(f"Failed to write the bug report: {exc}")
            return
        api.show_status(f"Bug report written to {path}")

    def cancelled() -> None:
        api.close_selector()
        api.show_status("Bug report cancelled")

    dialog = SelectDialog(
        "Bug report",
        list(OPTIONS),
        api.theme,
        api.keybindings,
        message=["Secrets and your home directory are redacted. The report is written to a file; nothing is sent."],
        on_select=chosen,
        on_cancel=cancelled,
    )
    api.show_selector(dialog)


HANDLERS: dict[str, Handler] = {"bug": cmd_bug}

__all__ = ["HANDLERS", "OPTIONS", "REPORT_DIR", "build_report", "cmd_bug", "redact", "write_report"]
