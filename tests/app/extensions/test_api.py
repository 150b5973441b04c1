"""The ExtensionAPI registration and action methods with their exact errors (extension spec §1.4, §1.5)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from pi.app.extensions.errors import STALE_CONTEXT
from pi.app.extensions.shortcuts import resolve_shortcuts
from pi.app.extensions.types import CommandInfo, SourceInfo, ToolInfo

from .conftest import Loaded, load_files, write

TOOL = '{"name": "%s", "description": "d", "parameters": {"type": "object", "properties": {}}, "execute": run}'


def tool_ext(tmp_path: Path, file: str, *tools: str, extra: str = "") -> Path:
    body = "\n".join([f"    pi.register_tool({TOOL % name})" for name in tools] + ["    pass"])
    return write(tmp_path / file, f"async def run(*args):\n    return None\n\ndef setup(pi):\n{body}\n{extra}\n")


class Actions:
    """A session double: records what the action methods asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.active = ["read", "bash"]
        self.name: str | None = None

    def send_message(self, message: dict[str, Any], trigger_turn: bool, deliver_as: str) -> None:
        self.calls.append(("send_message", (message, trigger_turn, deliver_as)))

    async def send_user_message(self, content: Any, deliver_as: Any, expand: bool) -> None:
        raise RuntimeError(
            "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
        )

    def append_entry(self, custom_type: str, data: Any) -> None:
        self.calls.append(("append_entry", (custom_type, data)))

    def set_session_name(self, name: str) -> None:
        self.name = name

    def get_session_name(self) -> str | None:
        return self.name

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.calls.append(("set_label", (entry_id, label)))

    def get_active_tools(self) -> list[str]:
        return list(self.active)

    def get_all_tools(self) -> list[ToolInfo]:
        src = SourceInfo("builtin:read", "builtin")
        return [
            ToolInfo("read", "", {}, [], "direct", src),
            ToolInfo("bash", "", {}, [], "direct", src),
            ToolInfo("hidden_tool", "", {}, [], "hidden", src),
            ToolInfo("later", "", {}, [], "deferred", src),
        ]

    def set_active_tools(self, names: list[str]) -> None:
        self.active = names

    def get_settings(self) -> dict[str, Any]:
        return {"nested": {"x": 1}}

    def get_commands(self) -> list[CommandInfo]:
        return [CommandInfo("review", "extension")]

    async def set_model(self, model: object) -> bool:
        return model == "ok"

    def get_thinking_level(self) -> str:
        return "medium"

    def set_thinking_level(self, level: str) -> None:
        self.calls.append(("set_thinking_level", level))

    def register_provider(self, name: str, config: Any) -> None:
        self.calls.append(("register_provider", name))

    def unregister_provider(self, name: str) -> None:
        self.calls.append(("unregister_provider", name))

    def register_virtual_model(self, model: Any, extension_path: str) -> None:
        self.calls.append(("register_virtual_model", model))

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        self.calls.append(("unregister_virtual_model", (provider, model_id)))


def api_of(loaded: Loaded, index: int = 0) -> Any:
    return list(loaded.loader.apis.values())[index]


async def test_tool_conflict_keeps_both_and_first_wins(tmp_path: Path) -> None:
    """AC 5 (tools): the second registrant gets the exact conflict diagnostic."""
    first = tool_ext(tmp_path, "first.py", "t")
    second = tool_ext(tmp_path, "second.py", "t")
    loaded = await load_files(first, second)
    assert [d.render() for d in loaded.result.diagnostics] == [
        f'Error: Failed to load extension "{second}": Tool "t" conflicts with {first}'
    ]
    owner, _ = loaded.loader.registry.tools()["t"]
    assert owner.path == str(first)
    assert len(loaded.loader.registry.active()) == 2


async def test_same_command_from_several_extensions_is_suffixed(tmp_path: Path) -> None:
    """AC 5 (commands): `review:1`, `review:2` in load order, no error; an existing suffix bumps."""
    a = write(tmp_path / "a.py", "def setup(pi):\n    pi.register_command('review', lambda a, c: None)\n")
    b = write(tmp_path / "b.py", "def setup(pi):\n    pi.register_command('review', lambda a, c: None)\n")
    c = write(tmp_path / "c.py", "def setup(pi):\n    pi.register_command('review:2', lambda a, c: None)\n")
    loaded = await load_files(a, b, c)
    assert not loaded.result.diagnostics
    names = [(name, cmd.extension_path) for name, cmd in loaded.loader.registry.commands()]
    assert names == [("review:1", str(a)), ("review:3", str(b)), ("review:2", str(c))]
    infos = loaded.loader.registry.command_infos()
    assert infos[0].to_json_dict()["source"] == "extension"


async def test_command_registration_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "c.py", "def setup(pi):\n    pass\n")
    pi = api_of(await load_files(path))
    with pytest.raises(Exception) as no_name:
        pi.register_command("", lambda a, c: None)
    assert str(no_name.value) == (
        f'Command registered by extension "{path}" must have a non-empty string name. '
        'Use pi.registerCommand("name", { description, handler }).'
    )
    with pytest.raises(Exception) as no_handler:
        pi.register_command("x")
    assert str(no_handler.value) == f'Command "/x" registered by extension "{path}" must define handler().'


async def test_tool_schema_must_be_an_object_and_pydantic_models_work(tmp_path: Path) -> None:
    path = write(tmp_path / "t.py", "def setup(pi):\n    pass\n")
    loaded = await load_files(path)
    pi = api_of(loaded)
    with pytest.raises(Exception) as bad:
        pi.register_tool({"name": "s", "description": "", "parameters": {"type": "string"}, "execute": print})
    assert str(bad.value) == f'Tool "s" registered by extension "{path}" must define an object parameter schema.'

    class Params(BaseModel):
        path: str
        limit: int = 10

    pi.register_tool(
        {
            "name": "m",
            "description": "model",
            "parameters": Params,
            "execute": print,
            "promptSnippet": "one line",
            "promptGuidelines": ["Use m for x"],
            "executionMode": "sequential",
            "prepareArguments": dict,
        }
    )
    _, tool = loaded.loader.registry.tools()["m"]
    assert tool.parameter_model() is Params
    schema = tool.parameter_schema()
    assert schema is not None
    assert schema["required"] == ["path"]
    assert (tool.prompt_snippet, tool.prompt_guidelines, tool.execution_mode) == (
        "one line",
        ["Use m for x"],
        "sequential",
    )
    assert tool.prepare_arguments is dict


async def test_exposure_and_set_active_tools(tmp_path: Path) -> None:
    """AC 23: a deferred tool is not active; unknown and hidden names are ignored."""
    path = write(
        tmp_path / "e.py",
        """
        def setup(pi):
            for name, exposure, active in [("d", "deferred", True), ("x", "direct", True),
                                           ("off", "direct", False), ("mo", "model-only", True),
                                           ("h", "hidden", True)]:
                pi.register_tool({"name": name, "description": "", "parameters": {"type": "object"},
                                  "execute": print, "exposure": exposure, "default_active": active})
        """,
    )
    loaded = await load_files(path)
    registry = loaded.loader.registry
    assert registry.default_active_tools() == ["x", "mo"]
    assert registry.activatable(["unknown", "h", "d", "read", "x", "x"], known=["read"]) == ["d", "read", "x"]
    actions = Actions()
    await loaded.loader.runtime.bind_core(actions)
    api_of(loaded).set_active_tools(["unknown", "hidden_tool"])
    assert actions.active == []
    api_of(loaded).set_active_tools(["bash", "later", "nope"])
    assert actions.active == ["bash", "later"]


async def test_builtin_names_are_replaced_silently(tmp_path: Path) -> None:
    path = tool_ext(tmp_path, "r.py", "read")
    loaded = await load_files(path)
    assert not loaded.result.diagnostics
    assert loaded.loader.registry.builtin_overrides() == ["read"]


async def test_flags(tmp_path: Path) -> None:
    """AC 19 at the API level: type checks, the default in the factory, the CLI value later."""
    a = write(
        tmp_path / "a.py",
        """
        SEEN = []

        def setup(pi):
            pi.register_flag("plan", type="boolean", default=False, description="plan mode")
            SEEN.append(pi.get_flag("plan"))
        """,
    )
    b = write(tmp_path / "b.py", "def setup(pi):\n    pi.register_flag('plan', type='boolean')\n")
    loaded = await load_files(a, b)
    assert [d.message for d in loaded.result.diagnostics] == [
        f'Failed to load extension "{b}": Flag "--plan" conflicts with {a}'
    ]
    first, second = api_of(loaded, 0), api_of(loaded, 1)
    assert first.get_flag("plan") is False
    loaded.loader.registry.flag_values["plan"] = True
    assert first.get_flag("plan") is True
    assert first.get_flag("other") is None
    assert list(loaded.loader.registry.flags()) == ["plan"]
    with pytest.raises(Exception) as wrong:
        second.register_flag("n", type="string", default=3)
    assert str(wrong.value) == 'Invalid default for flag "n": expected string, got number'
    with pytest.raises(Exception) as wrong_bool:
        second.register_flag("b", type="boolean", default="yes")
    assert str(wrong_bool.value) == 'Invalid default for flag "b": expected boolean, got string'


async def test_shortcuts_reserved_and_conflicts(tmp_path: Path) -> None:
    a = write(
        tmp_path / "a.py",
        "def setup(pi):\n    pi.register_shortcut('Escape', print)\n"
        "    pi.register_shortcut('ctrl+k', print)\n    pi.register_shortcut('ctrl+g', print)\n",
    )
    b = write(tmp_path / "b.py", "def setup(pi):\n    pi.register_shortcut('CTRL+G', print)\n")
    loaded = await load_files(a, b)
    shortcuts = [s for ext in loaded.loader.registry.active() for s in ext.shortcuts.values()]
    chosen, warnings = resolve_shortcuts(shortcuts, {"app.interrupt": ["escape"], "app.session.tree": ["ctrl+k"]})
    assert sorted(chosen) == ["ctrl+g", "ctrl+k"]
    assert chosen["ctrl+g"].extension_path == str(b)
    texts = [w.message for w in warnings]
    assert texts[0] == f"Extension shortcut 'escape' from {a} conflicts with built-in shortcut. Skipping."
    assert all(t.startswith("Extension shortcut conflict: ") for t in texts[1:]) and len(texts) == 3


async def test_renderers_and_markdown_transformers(tmp_path: Path) -> None:
    a = write(
        tmp_path / "a.py",
        """
        def setup(pi):
            pi.register_message_renderer("note", "A")
            pi.register_entry_renderer("state", "EA")
            pi.register_tool_renderer(lambda name, nxt: {"render_call": "mcp"} if name.startswith("mcp__") else nxt())
            pi.register_markdown_transformer(lambda text, ctx: text.replace("x", "y"))
        """,
    )
    b = write(
        tmp_path / "b.py",
        """
        def render_call(*a):
            return "call"

        def setup(pi):
            pi.register_message_renderer("note", "B")
            pi.register_tool({"name": "t", "description": "", "parameters": {"type": "object"},
                              "execute": print, "render_call": render_call})
            pi.register_markdown_transformer(lambda text, ctx: 1 / 0, message_types=["assistant"])
            pi.register_markdown_transformer(lambda text, ctx: text + "!", message_types=["custom"])
        """,
    )
    loaded = await load_files(a, b)
    registry = loaded.loader.registry
    assert registry.message_renderer("note") == "A"
    assert registry.entry_renderer("state") == "EA"
    assert registry.tool_renderers("mcp__srv__q") == {"render_call": "mcp"}
    assert list(registry.tool_renderers("t")) == ["render_call"]
    assert registry.tool_renderers("unknown") is None
    assert registry.transform_markdown("xx", {"message_type": "assistant"}) == "yy"
    assert registry.transform_markdown("xx", {"message_type": "custom"}) == "xx!"


async def test_mcp_server_bookkeeping(tmp_path: Path) -> None:
    a = write(tmp_path / "a.py", "def setup(pi):\n    pi.register_mcp_server('jira', {'command': 'x'})\n")
    b = write(tmp_path / "b.py", "def setup(pi):\n    pass\n")
    loaded = await load_files(a, b)
    first, second = api_of(loaded, 0), api_of(loaded, 1)
    assert first.get_mcp_servers() == [{"name": "jira", "config": {"command": "x"}, "extensionPath": str(a)}]
    with pytest.raises(Exception) as taken:
        second.register_mcp_server("jira", {"command": "y"})
    assert str(taken.value) == f'MCP server "jira" is already registered by extension "{a}"'
    first.register_mcp_server("my-docs", {"url": "http://127.0.0.1:1"})
    with pytest.raises(Exception) as similar:
        second.register_mcp_server("my_docs", {"url": "http://127.0.0.1:2"})
    assert str(similar.value) == 'MCP server "my_docs" conflicts with registered server "my-docs"'
    with pytest.raises(Exception) as invalid:
        second.register_mcp_server("z", "not a dict")
    assert str(invalid.value).startswith(f'Invalid MCP server registered by extension "{b}": ')
    changes: list[int] = []
    loaded.loader.registry.on_mcp_servers_changed = lambda: changes.append(1)
    second.unregister_mcp_server("jira")  # not its own: ignored
    first.register_mcp_server("jira", {"command": "z"})  # same extension replaces
    first.unregister_mcp_server("my-docs")
    assert [s["name"] for s in second.get_mcp_servers()] == ["jira"]
    assert second.get_mcp_servers()[0]["config"] == {"command": "z"}
    assert changes == [1, 1]


async def test_actions_delegate_once_bound(tmp_path: Path) -> None:
    loaded = await load_files(tool_ext(tmp_path, "a.py"))
    pi = api_of(loaded)
    actions = Actions()
    await loaded.loader.runtime.bind_core(actions)
    pi.send_message({"customType": "m", "content": "c", "display": False}, trigger_turn=True, deliver_as="followUp")
    pi.append_entry("s", {"n": 1})
    pi.set_session_name("named")
    pi.set_label("e1", None)
    pi.set_thinking_level("high")
    assert pi.get_session_name() == "named"
    assert pi.get_active_tools() == ["read", "bash"]
    assert [t.name for t in pi.get_all_tools()][:2] == ["read", "bash"]
    settings = pi.get_settings()
    settings["nested"]["x"] = 2
    assert pi.get_settings()["nested"]["x"] == 1
    assert [c.name for c in pi.get_commands()] == ["review"]
    assert await pi.set_model("ok") is True and await pi.set_model("no") is False
    assert pi.get_thinking_level() == "medium"
    with pytest.raises(Exception, match="Unknown thinking level"):
        pi.set_thinking_level("extreme")
    pi.register_provider("late", {"baseUrl": "http://127.0.0.1:9"})
    pi.unregister_provider("late")
    assert [c[0] for c in actions.calls] == [
        "send_message",
        "append_entry",
        "set_label",
        "set_thinking_level",
        "register_provider",
        "unregister_provider",
    ]
    assert actions.calls[0][1] == ({"customType": "m", "content": "c", "display": False}, True, "followUp")


async def test_send_user_message_failure_is_a_runtime_error(tmp_path: Path) -> None:
    """AC 17 at this layer: the failure is reported with extensionPath <runtime>."""
    loaded = await load_files(tool_ext(tmp_path, "a.py"))
    await loaded.loader.runtime.bind_core(Actions())
    api_of(loaded).send_user_message("hi")
    await loaded.loader.runtime.drain()
    assert [(e.extension_path, e.event) for e in loaded.errors] == [("<runtime>", "send_user_message")]
    assert loaded.errors[0].error.startswith("Agent is already processing.")


async def test_event_handlers_unsubscribe_and_decorator(tmp_path: Path) -> None:
    path = write(
        tmp_path / "h.py",
        """
        UNSUB = []

        def setup(pi):
            @pi.on("agent_start")
            def first(event, ctx):
                ctx.record("first")

            UNSUB.append(pi.on("agent_start", lambda e, c: c.record("second")))
        """,
    )
    loaded = await load_files(path)
    from pi.app.extensions.events import AgentStartEvent

    await loaded.runner.emit(AgentStartEvent())
    module = next(m for n, m in sys.modules.items() if n.startswith("pi_ext_") and hasattr(m, "UNSUB"))
    module.UNSUB[-1]()
    await loaded.runner.emit(AgentStartEvent())
    assert loaded.recorder.seen == ["first", "second", "first"]


async def test_events_bus_between_extensions(tmp_path: Path) -> None:
    a = write(
        tmp_path / "a.py",
        """
        def setup(pi):
            async def failing(data):
                raise ValueError("bad " + data)
            pi.events.on("my:event", lambda data: GOT.append(data))
            pi.events.on("my:event", failing)

        GOT = []
        """,
    )
    b = write(
        tmp_path / "b.py", "def setup(pi):\n    pi.on('agent_start', lambda e, c: pi.events.emit('my:event', 'x'))\n"
    )
    loaded = await load_files(a, b)
    from pi.app.extensions.events import AgentStartEvent

    await loaded.runner.emit(AgentStartEvent())
    await loaded.loader.bus.drain()
    assert [(e.extension_path, e.event, e.error) for e in loaded.errors] == [(str(a), "events:my:event", "bad x")]


async def test_stale_runtime_rejects_every_use(tmp_path: Path) -> None:
    loaded = await load_files(tool_ext(tmp_path, "a.py"))
    pi = api_of(loaded)
    loaded.loader.runtime.invalidate()
    calls: tuple[Callable[[], object], ...] = (
        lambda: pi.register_command("x", print),
        lambda: pi.get_flag("x"),
        lambda: pi.events,
    )
    for call in calls:
        with pytest.raises(Exception) as stale:
            call()
        assert str(stale.value) == STALE_CONTEXT


async def test_replaceable_builtin_is_dropped_with_the_warning(tmp_path: Path) -> None:
    from pi.app.extensions.discovery import DiscoveryOptions, discover_extensions

    from .conftest import load_sources

    other = write(tmp_path / "mine.py", "def setup(pi):\n    pi.register_command('mcp', lambda a, c: None)\n")

    def builtin(pi: Any) -> None:
        pi.register_command("mcp", lambda a, c: None)

    options = DiscoveryOptions(
        cwd=tmp_path,
        agent_dir=tmp_path / "agent",
        project_trusted=False,
        user_entries=[str(other)],
        builtins={"mcp": builtin},
        entry_points=False,
    )
    loaded = await load_sources(discover_extensions(options).enabled(), tmp_path)
    assert [d.render() for d in loaded.result.diagnostics] == [
        f"Warning: Extension {other} registers command `mcp`, so built-in extension `mcp` was not loaded. To use "
        "`mcp`, run `pi config` and make sure it is enabled under Built-in extensions, then disable or remove the "
        "existing extension. We recommend only having one or the other loaded at a time."
    ]
    assert [name for name, _ in loaded.loader.registry.commands()] == ["mcp"]


async def test_tool_infos_json_shape_and_conflicts_reported_once(tmp_path: Path) -> None:
    first = tool_ext(tmp_path, "first.py", "t")
    second = tool_ext(tmp_path, "second.py", "t")
    loaded = await load_files(first, second)
    [info] = loaded.loader.registry.tool_infos()
    assert info.to_json_dict() == {
        "name": "t",
        "description": "d",
        "parameters": {"type": "object", "properties": {}},
        "promptGuidelines": [],
        "exposure": "direct",
        "sourceInfo": {
            "path": str(first),
            "source": "local",
            "scope": "temporary",
            "origin": "top-level",
            "baseDir": str(tmp_path),
        },
    }
    assert loaded.loader.registry.finalize() == [], "a second pass does not repeat the conflict"


async def test_tools_registered_after_bind_refresh_the_session(tmp_path: Path) -> None:
    loaded = await load_files(tool_ext(tmp_path, "a.py"))
    refreshed: list[list[str]] = []
    registry = loaded.loader.registry
    registry.on_tools_changed = lambda: refreshed.append(list(registry.tools()))
    api_of(loaded).register_tool(
        {"name": "early", "description": "", "parameters": {"type": "object"}, "execute": print}
    )
    assert refreshed == [], "before binding the session reads the tools when it starts"
    await loaded.loader.runtime.bind_core(Actions())
    api_of(loaded).register_tool(
        {"name": "late", "description": "", "parameters": {"type": "object"}, "execute": print}
    )
    assert refreshed == [["early", "late"]]
