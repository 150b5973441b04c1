"""Plain data the extension API hands out and takes in: tool definitions, tool info, exec results,
error records and load diagnostics.

Field names are the snake_case spellings of pi's; `to_json_dict()` gives pi's camelCase shape for
anything that crosses a wire.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeAlias

from msgspec import Struct, field

ToolExposure: TypeAlias = Literal["direct", "model-only", "codemode", "deferred", "hidden"]
ExecutionMode: TypeAlias = Literal["sequential", "parallel"]
ExtensionScope: TypeAlias = Literal["user", "project", "temporary"]
ExtensionOrigin: TypeAlias = Literal["package", "top-level"]
TOOL_EXPOSURES: tuple[ToolExposure, ...] = ("direct", "model-only", "codemode", "deferred", "hidden")
ACTIVE_BY_DEFAULT: tuple[ToolExposure, ...] = ("direct", "model-only")
BUILTIN_TOOL_NAMES = ("read", "bash", "powershell", "edit", "write", "grep", "find", "ls")

_CAMEL = {
    "prompt_snippet": "promptSnippet",
    "prompt_guidelines": "promptGuidelines",
    "prepare_arguments": "prepareArguments",
    "output_schema": "outputSchema",
    "reaches_tools": "reachesTools",
    "prepare_loadout": "prepareLoadout",
    "default_active": "defaultActive",
    "execution_mode": "executionMode",
    "constrained_sampling": "constrainedSampling",
    "render_shell": "renderShell",
    "render_call": "renderCall",
    "render_result": "renderResult",
}


class ToolDefinition(Struct):
    """A tool an extension offers (pi's ToolDefinition, §1.5 of the extension spec).

    `parameters` is a JSON Schema dict of type object, or a pydantic model class; in the latter case
    `execute` receives an instance of it. The render_* callables are kept for the terminal UI.
    """

    name: str
    description: str
    parameters: Any
    execute: Callable[..., Any] | None = None
    label: str | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] | None = None
    prepare_arguments: Callable[[Any], Any] | None = None
    output_schema: Any = None
    exposure: ToolExposure = "direct"
    namespace: Any = None
    annotations: Any = None
    reaches_tools: Callable[[Any], Any] | None = None
    prepare_loadout: Callable[[Any], Any] | None = None
    default_active: bool = True
    execution_mode: ExecutionMode = "parallel"
    constrained_sampling: Any = None
    render_shell: Callable[..., Any] | None = None
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None

    @classmethod
    def from_value(cls, value: ToolDefinition | Mapping[str, Any]) -> ToolDefinition:
        """Accept a definition or a dict with snake_case or camelCase keys."""
        if isinstance(value, ToolDefinition):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(f"register_tool() expects a ToolDefinition or a dict, got {type(value).__name__}")
        kwargs: dict[str, Any] = {}
        for name in cls.__struct_fields__:
            for key in (name, _CAMEL.get(name)):
                if key is not None and key in value:
                    kwargs[name] = value[key]
                    break
        for required in ("name", "description", "parameters"):
            kwargs.setdefault(required, None if required == "parameters" else "")
        return cls(**kwargs)

    def parameter_model(self) -> type[Any] | None:
        """The pydantic model class given as `parameters`, if one was."""
        from pydantic import BaseModel

        params = self.parameters
        if isinstance(params, type) and issubclass(params, BaseModel):
            return params
        return None

    def parameter_schema(self) -> dict[str, Any] | None:
        """The JSON Schema the model sees, or None when `parameters` is not usable."""
        model = self.parameter_model()
        if model is not None:
            schema: dict[str, Any] = model.model_json_schema()
            return schema
        return self.parameters if isinstance(self.parameters, dict) else None


class SourceInfo(Struct, frozen=True):
    """Where a tool or command came from (pi's sourceInfo)."""

    path: str
    source: str
    scope: ExtensionScope = "user"
    origin: ExtensionOrigin = "top-level"
    base_dir: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "source": self.source, "scope": self.scope, "origin": self.origin}
        if self.base_dir is not None:
            out["baseDir"] = self.base_dir
        return out


class ToolInfo(Struct):
    """One entry of `pi.get_all_tools()`."""

    name: str
    description: str
    parameters: dict[str, Any]
    prompt_guidelines: list[str]
    exposure: ToolExposure
    source_info: SourceInfo
    namespace: Any = None
    annotations: Any = None
    reaches_tools: Any = None

    def to_json_dict(self) -> dict[str, Any]:
        """pi's ToolInfo JSON (callables such as `reaches_tools` are reported as present, not sent)."""
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "promptGuidelines": list(self.prompt_guidelines),
            "exposure": self.exposure,
            "sourceInfo": self.source_info.to_json_dict(),
        }
        for key, value in (("namespace", self.namespace), ("annotations", self.annotations)):
            if value is not None:
                out[key] = value.model_dump(by_alias=True) if hasattr(value, "model_dump") else value
        if self.reaches_tools is not None:
            out["reachesTools"] = True
        return out


class ExecResult(Struct, frozen=True):
    """The outcome of `pi.exec`: the captured output, the exit code (128 + signal when killed), and
    whether the process was killed (timeout, abort, output limit) or its output cut at the limit."""

    stdout: str
    stderr: str
    code: int
    killed: bool = False
    truncated: bool = False


class ExtensionErrorInfo(Struct, frozen=True):
    """A failure inside an extension that pi caught and carried on after (§1.10)."""

    extension_path: str
    event: str
    error: str
    stack: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"extensionPath": self.extension_path, "event": self.event, "error": self.error}
        if self.stack is not None:
            out["stack"] = self.stack
        return out


class Diagnostic(Struct, frozen=True):
    """A problem found while loading extensions; the CLI prints it as `Error: ...` or `Warning: ...`."""

    level: Literal["error", "warning"]
    message: str
    path: str | None = None

    def render(self) -> str:
        return f"{'Error' if self.level == 'error' else 'Warning'}: {self.message}"


class CommandInfo(Struct):
    """One entry of `pi.get_commands()`."""

    name: str
    source: Literal["extension", "prompt", "skill"]
    source_info: SourceInfo | None = None
    description: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            out["description"] = self.description
        out["source"] = self.source
        if self.source_info is not None:
            out["sourceInfo"] = self.source_info.to_json_dict()
        return out


class McpServerRegistration(Struct):
    name: str
    config: dict[str, Any]
    extension_path: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"name": self.name, "config": self.config, "extensionPath": self.extension_path}


class PendingProviderCall(Struct):
    """A provider (un)registration made during loading, applied when the session binds."""

    extension_path: str
    kind: Literal["register_provider", "unregister_provider", "register_virtual_model", "unregister_virtual_model"]
    args: tuple[Any, ...] = field(default_factory=tuple)


__all__ = [
    "ACTIVE_BY_DEFAULT",
    "BUILTIN_TOOL_NAMES",
    "TOOL_EXPOSURES",
    "CommandInfo",
    "Diagnostic",
    "ExecResult",
    "ExecutionMode",
    "ExtensionErrorInfo",
    "ExtensionOrigin",
    "ExtensionScope",
    "McpServerRegistration",
    "PendingProviderCall",
    "SourceInfo",
    "ToolDefinition",
    "ToolExposure",
    "ToolInfo",
]
