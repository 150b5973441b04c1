"""What a session is told about extensions, and the cheap test of whether it has any to load.

This module imports nothing of the extension machinery: a session with no extension configured
asks `wants_extensions()` (a few file-existence checks and settings lookups) and goes on without
ever importing `pi.app.extensions`' loader, runner or event models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field


class ExtensionConfig(Struct):
    """The extension inputs of one session (from `CreateSessionOptions`)."""

    agent_dir: Path
    paths: Sequence[str] = ()
    """`-e` values in order (files, directories, `builtin:<name>`)."""
    no_extensions: bool = False
    factories: Sequence[Any] = ()
    """SDK inline factories (callables or `{name, factory, hidden?, replaceable?}`)."""
    builtins: bool = False
    """Load the built-in extensions by default (the CLI does; SDK sessions do not)."""
    builtin_overrides: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    disabled_builtins: Sequence[str] = ()
    discover: bool = True
    project_trusted: bool = False
    flags: Mapping[str, bool | str] = field(default_factory=dict)
    tool_options: Any = None
    """`pi.tools.ToolsOptions` for built-in tools an extension activates that the session did not build."""
    admits_late_tool: Callable[[str], bool] | None = None
    tool_selection: Any = None
    """The command line's `pi.app.tool_patterns.ToolSelection` (None: only ``defaultTools`` choose)."""
    startup_provider: str | None = None
    """Provider of the model the caller asked for (None: none asked, or it is not known yet)."""


def _has_entries(directory: Path) -> bool:
    try:
        return any(not child.name.startswith((".", "_")) for child in directory.iterdir())
    except OSError:
        return False


def _listed(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    return isinstance(value, list) and bool(value)


def wants_extensions(
    config: ExtensionConfig, cwd: Path, global_settings: Mapping[str, Any], project_settings: Mapping[str, Any]
) -> bool:
    """Whether anything could load: `-e` paths, inline factories, extension folders or settings
    entries, packages, or a built-in with work to do."""
    if config.paths or config.factories:
        return True
    if config.no_extensions:
        return False
    if config.discover:
        if _listed(global_settings, "extensions") or _listed(global_settings, "packages"):
            return True
        if _has_entries(config.agent_dir / "extensions"):
            return True
        if config.project_trusted and (
            _listed(project_settings, "extensions")
            or _listed(project_settings, "packages")
            or _has_entries(cwd / ".pi" / "extensions")
        ):
            return True
    if config.builtins:
        from pi.app.extensions.builtins import builtins_have_work

        if builtins_have_work(config.agent_dir, cwd, config.project_trusted):
            return True
        from pi.app.extensions.builtins import builtin_tool_requested

        return builtin_tool_requested(config.tool_selection, global_settings, project_settings)
    return False


def help_may_list_flags(options: Sequence[str], agent_dir: Path, cwd: Path) -> bool:
    """Whether `--help` might have extension flags to list: `-e` given, a user extension folder with
    entries, or settings naming extensions or packages (a text search; the exact test comes later)."""
    if any(o in ("-e", "--extension") or o.startswith("--extension=") for o in options):
        return True
    if "-ne" in options or "--no-extensions" in options:
        return False
    if _has_entries(agent_dir / "extensions"):
        return True
    settings = [agent_dir / "settings.json"]
    if "--approve" in options or "-a" in options:
        settings.append(cwd / ".pi" / "settings.json")
    for path in settings:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if '"extensions"' in text or '"packages"' in text:
            return True
    return False


__all__ = ["ExtensionConfig", "help_may_list_flags", "wants_extensions"]
