"""What the `pi` command settles before a session exists: project trust, the settings it allows, the tools.

Trust comes first because it decides whether the project's `.pi/settings.json` is read at all. The
command line has no UI to ask with, so a `defaultProjectTrust` of `ask` means "not trusted" here;
the interactive UI asks on its own. The starting tools combine ``defaultTools`` (user, then
project) with ``--tools``, ``--exclude-tools``, ``-nt`` and ``-nbt`` (see `pi.app.tool_patterns`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pi.app.args import Args
from pi.app.settings import SettingsManager

_TRUST_DEFAULTS = ("always", "never", "ask")


class TrustedSettings(Struct):
    settings: SettingsManager
    project_trusted: bool
    warnings: list[str] = field(default_factory=list)
    """Problems to show the user (``Warning: …``), settings files' included."""


def load_settings_with_trust(cwd: Path, agent_dir: Path, approve: bool | None) -> TrustedSettings:
    """The settings pi may use in `cwd`: the project's file only when the project is trusted.

    `approve` is ``--approve`` (True) / ``--no-approve`` (False) / neither (None). A broken
    trust.json is reported and leaves the project untrusted, unless ``--approve`` says otherwise.
    """
    from pi.app.trust import TrustStoreError, resolve_project_trust

    user_only = SettingsManager.create(cwd, agent_dir, project_trusted=False)
    default_trust = user_only.global_data.get("defaultProjectTrust", "ask")
    warnings: list[str] = []
    if default_trust not in _TRUST_DEFAULTS:
        warnings.append(
            f'Warning: Invalid defaultProjectTrust "{default_trust}" in settings.json. '
            f"Valid values: {', '.join(_TRUST_DEFAULTS)}; using ask."
        )
        default_trust = "ask"
    try:
        trusted = resolve_project_trust(cwd, agent_dir, approve, str(default_trust)).trusted
    except TrustStoreError as exc:
        warnings.append(f"Warning: {exc}. The project is not trusted for this run; fix or delete the file.")
        trusted = approve is True
    settings = SettingsManager.create(cwd, agent_dir) if trusted else user_only
    return TrustedSettings(settings, trusted, [*settings.drain_errors(), *warnings])


def _tool_setting(value: Any, scope: str, warnings: list[str]) -> list[str] | None:
    """A ``defaultTools`` value, or None (with a warning) when it is not a valid tool list."""
    from pi.app.tool_patterns import tools_flag_errors

    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        warnings.append(f"Warning: Ignoring defaultTools in the {scope} settings: expected a list of tool names")
        return None
    entries = [item.strip() for item in value if item.strip()]
    problems = tools_flag_errors(entries, "defaultTools")
    if problems:
        warnings.extend(f"Warning: Ignoring the {scope} settings' {problem}" for problem in problems)
        return None
    return entries


def select_cli_tool_names(args: Args, settings: SettingsManager, warnings: list[str]) -> list[str]:
    """The built-in tools a run starts with, from the flags in `args` and the ``defaultTools`` settings."""
    from pi.app.tool_patterns import ToolSelection, select_tool_names
    from pi.tools import ALL_TOOL_NAMES, DEFAULT_ACTIVE_TOOL_NAMES

    selection = ToolSelection(
        tools=args.tools,
        exclude=args.exclude_tools,
        no_tools=args.no_tools,
        no_builtin_tools=args.no_builtin_tools,
        user_default=_tool_setting(settings.global_data.get("defaultTools"), "user", warnings),
        project_default=_tool_setting(settings.project_data.get("defaultTools"), "project", warnings),
    )
    return select_tool_names(ALL_TOOL_NAMES, ALL_TOOL_NAMES, DEFAULT_ACTIVE_TOOL_NAMES, selection)


def apply_http_proxy(settings: SettingsManager) -> None:
    """The global ``httpProxy`` setting as ``HTTP_PROXY``/``HTTPS_PROXY``, unless those are set already.

    Only the user's own settings may send traffic through a proxy; a project's value is ignored.
    The HTTP client reads the variables when it connects, and children (bash) inherit them.
    """
    import os

    value = settings.global_data.get("httpProxy")
    proxy = value.strip() if isinstance(value, str) else ""
    if proxy:
        os.environ.setdefault("HTTP_PROXY", proxy)
        os.environ.setdefault("HTTPS_PROXY", proxy)


def session_dir_choice(flag: str | None, cwd: Path, agent_dir: Path) -> str | None:
    """Where sessions are kept: ``--session-dir``, else ``PI_CODING_AGENT_SESSION_DIR``, else ``sessionDir``.

    The setting is read from the project's ``.pi/settings.json`` (before, and whatever, the trust
    decision: it only says where files go), else from the global file; a relative path is taken
    from `cwd`, and ``~`` is expanded. None means the default directory under the agent dir.
    """
    import json
    import os

    from pi.app.paths import project_dir, settings_path

    chosen = flag or os.environ.get("PI_CODING_AGENT_SESSION_DIR") or None
    if chosen is None:
        for path in (project_dir(cwd) / "settings.json", settings_path(agent_dir)):
            try:
                data = json.loads(path.read_text(encoding="utf-8-sig"))
            except (OSError, ValueError):  # missing or broken: the settings loader reports the latter
                continue
            value = data.get("sessionDir") if isinstance(data, dict) else None
            if isinstance(value, str) and value.strip():
                chosen = value.strip()
                break
    if chosen is None:
        return None
    path = Path(chosen).expanduser()
    return str((path if path.is_absolute() else cwd / path).resolve())


def restored_cli_tool_names(args: Args, declared: Sequence[str] | None) -> list[str] | None:
    """The built-in tools a resumed session starts with: those its system messages last declared.

    `declared` are the tool names of the session's system state (None for a new session, or one
    written before sessions recorded their tools). ``--tools +x,-y`` and ``--exclude-tools`` still
    apply on top; a plain ``--tools`` list, ``-nt`` and ``-nbt`` choose explicitly, and then (like
    without a recorded set) the answer is None: select as for a new session.
    """
    from pi.app.tool_patterns import ToolSelection, select_tool_names
    from pi.tools import ALL_TOOL_NAMES, DEFAULT_ACTIVE_TOOL_NAMES

    if declared is None or args.no_tools or args.no_builtin_tools:
        return None
    if args.tools is not None and (not args.tools or not all(e[:1] in "+-" and len(e) > 1 for e in args.tools)):
        return None
    restored = [name for name in ALL_TOOL_NAMES if name in set(declared)]
    selection = ToolSelection(tools=args.tools, exclude=args.exclude_tools, user_default=restored)
    return select_tool_names(ALL_TOOL_NAMES, ALL_TOOL_NAMES, DEFAULT_ACTIVE_TOOL_NAMES, selection)


__all__ = [
    "TrustedSettings",
    "apply_http_proxy",
    "load_settings_with_trust",
    "restored_cli_tool_names",
    "select_cli_tool_names",
    "session_dir_choice",
]
