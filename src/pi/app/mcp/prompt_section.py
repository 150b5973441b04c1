"""The `mcp_servers` system-prompt section: servers whose tools the model does not see declared.

The model needs to know such servers exist to look for their tools (codemode's `searchTools`, or
`tool_search`). The section stays small: one line per server, at most 4096 characters. It goes
into the system prompt once; later versions are appended as messages, so the request prefix that
providers cache stays the same for the whole session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from msgspec import Struct

from pi.app.mcp.config import ServerConfig
from pi.app.mcp.naming import namespace_name

MAX_SECTION_CHARS = 4096
MAX_SUMMARY_CHARS = 250
SECTION_MESSAGE_TYPE = "mcp_servers"
NO_SERVERS_LEFT = "MCP servers whose tools are not declared to you: none any more."
Reach = Literal["codemode", "tool_search"]


class ServerSummary(Struct, frozen=True):
    name: str
    reach: Reach
    summary: str | None


def reach_of(server: ServerConfig) -> Reach | None:
    """How the model reaches a server's undeclared tools; None when all of them are direct or hidden."""
    exposures = [server.exposure, *server.tool_exposure.values()]
    for exposure in exposures:
        if exposure == "codemode":
            return "codemode"
        if exposure == "deferred":
            return "tool_search"
    return None


def summarize(server: ServerConfig, instructions: str | None) -> ServerSummary | None:
    if not server.enabled:
        return None
    reach = reach_of(server)
    if reach is None:
        return None
    source = server.description or instructions or ""
    first = source.strip().split("\n", 1)[0].strip()
    if len(first) > MAX_SUMMARY_CHARS:
        first = first[: MAX_SUMMARY_CHARS - 1].rstrip() + "…"
    return ServerSummary(server.name, reach, first or None)


def _line(item: ServerSummary) -> str:
    return f"- {namespace_name(item.name)} ({item.reach})" + (f": {item.summary}" if item.summary else "")


def mcp_servers_section(servers: Iterable[tuple[ServerConfig, str | None]]) -> str:
    """The section text for `(server, instructions)` pairs; empty when no server qualifies."""
    items = sorted((s for s in (summarize(c, i) for c, i in servers) if s is not None), key=lambda s: s.name)
    if not items:
        return ""
    head = "MCP servers whose tools are not declared to you."
    if any(item.reach == "codemode" for item in items):
        head += " Call the tools of `codemode` servers from codemode scripts."
    if any(item.reach == "tool_search" for item in items):
        head += " Load the tools of `tool_search` servers with `tool_search`."
    lines = [head]
    for index, item in enumerate(items):
        line = _line(item)
        rest = len(items) - index
        overflow = f"- … {rest} more server(s); find their tools with searchTools()"
        budget = MAX_SECTION_CHARS - len("\n".join(lines)) - 1
        if len(line) > budget or (rest > 1 and len(line) + 1 + len(overflow) > budget):
            fits_alone = rest == 1 and len(line) <= budget
            if not fits_alone:
                lines.append(overflow)
                break
        lines.append(line)
    return "\n".join(lines)


class PromptSections:
    """Which version of the section the model has seen, from one prompt of a session to the next.

    The first prompt puts the section in the system prompt, and every later prompt repeats that
    same text there. When the section changes, the new version is sent once as a message after the
    prompt instead, and later prompts compare against it."""

    def __init__(self) -> None:
        self.in_prompt: str | None = None
        self.announced: str | None = None

    def next(self, section: str) -> tuple[str, str | None]:
        """`(section for the system prompt, new version to append or None)` for this prompt."""
        if self.in_prompt is None:
            self.in_prompt = self.announced = section
            return section, None
        if section == self.announced:
            return self.in_prompt, None
        self.announced = section
        return self.in_prompt, section or NO_SERVERS_LEFT

    def forget_updates(self) -> None:
        """The appended versions may be gone from the context (compaction, another branch): the next
        prompt appends the current section again unless it is the one in the system prompt."""
        self.announced = self.in_prompt


__all__ = [
    "MAX_SECTION_CHARS",
    "SECTION_MESSAGE_TYPE",
    "PromptSections",
    "ServerSummary",
    "mcp_servers_section",
    "reach_of",
]
