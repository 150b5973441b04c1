"""A one-tool stdio MCP server for tool_search tests: `python weather_server.py`."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("weather")


@server.tool(description="Current weather for a city")
def get_weather(city: str) -> str:
    return f"Sunny in {city}"


@server.tool(description="Convert between units of length")
def convert_length(value: float, unit: str) -> str:
    return f"{value} {unit}"


@server.tool(description="Always fails with an error")
def always_fails() -> str:
    raise ValueError("the service is down")


if __name__ == "__main__":
    server.run("stdio")
