"""Command-line entry point of `pi`.

Start-up time is a feature: this module imports only the standard library and the argument parser,
and `--version` / `--help` are answered before anything heavier is loaded. Everything else happens
in `pi.app.main`, imported only when there is work to do.
"""

from __future__ import annotations

import sys

USAGE = """\
pi - a coding agent with read, bash, edit and write tools

Usage:
  pi [options] [@files...] [messages...]

Modes:
  -p, --print                  Answer the prompt(s), print the final reply and exit
  --mode text|json|rpc         text (default), json (every event as a JSON line), rpc (commands on stdin)

Model:
  --provider <name>            Provider of --model (anthropic, openai, google, openrouter, ... or models.json)
  --model <pattern>            Model id, provider/id or a fuzzy pattern; ":<level>" sets thinking (sonnet:high)
  --api-key <key>              Key for this run only (never saved)
  --thinking <level>           off, minimal, low, medium, high, xhigh
  --models <patterns>          Comma-separated models to cycle through
  --list-models [search]       List the models that have an API key, and exit

Sessions:
  -c, --continue               Continue the most recent session in this directory
  -r, --resume                 Pick a session to resume (interactive UI; not in this version)
  --session <path|id>          Open a session file, or the session whose id starts with <id>
  --session-dir <dir>          Keep sessions in <dir>
  --no-session                 Keep nothing on disk
  --fork <path|id>             Continue a copy of a session in a new file
  --export <in.jsonl> [out]    Write a session as a self-contained HTML file and exit

Tools and resources:
  --tools <list>               Enable exactly these tools (read,bash,edit,write,grep,find,ls)
  --exclude-tools <list>       Disable these tools
  --no-tools                   Start with no built-in tools (--tools adds some back)
  --no-builtin-tools           Same as --no-tools for built-ins; extension tools stay
  -e, --extension <path>       Load an extension (repeatable; not supported in this version yet)
  -ne, --no-extensions         Do not discover extensions
  --skill <path>               Load a skill file or directory (repeatable)
  -ns, --no-skills             Do not discover skills
  --prompt-template <path>     Load a prompt template file or directory (repeatable)
  -np, --no-prompt-templates   Do not discover prompt templates
  --theme <path>, --no-themes  Theme files (interactive mode)
  --system-prompt <text|file>  Replace the default system prompt
  --append-system-prompt <text|file>  Append to the system prompt

Other:
  --verbose                    Print start-up details
  --offline                    Make no network requests at start-up
  -v, --version                Print the version and exit
  -h, --help                   Show this help and exit

Options also accept --flag=value. Text piped on stdin becomes the first message (print mode);
@path arguments inline text files and attach images.

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, CEREBRAS_API_KEY, XAI_API_KEY,
  OPENROUTER_API_KEY, ZAI_API_KEY, MISTRAL_API_KEY, DEEPSEEK_API_KEY   provider keys
  PI_CODING_AGENT_DIR          Config directory (default ~/.pi/agent)
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
        return 0

    # A run allocates mostly long-lived objects (modules, schemas, the transcript): collecting young
    # objects less often, from before the first heavy import on, saves a few ms and changes nothing
    # a user can see.
    import gc

    gc.set_threshold(20000, 50, 100)
    from pi.app.args import ArgsError, parse_args

    try:
        args = parse_args(raw)
    except ArgsError as exc:
        sys.stderr.write(f"pi: {exc}\n")
        return 1
    from pi.app.main import run

    return run(args)


def entry() -> None:
    """The `pi` executable (console script and ``python -m pi``): run, then end the process at once."""
    skip_pydantic_plugins()
    _exit_now(main())


def skip_pydantic_plugins() -> None:
    """Tell pydantic, for this process only, that no pydantic plugins are installed.

    Before it builds its first validator pydantic looks for plugins among the entry points of every
    installed distribution. Importing `importlib.metadata` for that (it brings email, zipfile and csv
    along) and reading the metadata cost about 8 ms of every start, and a plugin could only hook
    into the validation of pi's own messages, which the `pi` executable has no use for. Giving the
    loader module pydantic imports a stand-in that reports no plugins skips the search; programs
    that use pi as a library never run this, so their plugins keep working.
    """
    import types

    name = "pydantic.plugin._loader"
    if name in sys.modules:
        return
    stand_in = types.ModuleType(name, "pi: pydantic plugins are not loaded in the pi executable.")
    stand_in.get_plugins = lambda *args, **kwargs: ()  # type: ignore[attr-defined]
    sys.modules[name] = stand_in


def _exit_now(code: int) -> None:
    """End the process without tearing the interpreter down.

    Unloading a few hundred modules and collecting every object costs about 40 ms, a tenth of a
    typical `pi -p` run, and buys nothing: the session file is written with unbuffered appends,
    settings and auth.json are written atomically and closed, and no exit handler of ours needs to
    run. Only the standard streams hold buffered data, so they are flushed first.
    """
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`pi -p ... | head -1`) is fine
            stream.flush()
    os._exit(code)
