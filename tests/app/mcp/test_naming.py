from __future__ import annotations

import hashlib

from pi.app.mcp import naming
from pi.app.mcp.naming import RemoteTool


def suffix(server: str, tool: str) -> str:
    return hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]


def test_plain_names_are_sanitised() -> None:
    assert naming.assign_names("my-srv", ["get.time"]) == {"get.time": "mcp__my_srv__get_time"}


def test_acceptance_33_all_colliding_tools_of_a_server_get_the_hash() -> None:
    names = naming.assign_names("srv", ["a-b", "a_b", "c"])
    assert names == {
        "a-b": f"mcp__srv__a_b_{suffix('srv', 'a-b')}",
        "a_b": f"mcp__srv__a_b_{suffix('srv', 'a_b')}",
        "c": "mcp__srv__c",
    }


def test_long_names_are_cut_to_55_chars_plus_hash() -> None:
    tool = "t" * 80
    name = naming.assign_names("srv", [tool])[tool]
    assert len(name) == 64
    assert name == f"{('mcp__srv__' + tool)[:55]}_{suffix('srv', tool)}"
    exactly = "x" * (64 - len("mcp__srv__"))
    assert naming.assign_names("srv", [exactly])[exactly] == "mcp__srv__" + exactly


def test_collision_with_names_taken_elsewhere() -> None:
    assert naming.assign_names("srv", ["t"], taken={"mcp__srv__t"})["t"] == f"mcp__srv__t_{suffix('srv', 't')}"


def test_definition_fields() -> None:
    assert naming.namespace_name("my-docs") == "mcp__my_docs"
    bare = RemoteTool(name="t")
    assert naming.tool_description("s", bare) == "MCP tool t from server s"
    assert naming.tool_description("s", RemoteTool(name="t", title="Title")) == "Title"
    assert naming.tool_label("s", bare) == "s/t"
    assert naming.object_schema({}) == {"type": "object", "properties": {}}
    assert naming.object_schema({"properties": {"a": {}}, "required": ["a"]})["required"] == ["a"]
    wrapped = naming.result_schema({"type": "object", "properties": {"x": {}}})
    assert wrapped is not None and wrapped["properties"]["structuredContent"]["properties"] == {"x": {}}
    assert naming.result_schema(None) is None
    assert naming.boolean_hints({"readOnlyHint": True, "title": "x", "openWorldHint": "no"}) == {"readOnlyHint": True}
