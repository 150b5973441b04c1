"""The exact messages extension authors and users see, and the exceptions that carry them.

The texts are pi's own, so that a user moving between implementations reads the same words; the
functions build the variants that name a path or a tool.
"""

from __future__ import annotations

RUNTIME_NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading."
STALE_CONTEXT = (
    "This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx "
    "after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and "
    "switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For "
    "reload, do not use the old ctx after await ctx.reload()."
)
NO_EXTENSIONS_HINT = 'Hint: Start without extensions using "pi -ne".'
BLOCKED_DEFAULT_REASON = "Tool execution was blocked"
INVALID_USER_BASH_RESULT = (
    "Invalid user_bash handler result: return undefined for local execution or exactly one valid "
    "{ operations } or { result } object"
)
MESSAGE_END_ROLE = "message_end handlers must return a message with the same role"
UNSUPPORTED_SCRIPT_EXTENSIONS = (".ts", ".js", ".mts", ".cts", ".mjs", ".cjs", ".tsx", ".jsx")


class ExtensionError(Exception):
    """A mistake in how an extension uses the API; the message says what to change."""


class ExtensionRuntimeNotInitializedError(ExtensionError):
    def __init__(self) -> None:
        super().__init__(RUNTIME_NOT_INITIALIZED)


class StaleExtensionContextError(ExtensionError):
    def __init__(self) -> None:
        super().__init__(STALE_CONTEXT)


class ExtensionInactiveError(ExtensionError):
    """Raised by every use of the `pi` object of an extension whose setup failed."""

    def __init__(self, path: str) -> None:
        super().__init__(f'Extension "{path}" failed to load and its API is no longer active.')


def failed_to_load(path: str, error: str) -> str:
    return f'Failed to load extension "{path}": {error}'


def load_exception(message: str) -> str:
    return f"Failed to load extension: {message}"


def missing_factory(path: str) -> str:
    return f"Extension does not export a valid factory function: {path}"


def missing_path(resolved: str) -> str:
    return f"Extension path does not exist: {resolved}"


def unsupported_script(path: str) -> str:
    return f"TypeScript/JavaScript extensions are not supported: {path}"


def tool_conflict(name: str, owner: str) -> str:
    return f'Tool "{name}" conflicts with {owner}'


def flag_conflict(name: str, owner: str) -> str:
    return f'Flag "--{name}" conflicts with {owner}'


def replaced_builtin(other: str, kind: str, name: str, builtin: str) -> str:
    return (
        f"Extension {other} registers {kind} `{name}`, so built-in extension `{builtin}` was not loaded. "
        f"To use `{builtin}`, run `pi config` and make sure it is enabled under Built-in extensions, then disable "
        "or remove the existing extension. We recommend only having one or the other loaded at a time."
    )


def blocked_by_failure(value: object) -> str:
    return f"Extension failed, blocking execution: {value}"


def project_trust_error(path: str, message: str) -> str:
    return f'Extension "{path}" project_trust error: {message}'


def error_text(error: BaseException) -> str:
    """The message of an exception, or its type name when it has none."""
    return str(error) or type(error).__name__


__all__ = [
    "BLOCKED_DEFAULT_REASON",
    "INVALID_USER_BASH_RESULT",
    "MESSAGE_END_ROLE",
    "NO_EXTENSIONS_HINT",
    "RUNTIME_NOT_INITIALIZED",
    "STALE_CONTEXT",
    "UNSUPPORTED_SCRIPT_EXTENSIONS",
    "ExtensionError",
    "ExtensionInactiveError",
    "ExtensionRuntimeNotInitializedError",
    "StaleExtensionContextError",
    "blocked_by_failure",
    "error_text",
    "failed_to_load",
    "flag_conflict",
    "load_exception",
    "missing_factory",
    "missing_path",
    "project_trust_error",
    "replaced_builtin",
    "tool_conflict",
    "unsupported_script",
]
