"""Parse pi's command line.

pi's flags, short aliases and argument rules (``@file`` arguments, several messages sent in turn),
with two deliberate differences that a scripting user expects: ``--flag=value`` works as well as
``--flag value``, and an unknown flag or an invalid ``--mode`` / ``--thinking`` value is an error
that lists the valid choices instead of being silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MODES = ("text", "json", "rpc")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
BUILTIN_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")


class ArgsError(ValueError):
    """A command-line mistake; the message says what is accepted."""


@dataclass(eq=False)
class Args:
    """The parsed command line.

    No generated ``__eq__`` (nothing compares two parses), and this docstring is written out: for a
    class of forty fields, dataclasses would otherwise build both at every start.
    """

    help: bool = False
    version: bool = False
    mode: str | None = None
    print: bool = False
    continue_session: bool = False
    resume: bool = False
    session: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    fork: str | None = None
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    models: list[str] | None = None
    list_models: bool = False
    list_models_search: str | None = None
    tools: list[str] | None = None
    exclude_tools: list[str] = field(default_factory=list)
    no_tools: bool = False
    no_builtin_tools: bool = False
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    export: str | None = None
    verbose: bool = False
    offline: bool = False
    file_args: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# flag -> (attribute, kind). Kinds: bool, str, list (repeatable), csv (comma list)
_FLAGS: dict[str, tuple[str, str]] = {
    "--help": ("help", "bool"),
    "--version": ("version", "bool"),
    "--mode": ("mode", "str"),
    "--print": ("print", "bool"),
    "--continue": ("continue_session", "bool"),
    "--resume": ("resume", "bool"),
    "--session": ("session", "str"),
    "--session-dir": ("session_dir", "str"),
    "--no-session": ("no_session", "bool"),
    "--fork": ("fork", "str"),
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
    "--skill": ("skills", "list"),
    "--no-skills": ("no_skills", "bool"),
    "--prompt-template": ("prompt_templates", "list"),
    "--no-prompt-templates": ("no_prompt_templates", "bool"),
    "--theme": ("themes", "list"),
    "--no-themes": ("no_themes", "bool"),
    "--system-prompt": ("system_prompt", "str"),
    "--append-system-prompt": ("append_system_prompt", "str"),
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
    "-e": "--extension",
    "-ne": "--no-extensions",
    "-ns": "--no-skills",
    "-np": "--no-prompt-templates",
}


def _closest(flag: str) -> str:
    import difflib

    match = difflib.get_close_matches(flag, list(_FLAGS), n=1)
    return f" Did you mean {match[0]}?" if match else ""


def parse_args(argv: list[str]) -> Args:
    args = Args()
    i = 0
    while i < len(argv):
        raw = argv[i]
        i += 1
        if raw == "--":
            args.messages.extend(argv[i:])
            break
        if raw.startswith("@") and len(raw) > 1:
            args.file_args.append(raw[1:])
            continue
        if not raw.startswith("-") or raw == "-":
            args.messages.append(raw)
            continue
        name, has_inline, inline = raw.partition("=") if raw.startswith("--") else (raw, "", "")
        name = _ALIASES.get(name, name)
        spec = _FLAGS.get(name)
        if spec is None:
            raise ArgsError(f"Unknown option: {raw}.{_closest(name)} Run 'pi --help' to see every option.")
        attr, kind = spec
        if kind == "bool":
            if has_inline:
                raise ArgsError(f"Option {name} takes no value (got {raw!r}).")
            setattr(args, attr, True)
            if name == "--list-models" and i < len(argv) and not argv[i].startswith(("-", "@")):
                args.list_models_search = argv[i]
                i += 1
            continue
        if has_inline:
            value = inline
        elif i < len(argv):
            value = argv[i]
            i += 1
        else:
            raise ArgsError(f"Option {name} needs a value.")
        if kind == "str":
            setattr(args, attr, value)
        elif kind == "list":
            getattr(args, attr).append(value)
        else:
            items = [item.strip() for item in value.split(",") if item.strip()]
            current = getattr(args, attr)
            setattr(args, attr, (current or []) + items)
    _check(args)
    return args


def _check(args: Args) -> None:
    if args.mode is not None and args.mode not in MODES:
        raise ArgsError(f'Invalid mode "{args.mode}". Valid values: {", ".join(MODES)}')
    if args.thinking is not None and args.thinking not in THINKING_LEVELS:
        raise ArgsError(f'Invalid thinking level "{args.thinking}". Valid values: {", ".join(THINKING_LEVELS)}')
    if args.export is not None and args.messages:
        pass  # the first message is the output path; main() reads it
    for attr in ("tools", "exclude_tools"):
        names = getattr(args, attr)
        if not names:
            continue
        valid = [n for n in names if n in BUILTIN_TOOLS]
        for unknown in (n for n in names if n not in BUILTIN_TOOLS):
            args.warnings.append(f'Warning: Unknown tool "{unknown}". Valid tools: {", ".join(BUILTIN_TOOLS)}')
        setattr(args, attr, valid)


__all__ = ["BUILTIN_TOOLS", "MODES", "THINKING_LEVELS", "Args", "ArgsError", "parse_args"]
