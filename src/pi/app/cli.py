"""Command-line entry point of `pi`.

Start-up time is a feature: this module imports only the standard library and the argument parser,
and `--version` / `--help` are answered before anything heavier is loaded. Everything else happens
in `pi.app.main`, imported only when there is work to do.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi.app.args import Args

DELETED_CWD_ERROR = (
    "Error: The current working directory no longer exists. Change to an existing directory and try again."
)

USAGE = """\
pi - AI coding assistant with read, bash, edit, write tools

Usage:
  pi [options] [@files...] [messages...]
  pi auth login|logout|list|check <provider>   Manage stored credentials and subscription logins
  pi mcp add|remove|list|login|logout ...      Manage MCP servers (mcp.json)
  pi install|remove|update|list <source>       Manage pi packages (pypi:, git:, local paths)
  pi config [-l]                               Switch package resources and built-in extensions on or off

Modes:
  -p, --print                  Answer the prompt(s), print the final reply and exit (also when stdout
                               or stdin is redirected); the word after -p is the prompt
  --mode text|json|rpc         text (default), json (every event as a JSON line), rpc (commands on stdin)
  --tui-mode regular|fullscreen  How the interactive UI draws (interactive mode)

Model:
  --provider <name>            Provider of --model (anthropic, openai, google, openrouter, ... or models.json)
  --model <pattern>            Model id, provider/id or a fuzzy pattern; ":<level>" sets thinking (sonnet:high)
  --api-key <key>              Key for this run only (never saved)
  --thinking <level>           off, minimal, low, medium, high, xhigh, max
  --models <patterns>          Comma-separated models to cycle through
  --list-models [search]       List the models that have an API key, and exit

Sessions:
  -c, --continue               Continue the most recent session in this directory
  -r, --resume                 Pick a session to resume (interactive UI)
  --session <path|id>          Open a session file, or the session whose id starts with <id>
  --session-id <id>            Open this project's session with exactly this id, or start one with it
  --session-dir <dir>          Keep sessions in <dir>
  --no-session                 Keep nothing on disk
  --fork <path|id>             Continue a copy of a session in a new file
  -n, --name <name>            Name the session
  --export <in.jsonl> [out]    Write a session as a self-contained HTML file and exit

Tools and resources:
  -t, --tools <list>           Enable exactly these tools (names or * patterns: read,bash,edit,write,grep,
                               find,ls), or change the defaults with +name/-name entries (-t +grep,-write)
  -xt, --exclude-tools <list>  Disable these tools (names or * patterns)
  -nt, --no-tools              Start with no tools (--tools adds some back)
  -nbt, --no-builtin-tools     Start with no built-in tools; extension tools stay
  -e, --extension <path>       Load an extension file or directory, or builtin:<name> (repeatable)
  -ne, --no-extensions         Load only the -e extensions (no discovery, no built-ins)
  --no-mcp                     Do not start MCP servers (sessions do not start them yet; see pi mcp)
  --skill <path>               Load a skill file or directory (repeatable)
  -ns, --no-skills             Do not discover skills
  --prompt-template <path>     Load a prompt template file or directory (repeatable)
  -np, --no-prompt-templates   Do not discover prompt templates
  -nc, --no-context-files      Do not load AGENTS.md / CLAUDE.md files
  --theme <path>, --no-themes  Theme files (interactive mode)
  --use-theme <name>           Use this theme (interactive mode)
  --system-prompt <text|file>  Replace the default system prompt
  --append-system-prompt <text|file>  Append to the system prompt (repeatable)

Project trust:
  -a, --approve                Trust this project's .pi settings and resources for this run
  -na, --no-approve            Do not trust them for this run

Other:
  --verbose                    Print start-up details
  --offline                    Make no network requests at start-up
  -v, --version                Print the version and exit
  -h, --help                   Show this help and exit
  --                           End of options: every later argument is a message (or an @file)

Extensions may add options of their own (--name [value]); unknown options are errors.
Options also accept --flag=value. Text piped on stdin becomes the start of the first message;
@path arguments inline text files and attach images.

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, CEREBRAS_API_KEY, XAI_API_KEY,
  OPENROUTER_API_KEY, ZAI_API_KEY, MISTRAL_API_KEY, DEEPSEEK_API_KEY   provider keys
  PI_CODING_AGENT_DIR          Config directory (default ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR  Session directory (--session-dir overrides it)
  PI_CACHE_RETENTION=long      Longer prompt caching where the provider offers it
  PI_OFFLINE=1                 Same as --offline
"""


def main(argv: list[str] | None = None) -> int:
    """Run `pi` with `argv` (defaults to the process arguments) and return the exit code."""
    raw = sys.argv[1:] if argv is None else argv
    options = raw[: raw.index("--")] if "--" in raw else raw
    # Answered before the parser is even imported: these two must stay instant.
    if "--version" in options or "-v" in options:
        from pi.version import __version__

        sys.stdout.write(f"{__version__}\n")
        return 0
    if "--help" in options or "-h" in options:
        sys.stdout.write(USAGE)
        from pathlib import Path

        from pi.app.paths import agent_dir
        from pi.app.session_extensions_config import help_may_list_flags

        if os.path.isdir(".") and help_may_list_flags(options, agent_dir(), Path(".").resolve()):
            from pi.app.session_extensions_cli import help_flag_lines

            extra = help_flag_lines(options)
            if extra:
                sys.stdout.write("\n".join(extra) + "\n")
        return 0

    try:
        os.getcwd()
    except FileNotFoundError:
        sys.stderr.write(f"{DELETED_CWD_ERROR}\n")
        return 1
    from pi.app.subcommands import is_subcommand, run_subcommand

    if is_subcommand(raw):
        _mark_environment(offline="--offline" in raw)
        return run_subcommand(raw)
    from pi.app.args import ArgsError, parse_args, unknown_option_hint

    try:
        args = parse_args(raw, allow_unknown=True)
    except ArgsError as exc:
        sys.stderr.write(f"{exc}\n")
        hint = unknown_option_hint(exc.parsed) if exc.parsed is not None else None
        if hint:
            sys.stderr.write(f"{hint}\n")
        return 1
    _mark_environment(offline=args.offline)
    if args.session is not None and not _session_confirmed(args):
        return 0  # the user declined to fork another project's session: nothing to do
    from pi.app.main import run

    return run(args)


def _session_confirmed(args: Args) -> bool:
    """``--session <id>`` of another project: the user's yes or no, asked before the run reads stdin."""
    from pathlib import Path

    from pi.app.cli_session_open import confirm_cross_project_session
    from pi.app.paths import agent_dir

    return confirm_cross_project_session(args, Path(os.getcwd()).resolve(), agent_dir())


def _mark_environment(*, offline: bool) -> None:
    """Variables every command pi starts inherits: that it runs under pi, and whether pi is offline.

    Set here, by the executable, and not by the library: a program embedding pi is not pi.
    """
    os.environ["PI_CODING_AGENT"] = "true"
    os.environ["AI_AGENT"] = "pi"
    if offline:
        os.environ["PI_OFFLINE"] = "1"
        os.environ["PI_SKIP_VERSION_CHECK"] = "1"


def entry() -> None:
    """The `pi` executable (console script and ``python -m pi``): run and exit with the run's code.

    The code goes through `sys.exit`, so the interpreter tears down normally: exit handlers run and
    buffered output is flushed. A reader that leaves early (``pi --help | head -1``) is no error:
    when it happens during the run, pi stops with 141 (128 + SIGPIPE, as a shell reports it).
    """
    code = 141
    _tune_collector_for_a_run()
    try:
        code = main()
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    sys.exit(code)


def _tune_collector_for_a_run() -> None:
    """Collect young objects less often in the `pi` process than Python's default of every 700.

    A run allocates mostly objects that live until exit (modules, schemas, a resumed transcript of
    thousands of entries), and each young-generation pass walks them again; resuming a 20,000-entry
    session spends about a third of its time there otherwise. This is the executable's choice for its
    own process only: `main()` and the library never touch the collector, so programs embedding pi
    keep their own settings.
    """
    import gc

    gc.set_threshold(20_000, 50, 100)


def _silence_stdout() -> None:
    """Point stdout at the null device, so the flush at interpreter shutdown has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
