from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pi.app.extensions.types import ToolDefinition
from pi.app.mcp.tool_search import check_arguments, rank_tools, result_text, search_candidates, tokenize
from pi.app.mcp.tool_search_extension import create_tool_search_extension, search_and_activate


def tool(name: str, description: str, exposure: str = "deferred", **props: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "exposure": exposure,
        "parameters": {"type": "object", "properties": props},
    }


def test_tokenize() -> None:
    assert tokenize("getWeatherForecasts of the Cities!") == ["weather", "forecast", "city"]
    assert tokenize("HTTPServer class") == ["http", "server", "class"]


def test_name_terms_weigh_more_than_description_terms() -> None:
    tools = [
        tool("mcp__a__list_files", "Shows the weather of files"),
        tool("mcp__w__get_weather", "Current conditions for a place", city={"description": "City name"}),
        tool("mcp__z__other", "Nothing related"),
    ]
    assert rank_tools("weather", tools) == ["mcp__w__get_weather", "mcp__a__list_files"]


def test_exact_name_first_then_coverage() -> None:
    tools = [tool("mcp__s__send_email", "Send an email message with attachment"), tool("mcp__s__email", "Email")]
    assert rank_tools("mcp__s__email", tools)[0] == "mcp__s__email"
    tools = [tool("x__one", "email email email email"), tool("x__two", "email attachment")]
    assert rank_tools("email attachment", tools)[0] == "x__two"


def test_candidates_are_inactive_codemode_or_deferred_tools() -> None:
    tools = [tool("a", "x"), tool("b", "x", "direct"), tool("c", "x", "codemode"), tool("d", "x", "hidden")]
    assert [t["name"] for t in search_candidates(tools, ["a"])] == ["c"]


def test_texts_and_argument_checks() -> None:
    assert result_text([]) == "No matching tools found."
    assert result_text([("mcp__w__get_weather", "Weather now\nmore")]) == (
        "Loaded 1 tool. They are available from your next call:\n- mcp__w__get_weather: Weather now"
    )
    assert result_text([("a", "A"), ("b", "B")]).startswith("Loaded 2 tools.")
    with pytest.raises(ValueError, match=r"^query must not be empty$"):
        check_arguments({"query": "  "})
    with pytest.raises(ValueError):
        check_arguments({"query": "x", "limit": 0})
    assert check_arguments({"query": "x"}) == ("x", 8)


class FakeInfo:
    def __init__(self, name: str, description: str, exposure: str) -> None:
        self.name, self.description, self.exposure = name, description, exposure
        self.parameters: dict[str, Any] = {"type": "object", "properties": {}}
        self.namespace = {"name": "mcp__w", "aliases": ["w"]}


class FakePi:
    def __init__(self) -> None:
        self.tools: list[ToolDefinition] = []
        self.active = ["read"]
        self.handlers: dict[str, list[Any]] = {}
        self.infos = [
            FakeInfo("read", "Read a file", "direct"),
            FakeInfo("mcp__w__get_weather", "Weather now", "deferred"),
        ]

    def register_tool(self, definition: ToolDefinition) -> None:
        self.tools.append(definition)

    def on(self, event: str, handler: Any) -> None:
        self.handlers.setdefault(event, []).append(handler)

    def emit(self, event: str, ctx: Any = None) -> None:
        for handler in self.handlers.get(event, []):
            handler(SimpleNamespace(type=event), ctx)

    def get_active_tools(self) -> list[str]:
        return list(self.active)

    def get_all_tools(self) -> list[FakeInfo]:
        return self.infos

    def set_active_tools(self, names: list[str]) -> None:
        self.active = list(names)


async def test_acceptance_41_tool_search_activates_the_match() -> None:
    pi = FakePi()
    create_tool_search_extension()(pi)  # type: ignore[arg-type]
    [definition] = pi.tools
    assert (definition.exposure, definition.default_active) == ("model-only", False)
    assert definition.reaches_tools is not None and definition.reaches_tools({}) == "all"
    assert definition.execute is not None
    result = await definition.execute("id", {"query": "weather"}, None, None, None)
    assert result["content"][0].text.startswith("Loaded 1 tool. They are available from your next call:")
    assert result["details"] == {"loaded": ["mcp__w__get_weather"]}
    assert pi.active == ["read", "mcp__w__get_weather"]
    again = search_and_activate(pi, {"query": "weather"})
    assert again["content"][0].text == "No matching tools found."


def _branch(*loaded: list[str]) -> Any:
    entries = [
        SimpleNamespace(message_json={"role": "toolResult", "toolName": "tool_search", "details": {"loaded": names}})
        for names in loaded
    ]
    entries.append(
        SimpleNamespace(message_json={"role": "toolResult", "toolName": "read", "details": {"loaded": ["x"]}})
    )
    return SimpleNamespace(get_branch=lambda: entries)


def test_tools_loaded_on_the_branch_are_declared_again_and_dropped_when_leaving_it() -> None:
    pi = FakePi()
    create_tool_search_extension()(pi)  # type: ignore[arg-type]
    pi.infos = pi.infos[:1]  # the MCP server has not connected yet
    pi.emit("session_start", SimpleNamespace(session_manager=_branch(["mcp__w__get_weather"])))
    assert pi.active == ["read"]
    pi.infos.append(FakeInfo("mcp__w__get_weather", "Weather now", "deferred"))
    pi.emit("before_agent_start")
    assert pi.active == ["read", "mcp__w__get_weather"]
    pi.emit("session_tree", SimpleNamespace(session_manager=_branch()))
    assert pi.active == ["read"]
