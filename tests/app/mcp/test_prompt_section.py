from __future__ import annotations

from pi.app.mcp.config import validate_server
from pi.app.mcp.prompt_section import MAX_SECTION_CHARS, mcp_servers_section


def server(name: str, **entry: object):  # type: ignore[no-untyped-def]
    return validate_server(name, {"command": "x", **entry}, scope="global", source="f")


def test_acceptance_40_section_text() -> None:
    text = mcp_servers_section(
        [(server("srv", description="Docs search\nmore"), None), (server("d", exposure="direct"), None)]
    )
    assert text == (
        "MCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts.\n"
        "- mcp__srv (codemode): Docs search"
    )


def test_both_kinds_sorted_and_instructions_as_fallback() -> None:
    text = mcp_servers_section(
        [
            (server("zeta", exposure="deferred"), "Ticket tracker"),
            (server("alpha"), None),
            (server("off", enabled=False), "x"),
        ]
    )
    assert text.splitlines() == [
        "MCP servers whose tools are not declared to you. Call the tools of `codemode` servers from codemode scripts."
        " Load the tools of `tool_search` servers with `tool_search`.",
        "- mcp__alpha (codemode)",
        "- mcp__zeta (tool_search): Ticket tracker",
    ]
    assert mcp_servers_section([(server("d", exposure="direct"), None)]) == ""


def test_long_descriptions_and_overflow() -> None:
    servers = [(server(f"s{i:03d}", description="d" * 400), None) for i in range(40)]
    text = mcp_servers_section(servers)
    assert len(text) <= MAX_SECTION_CHARS
    lines = text.splitlines()
    assert all(len(line) <= 250 + len("- mcp__s000 (codemode): ") for line in lines[1:-1])
    assert lines[1].endswith("…")
    assert lines[-1].startswith("- … ") and lines[-1].endswith(" more server(s); find their tools with searchTools()")


def test_the_first_section_stays_in_the_prompt_and_changes_are_sent_once() -> None:
    from pi.app.mcp.prompt_section import NO_SERVERS_LEFT, PromptSections

    sections = PromptSections()
    assert sections.next("A") == ("A", None)
    assert sections.next("A") == ("A", None)
    assert sections.next("B") == ("A", "B")
    assert sections.next("B") == ("A", None), "an update already sent is not repeated"
    assert sections.next("") == ("A", NO_SERVERS_LEFT)
    assert sections.next("A") == ("A", "A"), "back to the first version: the model last saw another one"


def test_after_the_context_was_replaced_the_current_section_is_appended_again() -> None:
    from pi.app.mcp.prompt_section import PromptSections

    sections = PromptSections()
    sections.next("A")
    assert sections.next("B") == ("A", "B")
    sections.forget_updates()
    assert sections.next("B") == ("A", "B"), "the update may have been compacted away"
    sections.forget_updates()
    assert sections.next("A") == ("A", None), "the system prompt already says it"
