"""The built-in slash commands as the `/` menu lists them: name, argument hint, description, in menu order.

The order is the one users know from the menu (settings first, mcp last); `/debug` works but is
not listed.
"""

from __future__ import annotations

from msgspec import Struct


class CommandInfo(Struct, frozen=True):
    name: str
    description: str
    argument_hint: str = ""
    hidden: bool = False


BUILTIN_COMMANDS: tuple[CommandInfo, ...] = (
    CommandInfo("settings", "Open settings menu"),
    CommandInfo("model", "Select model (opens selector UI)", "<provider/model>"),
    CommandInfo("tree", "Navigate session tree (switch branches)"),
    CommandInfo("thinking", "Set thinking level", "<level>"),
    CommandInfo("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    CommandInfo("export", "Export the session to HTML (or JSONL with a .jsonl path)", "[path]"),
    CommandInfo("import", "Import a JSONL session, preserving its ID and working directory", "<path.jsonl>"),
    CommandInfo("share", "Share session via a Radius artifact or a GitHub gist"),
    CommandInfo("bug", "Write a bug report about this session", "[text]"),
    CommandInfo("copy", "Copy the last agent message to the clipboard"),
    CommandInfo("name", "Set the session display name", "<name>"),
    CommandInfo("session", "Show session info and token usage"),
    CommandInfo("changelog", "Show the changelog"),
    CommandInfo("hotkeys", "Show all keyboard shortcuts"),
    CommandInfo("fork", "Continue from an earlier user message in a new session"),
    CommandInfo("clone", "Copy the current branch into a new session"),
    CommandInfo("trust", "Show or change whether this project folder is trusted"),
    CommandInfo("login", "Sign in with an account or an API key", "[provider]"),
    CommandInfo("logout", "Remove credentials stored by /login"),
    CommandInfo("new", "Start a new session"),
    CommandInfo("compact", "Summarize older messages to free context", "[instructions]"),
    CommandInfo("resume", "Resume a different session"),
    CommandInfo("reload", "Reload keybindings, extensions, skills, prompts, themes, and context files"),
    CommandInfo("quit", "Quit pi"),
    CommandInfo("llama", "Manage llama.cpp models"),
    CommandInfo("mcp", "Manage MCP servers"),
    CommandInfo("debug", "Write a debug log of the screen and the session", hidden=True),
)


__all__ = ["BUILTIN_COMMANDS", "CommandInfo"]
