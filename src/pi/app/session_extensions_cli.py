"""The command line's part in loading extensions: which options it sets, and the options they add.

pi parses its own flags first and keeps every unknown `--name [value]`; once extensions have
registered their flags (`pi.register_flag`), the unknown options they claim become flag values and
the rest are errors (`Unknown option: --x`). Load errors at start-up end the run with the
diagnostics and the `pi -ne` hint, in every mode.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.args import Args, unknown_option_errors

if TYPE_CHECKING:
    from pi.app.extensions.loader import ExtensionLoader


def extension_options(args: Args, project_trusted: bool) -> dict[str, Any]:
    """The `CreateSessionOptions` fields the command line sets."""
    return {
        "extension_paths": list(args.extensions),
        "no_extensions": args.no_extensions,
        "builtin_extensions": True,
        "disabled_builtins": ["mcp"] if args.no_mcp else [],
        "project_trusted": project_trusted,
        "admits_late_tool": late_tool_filter(args),
        "tool_selection": cli_tool_selection(args),
    }


def cli_tool_selection(args: Args) -> Any:
    """The tool flags as a `ToolSelection` (None when none is given)."""
    if args.tools is None and not args.exclude_tools and not args.no_tools:
        return None
    from pi.app.tool_patterns import ToolSelection

    return ToolSelection(
        tools=args.tools, exclude=args.exclude_tools, no_tools=args.no_tools, no_builtin_tools=args.no_builtin_tools
    )


def late_tool_filter(args: Args) -> Callable[[str], bool] | None:
    """The tool flags applied to a tool that appears after start-up (an MCP server's, an extension's).

    Such a tool counts as a non-built-in one: active by default, unless `--exclude-tools` matches it,
    a plain `--tools` list leaves it out, or `-nt` is given without naming it.
    """
    if args.tools is None and not args.exclude_tools and not args.no_tools:
        return None
    from pi.app.tool_patterns import ToolSelection, select_tool_names

    selection = ToolSelection(
        tools=args.tools, exclude=args.exclude_tools, no_tools=args.no_tools, no_builtin_tools=args.no_builtin_tools
    )
    return lambda name: bool(select_tool_names([name], [], [], selection))


def extension_flag_values(args: Args, flags: Mapping[str, Any]) -> tuple[dict[str, bool | str], list[str]]:
    """(values of the extension flags given, error messages for everything else)."""
    problems = unknown_option_errors(args, [f"--{name}" for name in flags])
    values: dict[str, bool | str] = {}
    for option, value in args.unknown_options.items():
        flag = flags.get(option.removeprefix("--")) if option.startswith("--") else None
        if flag is None:
            continue
        if flag.type == "string":
            if value is True:
                problems.append(f'Extension flag "{option}" requires a value')
                continue
            values[flag.name] = value
        else:
            values[flag.name] = value if isinstance(value, bool) else value.lower() not in ("false", "0", "no")
    return values, problems


async def load_cli_extensions(session: Any, args: Args, warn: Callable[[str], None]) -> str | None:
    """Load the session's extensions and apply flag values; the text to exit 1 with, or None."""
    diagnostics = await session.load_extensions()
    if any(d.level == "error" for d in diagnostics):
        from pi.app.extensions.loader import startup_failure_lines

        return "\n".join(startup_failure_lines(diagnostics))
    for diagnostic in diagnostics:
        warn(diagnostic.render())
    runner = session.extension_runner
    flags = runner.registry.flags() if runner is not None else {}
    values, problems = extension_flag_values(args, flags)
    if problems:
        from pi.app.args import unknown_option_hint

        hint = unknown_option_hint(args) if any(p.startswith("Unknown option") for p in problems) else None
        return "\n".join([*(f"Error: {problem}" for problem in problems), *([hint] if hint else [])])
    if values:
        session.set_extension_flags(values)
    return None


def _user_extension_entries(cwd: Path, agent_dir: Path) -> list[str] | None:
    """The user settings' `extensions` list when some user or CLI extension could exist, else None."""
    from pi.app.settings import SettingsManager

    entries = SettingsManager.create(cwd, agent_dir, project_trusted=False).global_data.get("extensions") or []
    listed = [e for e in entries if isinstance(e, str)]
    folder = agent_dir / "extensions"
    has_folder = folder.is_dir() and any(not p.name.startswith((".", "_")) for p in folder.iterdir())
    return listed if listed or has_folder else None


async def bootstrap_project_trust(args: Args, cwd: Path, agent_dir: Path, warn: Callable[[str], None]) -> bool | None:
    """Let user and `-e` extensions decide project trust (their `project_trust` handlers) before the
    project's settings are read. None when no handler decided (or none could: nothing to ask)."""
    from pi.app.trust import trust_requiring_resources

    if args.approve is not None or not trust_requiring_resources(cwd):
        return None
    entries = [] if args.no_extensions else _user_extension_entries(cwd, agent_dir)
    if entries is None and not args.extensions:
        return None
    from pi.app import trust
    from pi.app.extensions.context import Mode, ProjectTrustContext
    from pi.app.extensions.loader import offer_loader
    from pi.app.extensions.project_trust import emit_project_trust
    from pi.app.extensions.ui import NoOpUI

    loader = await _load_named(args, cwd, agent_dir, entries or [], None)  # the real load reports problems
    offer_loader(cwd, loader)  # the session's load reuses these instances: each setup runs once
    registry = loader.runtime.registry
    if not registry.has_handlers("project_trust"):
        return None
    mode: Mode = "rpc" if args.mode == "rpc" else "json" if args.mode == "json" else "print"
    outcome = await emit_project_trust(registry, cwd, ProjectTrustContext(str(cwd), mode, NoOpUI()))
    for diagnostic in outcome.diagnostics:
        warn(diagnostic.render())
    if outcome.trusted is not None and outcome.remember:
        trust.update_trust_store(agent_dir, {trust.canonical_dir(cwd): outcome.trusted})
    return outcome.trusted


def help_flag_lines(raw: list[str]) -> list[str]:
    """The `Extension flags:` section of `--help`, listing the flags of the configured user and `-e`
    extensions (project ones too with `--approve`); empty, without importing the machinery, when none is
    configured. Extensions are loaded without a session: no event is emitted."""
    from pi.app.args import ArgsError, parse_args
    from pi.app.paths import agent_dir as get_agent_dir
    from pi.app.session_extensions_config import ExtensionConfig, wants_extensions
    from pi.app.settings import SettingsManager

    try:
        args = parse_args([a for a in raw if a not in ("-h", "--help")], allow_unknown=True)
    except ArgsError:
        return []
    cwd, agent_dir = Path.cwd().resolve(), get_agent_dir()
    trusted = args.approve is True
    config = ExtensionConfig(agent_dir=agent_dir, paths=list(args.extensions), no_extensions=args.no_extensions)
    config.project_trusted = trusted
    settings = SettingsManager.create(cwd, agent_dir, project_trusted=trusted)
    if not wants_extensions(config, cwd, settings.global_data, settings.project_data):
        return []
    return asyncio.run(_flag_lines(args, cwd, agent_dir, settings, trusted))


async def _flag_lines(args: Args, cwd: Path, agent_dir: Path, settings: Any, trusted: bool) -> list[str]:
    entries = settings.global_data.get("extensions") or []
    project = (settings.project_data.get("extensions") or []) if trusted else None
    loader = await _load_named(  # a broken extension just adds no flags here
        args,
        cwd,
        agent_dir,
        [e for e in entries if isinstance(e, str)],
        None if project is None else [e for e in project if isinstance(e, str)],
    )
    flags = loader.runtime.registry.flags()
    loader.runtime.invalidate()
    if not flags:
        return []
    lines = ["", "Extension flags:"]
    for flag in flags.values():
        option = f"--{flag.name}" + (" <value>" if flag.type == "string" else "")
        lines.append(f"  {option:<28} {flag.description or ''}".rstrip())
    return lines


async def _load_named(
    args: Args, cwd: Path, agent_dir: Path, user_entries: list[str], project_entries: list[str] | None
) -> ExtensionLoader:
    """Load the `-e` extensions and the listed settings entries before any session exists: no entry-point
    or built-in extensions, and project ones only when `project_entries` is given (the project is trusted)."""
    from pi.app.extensions.discovery import DiscoveryOptions, discover_extensions
    from pi.app.extensions.loader import load_extensions

    found = discover_extensions(
        DiscoveryOptions(
            cwd=cwd,
            agent_dir=agent_dir,
            project_trusted=project_entries is not None,
            cli_paths=list(args.extensions),
            no_extensions=args.no_extensions,
            user_entries=user_entries,
            project_entries=project_entries or [],
            entry_points=False,
            load_builtins=False,
        )
    )
    loader, _ = await load_extensions(found.enabled(), cwd)
    return loader


__all__ = [
    "bootstrap_project_trust",
    "extension_flag_values",
    "extension_options",
    "help_flag_lines",
    "load_cli_extensions",
]
