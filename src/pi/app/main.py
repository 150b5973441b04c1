"""What `pi` does after its arguments are parsed: load config, pick the model and session, run a mode.

Errors a user can fix (a missing @file, an unknown model, no API key) end with one clear line on
stderr and exit code 1; nothing here writes to the session before the model has answered.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi.app.args import Args
from pi.app.cli_errors import CliError, SessionDeclined
from pi.app.cli_logging import configure_cli_logging
from pi.app.cli_session_open import declared_tool_names, open_session, stored_session_cwd
from pi.app.model_list import list_models
from pi.app.termination_signals import LoopTermination, install_process_handlers

if TYPE_CHECKING:
    from pi.app.packages.settings_file import PackageLists


def _warn(message: str) -> None:
    sys.stderr.write(f"{message}\n")


def _unsupported_flag_warnings(args: Args) -> list[str]:
    """Flags pi accepts that this version cannot act on yet: say so instead of silently ignoring them."""
    out: list[str] = []
    if args.themes:
        out.append("Warning: themes only apply to the interactive UI, which this version does not have")
    return out


def export_session(source: str, output: str | None, cwd: Path) -> int:
    from pi.session.export_html import export_session_html

    path = Path(source).expanduser()
    if not path.is_absolute():
        path = cwd / path
    if not path.is_file():
        raise CliError(f"Error: Session file not found: {path}")
    target = None if output is None else (Path(output) if Path(output).is_absolute() else cwd / output)
    try:
        written = export_session_html(path, target)
    except Exception as exc:  # any failure is reported as pi reports it, without a traceback
        raise CliError(f"Error: {exc}") from exc
    print(f"Exported to: {written}")
    return 0


def _tool_options(settings: Any) -> Any:
    """What settings.json says about the tools: the shell, a prefix run before each command, image resizing."""
    from pi.tools import BashToolOptions, ReadToolOptions, ToolsOptions

    shell_path = settings.get("shellPath")
    if shell_path is not None and not Path(str(shell_path)).expanduser().exists():
        raise CliError(f"Custom shell path not found: {shell_path}\nFix or remove shellPath in settings.json.")
    prefix = settings.get("shellCommandPrefix")
    images = settings.get("images")
    auto_resize = not (isinstance(images, dict) and images.get("autoResize") is False)
    return ToolsOptions(
        bash=BashToolOptions(
            shell_path=str(Path(str(shell_path)).expanduser()) if shell_path else None,
            command_prefix=prefix if isinstance(prefix, str) and prefix else None,
        ),
        read=ReadToolOptions(auto_resize_images=auto_resize),
    )


def _select_tools(args: Args, cwd: Path, settings: Any = None) -> list[Any]:
    """The tools `args` and the ``defaultTools`` settings select, built for `cwd` (no session PI_* variables)."""
    from pi.app.cli_config import select_cli_tool_names
    from pi.app.settings import SettingsManager
    from pi.tools import create_tool

    chosen = settings if settings is not None else SettingsManager.in_memory()
    options = _tool_options(settings) if settings is not None else None
    names = select_cli_tool_names(args, chosen, [])
    return [create_tool(name, str(cwd), options) for name in names]  # type: ignore[arg-type]


def _read_stdin() -> str | None:
    if sys.stdin is None or sys.stdin.isatty():
        return None
    try:
        data = sys.stdin.read()
    except (OSError, ValueError):
        return None
    data = data.strip()
    return data or None


def _load_config(cwd: Path, agent_dir: Path, args: Args) -> tuple[Any, Any, Any, bool]:
    """settings.json (the project's only if trusted), auth.json, models.json, and whether the project is trusted.

    Every problem found is reported as a warning."""
    from pi.app.auth import AuthStorage
    from pi.app.cli_config import load_settings_with_trust
    from pi.app.model_registry import ModelRegistry
    from pi.app.paths import auth_path, models_path

    loaded = load_settings_with_trust(cwd, agent_dir, args.approve)
    settings = loaded.settings
    for message in loaded.warnings:
        _warn(message)
    auth = AuthStorage(auth_path(agent_dir))
    registry = ModelRegistry(auth, models_path(agent_dir))
    for message in [*auth.errors, *registry.errors]:
        _warn(message if message.startswith(("Warning:", "Error:")) else f"Warning: {message}")
    for message in args.warnings:
        _warn(message)
    for message in _unsupported_flag_warnings(args):
        _warn(message)
    return settings, auth, registry, loaded.project_trusted


def _first_messages(args: Args, stdin_text: str | None, mode: str, cwd: Path) -> tuple[list[str], list[Any]] | None:
    """The prompts and images; None when there is nothing to run.

    Piped stdin, the @file text and the first message are one prompt, joined without a separator
    (``git diff | pi -p "write a commit message"`` is one request holding both).
    """
    from pi.app.file_args import FileArgError, process_file_args

    messages = list(args.messages)
    if stdin_text is not None and mode != "rpc":
        args.print = True
    if mode == "rpc" and args.file_args:
        raise CliError("Error: @file arguments are not supported in RPC mode")
    from pi.app.modes.interactive.cli_entry import stdio_is_terminal

    if args.mode is None and not args.print and not messages and not stdio_is_terminal():
        _warn(
            "pi: the interactive terminal UI needs a terminal (stdin and stdout).\n"
            'Run a prompt with: pi -p "your prompt"   (or pipe text: echo "..." | pi -p)\n'
            "Other modes: --mode json (events as JSON lines), --mode rpc (commands on stdin). See pi --help."
        )
        return None
    images: list[Any] = []
    prefix = stdin_text if stdin_text is not None and mode != "rpc" else ""
    if args.file_args:
        try:
            files = process_file_args(args.file_args, cwd)
        except FileArgError as exc:
            raise CliError(str(exc)) from exc
        images = files.images
        prefix += files.text
    if prefix:
        if messages:
            messages[0] = prefix + messages[0]
        else:
            messages.append(prefix)
    return messages, images


def _choose_model(args: Args, settings: Any, auth: Any, registry: Any) -> tuple[Any, str | None, list[Any]]:
    """--model/--provider, else the --models/enabledModels scope: (model or None, thinking level, scope)."""
    from pi.app.model_resolver import ModelResolutionError, resolve_registry_model

    model = None
    thinking = args.thinking
    if args.model or args.provider:
        try:
            resolved = resolve_registry_model(
                args.model or "", registry, args.provider, api_key_given=bool(args.api_key)
            )
        except ModelResolutionError as exc:  # worded as pi words every fatal start-up problem
            raise CliError(f"Error: {exc}") from exc
        if resolved.warning:
            _warn(f"Warning: {resolved.warning}")
        model = resolved.model
        thinking = thinking or resolved.thinking_level
    scoped: list[tuple[Any, str | None]] = []
    scope_patterns = args.models if args.models is not None else settings.get("enabledModels")
    if scope_patterns:
        from pi.app.model_resolver import resolve_model_scope

        scoped, scope_warnings = resolve_model_scope(
            [p for p in scope_patterns if isinstance(p, str)], registry.all_models()
        )
        for message in scope_warnings:
            _warn(f"Warning: {message}")
        if model is None and scoped and not (args.continue_session or args.session or args.resume):
            saved = (settings.get("defaultProvider"), settings.get("defaultModel"))
            chosen = next((pair for pair in scoped if (pair[0].provider, pair[0].id) == saved), scoped[0])
            model, thinking = chosen[0], thinking or chosen[1]
    if args.api_key:
        if model is None:
            raise CliError(
                "Error: --api-key requires a model to be specified via --model, --provider/--model, or --models"
            )
        auth.set_runtime_api_key(model.provider, args.api_key)
    return model, thinking, scoped


def _names_unknown_provider(args: Args, registry: Any) -> bool:
    """`--model <provider>/<id>` (without `--provider`) whose provider the catalog does not know yet."""
    pattern = args.model or ""
    if args.provider or "/" not in pattern:
        return False
    return registry.provider_named(pattern.split("/", 1)[0]) is None


def _install_missing_packages(args: Args, cwd: Path, agent_dir: Path) -> PackageLists:
    """Install configured packages that are missing, saying so, before anything is drawn; the project's only
    with ``--approve`` (else after trust is known). Returns the package lists as read: the resource loader
    uses them rather than read the settings files again."""
    from pi.app.packages.session_resources import install_missing_packages
    from pi.app.packages.settings_file import PackageLists

    lists = PackageLists()
    install_missing_packages(
        agent_dir, cwd, project_trusted=args.approve is True, warnings=[], notice=_warn, lists=lists
    )
    return lists


def _load_resources(
    args: Args, settings: Any, cwd: Path, agent_dir: Path, project_trusted: bool, lists: PackageLists | None = None
) -> Any:
    from pi.app.packages.sources import is_package_source
    from pi.app.resources import ResourceOptions, SettingsScope, load_resources

    resource_options = ResourceOptions(
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        extra_skill_paths=args.skills,
        extra_template_paths=args.prompt_templates,
        no_skills=args.no_skills,
        no_prompt_templates=args.no_prompt_templates,
        no_context_files=args.no_context_files,
        project_trusted=project_trusted,
        settings_scopes=[
            SettingsScope.of(agent_dir, settings.global_data),
            *([SettingsScope.of(cwd / ".pi", settings.project_data)] if project_trusted else []),
        ],
        temporary_packages=[e for e in args.extensions if is_package_source(e)],
        package_notice=_warn,
        package_lists=lists,
    )
    resources = load_resources(cwd, agent_dir, resource_options)
    for message in resources.warnings:
        if args.verbose:
            _warn(f"Warning: {message}")
    return resources


async def _load_extensions(session: Any, args: Args) -> None:
    """Load the extensions; a load error or an option nothing defines ends `pi` (exit 1)."""
    from pi.app.session_extensions_cli import load_cli_extensions

    problem = await load_cli_extensions(session, args, _warn)
    if problem is not None:
        raise CliError(problem)


async def _list_models_session(
    args: Args, cwd: Path, agent_dir: Path, config: tuple[Any, ...], lists: PackageLists
) -> None:
    """Extensions may register providers: load them (in a session kept in memory) before listing.
    `config` is what `_load_config` returned."""
    from pi.app.sdk import CreateSessionOptions, create_agent_session
    from pi.app.session_extensions_cli import extension_options
    from pi.session.manager import SessionManager

    settings, auth, registry, project_trusted = config

    options = CreateSessionOptions(
        cwd=cwd,
        agent_dir=agent_dir,
        tools=[],
        settings=settings,
        auth=auth,
        model_registry=registry,
        resources=_load_resources(args, settings, cwd, agent_dir, project_trusted, lists),
        session_manager=SessionManager.in_memory(str(cwd)),
        **extension_options(args, project_trusted),
    )
    await _load_extensions(create_agent_session(options), args)


async def _run_async(args: Args, stdin_text: str | None) -> int:
    """The whole run inside the event loop; SIGTERM or SIGHUP ends it as a cancellation (128 + signal)."""
    termination = LoopTermination()
    try:
        return await _run_session(args, stdin_text)
    except asyncio.CancelledError:
        status = termination.exit_status()
        if status is None:
            raise
        return status
    finally:
        termination.close()


async def _run_session(args: Args, stdin_text: str | None) -> int:
    from pi.app.modes.interactive.cli_entry import stdio_is_terminal
    from pi.app.paths import agent_dir as get_agent_dir

    cwd = Path(os.getcwd()).resolve()
    agent_dir = get_agent_dir()
    from pi.app.modes.interactive.cli_entry import wants_interactive
    from pi.app.session_extensions_cli import bootstrap_project_trust

    decided = await bootstrap_project_trust(args, cwd, agent_dir, _warn)
    if decided is not None:
        args.approve = decided
    if args.approve is None and wants_interactive(args, args.mode or "text"):
        from pi.app.modes.interactive.trust_prompt import ask_project_trust

        args.approve = await ask_project_trust(cwd, agent_dir, theme_name=args.use_theme, tui_mode=args.tui_mode or "")
    package_lists = _install_missing_packages(args, cwd, agent_dir)
    global _first_frame
    from pi.app.modes.interactive.cli_entry import first_frame_before_session

    _first_frame = first_frame_before_session(args, cwd, agent_dir)  # the heavy imports below come after it
    from pi.app.agent_session import NoApiKeyError
    from pi.app.cli_config import apply_http_proxy, restored_cli_tool_names, select_cli_tool_names
    from pi.app.sdk import CreateSessionOptions, create_agent_session
    from pi.app.session_extensions_cli import extension_options

    settings, auth, registry, project_trusted = _load_config(cwd, agent_dir, args)
    apply_http_proxy(settings)
    if args.resume and stdio_is_terminal():
        from pi.app.modes.interactive.startup_picker import pick_session

        picked = await pick_session(
            cwd,
            agent_dir,
            settings_theme=settings.get("theme"),
            theme_name=args.use_theme,
            session_dir=args.session_dir,
            tui_mode=args.tui_mode or settings.get("tuiMode") or "fullscreen",
        )
        if picked is None:
            print("No session selected")
            return 0
        args.session, args.resume = picked, False
    if args.resume:
        raise CliError(
            "--resume opens a session picker, which needs the interactive UI (not in this version).\n"
            "Use -c to continue the latest session, or --session <id-prefix|path> for a given one."
        )
    if args.list_models:
        await _list_models_session(args, cwd, agent_dir, (settings, auth, registry, project_trusted), package_lists)
        return list_models(registry, args.list_models_search)
    if args.export is not None:
        return export_session(args.export, args.messages[0] if args.messages else None, cwd)

    mode = args.mode or "text"
    # A session named with --session is opened first: it runs in its own stored directory.
    manager = open_session(args, cwd, agent_dir) if args.session else None
    stored_cwd = stored_session_cwd(args, manager, cwd, wants_interactive(args, mode)) if manager else None
    if stored_cwd is not None:  # tools, @files, project settings and context files resolve from there
        cwd = stored_cwd
        settings, auth, registry, project_trusted = _load_config(cwd, agent_dir, args)
    first = _first_messages(args, stdin_text, mode, cwd)
    if first is None:
        return 1
    messages, images = first
    may_register = not (args.no_extensions and not args.extensions)
    unresolved: CliError | None = None
    deferred = may_register and _names_unknown_provider(args, registry)
    scoped: list[Any] = []
    try:
        if deferred:  # `--model router/auto`: an extension may register `router`; no fuzzy guess before
            model, thinking = None, args.thinking
        else:
            model, thinking, scoped = _choose_model(args, settings, auth, registry)
    except CliError as exc:  # an extension may register the provider: try again once they loaded
        if not may_register:
            raise
        model, thinking, scoped, unresolved = None, args.thinking, [], exc
    tool_warnings: list[str] = []
    if manager is None:
        manager = open_session(args, cwd, agent_dir)
    tool_names = select_cli_tool_names(args, settings, tool_warnings)
    restored = restored_cli_tool_names(args, declared_tool_names(manager))
    tool_names = restored if restored is not None else tool_names
    for message in tool_warnings:
        _warn(message)
    options = CreateSessionOptions(
        cwd=cwd,
        agent_dir=agent_dir,
        model=model,
        thinking_level=thinking,
        tool_names=tool_names,
        tool_options=_tool_options(settings),
        settings=settings,
        auth=auth,
        model_registry=registry,
        resources=_load_resources(args, settings, cwd, agent_dir, project_trusted, package_lists),
        session_manager=manager,
        scoped_models=scoped,
        **extension_options(args, project_trusted),
    )
    session = create_agent_session(options)
    for message in options.warnings:
        _warn(f"Warning: {message}")
    await _load_extensions(session, args)
    if unresolved is not None or deferred:
        if unresolved is not None and session.extension_runner is None:
            raise unresolved
        model, thinking, _ = _choose_model(args, settings, auth, registry)
        session.set_model(model)
        if deferred and thinking:
            session.set_thinking_level(thinking)
    from pi.app.modes.interactive.cli_entry import run_from_cli, wants_interactive

    if wants_interactive(args, mode):
        frame, _first_frame = _first_frame, None
        return await run_from_cli(session, args, messages, images, first_frame=frame)
    if session.model is None:
        raise CliError(
            "No models available.\nSet an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, etc.) "
            "or add a provider to ~/.pi/agent/models.json."
        )
    if mode == "rpc":
        from pi.app.modes.rpc_mode import run_rpc_mode

        return await run_rpc_mode(session)

    from pi.app.modes.print_mode import run_print_mode

    try:
        return await run_print_mode(session, messages, images, "json" if mode == "json" else "text")
    except NoApiKeyError as exc:
        raise CliError(str(exc)) from exc


def _mark_process() -> None:
    """Children (the bash tool, the user's commands) can tell they run under pi; only the CLI sets these."""
    os.environ["PI_CODING_AGENT"] = "true"
    os.environ["AI_AGENT"] = "pi"


_first_frame: Any = None
"""The interactive UI's first frame while the session is built (`cli_entry.first_frame_before_session`)."""


def _close_first_frame() -> None:
    """An exit before the UI took the terminal over: give it back before any error is printed."""
    global _first_frame
    frame, _first_frame = _first_frame, None
    if frame is not None:
        frame.close()


def run(args: Args) -> int:
    stdin_text = _read_stdin() if args.mode != "rpc" else None
    _mark_process()
    configure_cli_logging(args.verbose)
    install_process_handlers()
    try:
        try:
            return asyncio.run(_run_async(args, stdin_text))
        finally:
            _close_first_frame()
    except CliError as exc:
        _warn(str(exc))
        return 1
    except SessionDeclined:
        return 0
    except KeyboardInterrupt:
        from pi.tools.shell import kill_tracked_process_groups

        kill_tracked_process_groups()
        return 128 + signal.SIGINT


__all__ = ["CliError", "list_models", "run"]
