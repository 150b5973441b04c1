"""Parse pi's command line.

pi's flags, short aliases and argument rules: ``@file`` arguments, several messages sent in turn,
``--`` ending the options, ``-p`` taking the next word as the prompt. ``--flag=value`` works as
well as ``--flag value``. Problems are collected rather than raised one at a time, so the user
sees all of them at once: errors (``Args.errors``, printed as ``Error: ...``, exit 1 before any
session starts) and warnings (``Args.warnings``, printed as they are, the run goes on).

An unknown option is captured with its value (a following word that starts with neither ``-``
nor ``@``), because an extension may define it; `unknown_option_errors` turns whatever no
extension claimed into the error.
"""

from __future__ import annotations

from msgspec import Struct, field

MODES = ("text", "json", "rpc")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
TUI_MODES = ("regular", "fullscreen")
BUILTIN_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")


class ArgsError(ValueError):
    """Command-line mistakes; `errors` holds each message (without the ``Error:`` prefix)."""

    def __init__(self, errors: list[str], parsed: Args | None = None) -> None:
        super().__init__("\n".join(f"Error: {message}" for message in errors))
        self.errors = errors
        self.parsed = parsed
        """What was parsed despite the errors (for hints such as a close option name)."""


class Args(Struct, eq=False):
    """The parsed command line.

    Nothing compares two parses, so the Struct has no field-by-field equality.
    """

    help: bool = False
    version: bool = False
    mode: str | None = None
    print: bool = False
    continue_session: bool = False
    resume: bool = False
    session: str | None = None
    session_id: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    fork: str | None = None
    name: str | None = None
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    models: list[str] | None = None
    list_models: bool = False
    list_models_search: str | None = None
    tools: list[str] | None = None
    """The raw ``--tools`` entries: names, ``*`` patterns, or only ``+name`` / ``-name`` modifiers."""
    exclude_tools: list[str] = field(default_factory=list)
    no_tools: bool = False
    no_builtin_tools: bool = False
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    no_mcp: bool = False
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    no_context_files: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    use_theme: str | None = None
    tui_mode: str | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    approve: bool | None = None
    """``--approve`` (True) / ``--no-approve`` (False): trust or distrust the project for this run."""
    export: str | None = None
    verbose: bool = False
    offline: bool = False
    file_args: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    unknown_options: dict[str, str | bool] = field(default_factory=dict)
    """Options no built-in flag matched, with their values; an extension may claim them."""
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# flag -> (attribute, kind). Kinds: bool, str, list (repeatable), csv (comma list), true/false (fixed value)
_FLAGS: dict[str, tuple[str, str]] = {
    "--help": ("help", "bool"),
    "--version": ("version", "bool"),
    "--mode": ("mode", "str"),
    "--print": ("print", "bool"),
    "--continue": ("continue_session", "bool"),
    "--resume": ("resume", "bool"),
    "--session": ("session", "str"),
    "--session-id": ("session_id", "str"),
    "--session-dir": ("session_dir", "str"),
    "--no-session": ("no_session", "bool"),
    "--fork": ("fork", "str"),
    "--name": ("name", "str"),
    "--provider": ("provider", "str"),
    "--model": ("model", "str"),
    "--api-key": ("api_key", "str"),
    "--thinking": ("thinking", "str"),
    "--models": ("models", "csv"),
    "--list-models": ("list_models", "bool"),
    "--tools": ("tools", "csv"),
    "--exclude-tools": ("exclude_tools", "csv"),
    "--no-tools": ("no_tools", "bool"),
    "--no-builtin-tools": ("no_builtin_tools", "bool"),
    "--extension": ("extensions", "list"),
    "--no-extensions": ("no_extensions", "bool"),
    "--no-mcp": ("no_mcp", "bool"),
    "--skill": ("skills", "list"),
    "--no-skills": ("no_skills", "bool"),
    "--prompt-template": ("prompt_templates", "list"),
    "--no-prompt-templates": ("no_prompt_templates", "bool"),
    "--no-context-files": ("no_context_files", "bool"),
    "--theme": ("themes", "list"),
    "--no-themes": ("no_themes", "bool"),
    "--use-theme": ("use_theme", "str"),
    "--tui-mode": ("tui_mode", "str"),
    "--system-prompt": ("system_prompt", "str"),
    "--append-system-prompt": ("append_system_prompt", "list"),
    "--approve": ("approve", "true"),
    "--no-approve": ("approve", "false"),
    "--export": ("export", "str"),
    "--verbose": ("verbose", "bool"),
    "--offline": ("offline", "bool"),
}

_ALIASES = {
    "-h": "--help",
    "-v": "--version",
    "-p": "--print",
    "-c": "--continue",
    "-r": "--resume",
    "-n": "--name",
    "-e": "--extension",
    "-t": "--tools",
    "-xt": "--exclude-tools",
    "-nt": "--no-tools",
    "-nbt": "--no-builtin-tools",
    "-ne": "--no-extensions",
    "-ns": "--no-skills",
    "-np": "--no-prompt-templates",
    "-nc": "--no-context-files",
    "-a": "--approve",
    "-na": "--no-approve",
}

# What a flag without its value says (the default is "<flag> requires a value").
_MISSING_VALUE = {
    "--mode": "--mode requires text, json, or rpc",
    "--tui-mode": "--tui-mode requires regular or fullscreen",
    "--use-theme": "--use-theme requires a theme name",
}


def _is_value(word: str) -> bool:
    """Whether an unknown option or ``-p`` may take `word` as its value (front matter ``---`` may)."""
    return word.startswith("---") or not word.startswith(("-", "@"))


def _closest(flag: str) -> str | None:
    import difflib

    match = difflib.get_close_matches(flag, list(_FLAGS), n=1, cutoff=0.75)
    return match[0] if match else None


class _Cursor(Struct):
    argv: list[str]
    i: int = 0

    def peek(self) -> str | None:
        return self.argv[self.i] if self.i < len(self.argv) else None

    def take(self) -> str:
        self.i += 1
        return self.argv[self.i - 1]


def _positional(args: Args, word: str) -> None:
    if word.startswith("@") and len(word) > 1:
        args.file_args.append(word[1:])
    else:
        args.messages.append(word)


def _unknown(args: Args, raw: str, cursor: _Cursor) -> None:
    name, has_inline, inline = raw.partition("=")
    if has_inline:
        args.unknown_options[name] = inline
    elif raw.startswith("--") and (nxt := cursor.peek()) is not None and _is_value(nxt):
        args.unknown_options[name] = cursor.take()
    else:
        args.unknown_options[name] = True


def _store(args: Args, name: str, value: str) -> None:
    attr, kind = _FLAGS[name]
    if kind == "str":
        setattr(args, attr, value)
    elif kind == "list":
        getattr(args, attr).append(value)
    else:
        items = [item.strip() for item in value.split(",") if item.strip()]
        current = getattr(args, attr)
        setattr(args, attr, (current or []) + items)


def _option(args: Args, raw: str, cursor: _Cursor) -> None:
    name, has_inline, inline = raw.partition("=") if raw.startswith("--") else (raw, "", "")
    name = _ALIASES.get(name, name)
    if name not in _FLAGS:
        _unknown(args, raw, cursor)
        return
    attr, kind = _FLAGS[name]
    if kind in ("bool", "true", "false"):
        if has_inline:
            args.errors.append(f"{name} takes no value (got {raw})")
            return
        setattr(args, attr, kind != "false")
        nxt = cursor.peek()
        if name == "--list-models" and nxt is not None and not nxt.startswith(("-", "@")):
            args.list_models_search = cursor.take()
        elif name == "--print" and nxt is not None and _is_value(nxt):
            args.messages.append(cursor.take())
        return
    if has_inline:
        value = inline
    elif cursor.peek() is not None:
        value = cursor.take()
    else:
        args.errors.append(_MISSING_VALUE.get(name, f"{name} requires a value"))
        return
    _store(args, name, value)


def parse_args(argv: list[str], *, allow_unknown: bool = False) -> Args:
    """Parse `argv`; raises ArgsError listing every error found.

    With `allow_unknown`, unknown options are only recorded (`Args.unknown_options`) for the caller
    to check once extensions have registered their flags (`unknown_option_errors`).
    """
    args = Args()
    cursor = _Cursor(argv)
    while (raw := cursor.peek()) is not None:
        cursor.take()
        if raw == "--":
            while cursor.peek() is not None:
                _positional(args, cursor.take())
            break
        if not raw.startswith("-") or raw == "-":
            _positional(args, raw)
        else:
            _option(args, raw, cursor)
    _check(args)
    if not allow_unknown:
        args.errors.extend(unknown_option_errors(args, ()))
    if args.errors:
        raise ArgsError(args.errors, args)
    return args


def unknown_option_errors(args: Args, registered: tuple[str, ...] | list[str]) -> list[str]:
    """The error for every unknown option that no extension registered (one message for several)."""
    unknown = [name for name in args.unknown_options if name not in registered]
    if not unknown:
        return []
    return [f"Unknown option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}"]


def unknown_option_hint(args: Args) -> str | None:
    """A suggestion for a mistyped option, e.g. "Did you mean --model?", when one is close."""
    for name in args.unknown_options:
        match = _closest(name) if name.startswith("--") else None
        if match is not None:
            return f"Did you mean {match}? Run 'pi --help' to see every option."
    return None


def _check_tools(args: Args) -> None:
    from pi.app.tool_patterns import tools_flag_errors

    if args.tools:
        args.errors.extend(tools_flag_errors(args.tools))


def _check_sessions(args: Args) -> None:
    if args.fork is not None:
        clashes = [
            flag
            for flag, used in (
                ("--session", args.session is not None),
                ("--continue", args.continue_session),
                ("--resume", args.resume),
                ("--no-session", args.no_session),
            )
            if used
        ]
        if clashes:
            args.errors.append(f"--fork cannot be combined with {', '.join(clashes)}")
    if args.session_id is not None:
        clashes = [
            flag
            for flag, used in (
                ("--session", args.session is not None),
                ("--continue", args.continue_session),
                ("--resume", args.resume),
            )
            if used
        ]
        if clashes:
            args.errors.append(f"--session-id cannot be combined with {', '.join(clashes)}")
        else:
            from pi.session.ids import INVALID_SESSION_ID_MESSAGE, SESSION_ID_PATTERN

            if SESSION_ID_PATTERN.fullmatch(args.session_id) is None:
                args.errors.append(INVALID_SESSION_ID_MESSAGE)
    if args.name is not None and not args.name.strip():
        args.errors.append("--name requires a non-empty value")


def _check(args: Args) -> None:
    if args.mode is not None and args.mode not in MODES:
        args.errors.append(f'Invalid mode "{args.mode}". Valid values: {", ".join(MODES)}')
    if args.tui_mode is not None and args.tui_mode not in TUI_MODES:
        args.errors.append(f'Invalid TUI mode "{args.tui_mode}". Valid values: {", ".join(TUI_MODES)}')
    if args.use_theme is not None and not args.use_theme.strip():
        args.errors.append("--use-theme requires a theme name")
    if args.thinking is not None and args.thinking not in THINKING_LEVELS:
        args.warnings.append(
            f'Warning: Invalid thinking level "{args.thinking}". Valid values: {", ".join(THINKING_LEVELS)}'
        )
        args.thinking = None
    if args.provider is not None and args.model is None:
        args.errors.append(f"--provider requires --model (for example: --provider {args.provider} --model <pattern>)")
    _check_tools(args)
    _check_sessions(args)


__all__ = [
    "BUILTIN_TOOLS",
    "MODES",
    "THINKING_LEVELS",
    "TUI_MODES",
    "Args",
    "ArgsError",
    "parse_args",
    "unknown_option_errors",
    "unknown_option_hint",
]
