"""Project trust: whether a project's own configuration may change what pi does.

A checkout can carry `.pi/settings.json`, extensions, skills, prompt templates or a SYSTEM.md that
steer the model or run code. None of it is loaded until the user trusts the folder. The decision
comes, in order, from `--approve` / `--no-approve` (this run only), from the user's saved decision
for the folder or its nearest ancestor (`<agent dir>/trust.json`), then from the
`defaultProjectTrust` setting: `always`, `never`, or `ask` (a question in the interactive UI; with
no UI to ask, the project is not trusted). A folder with nothing that needs trust is trusted
unless the user saved "do not trust" for it. Context files (AGENTS.md, CLAUDE.md) are never gated.

trust.json is a JSON object mapping canonical absolute directories to true or false, written with
sorted keys and two-space indentation under an exclusive lock (`trust.json.lock`), so two pi
processes deciding at once do not lose each other's answers.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Literal

from msgspec import Struct

from pi.app.atomic_file import write_atomic

TRUST_FILE_NAME = "trust.json"
DefaultProjectTrust = Literal["always", "never", "ask"]

# Entries of a project's .pi directory that make it ask for trust (a bare .pi directory does not).
PROJECT_TRUST_ENTRIES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)


class TrustStoreError(Exception):
    """trust.json cannot be read or has the wrong shape; the message names the file."""


class TrustChoice(enum.Enum):
    """The answers the interactive question offers."""

    TRUST = "trust"
    TRUST_PARENT = "trust_parent"
    TRUST_SESSION = "trust_session"
    DISTRUST = "distrust"
    DISTRUST_SESSION = "distrust_session"


class TrustDecision(Struct, frozen=True):
    """Whether the project is trusted for this run, as `resolve_project_trust` decided it."""

    trusted: bool
    source: Literal["flag", "no_resources", "handler", "saved", "default", "prompt"]
    """What decided: a command-line flag, nothing to gate, an extension handler, a saved decision,
    the defaultProjectTrust setting, or the user's answer to the question."""
    resources: tuple[Path, ...] = ()
    """The project entries that needed a decision."""


AskTrust = Callable[[Path, Sequence[Path]], TrustChoice | None]
"""Asks the user about `cwd` (given the entries needing trust); None means the question was dismissed."""
TrustHandler = Callable[[Path], bool | None]
"""An extension's opinion on a folder: True, False, or None to leave it to the next one."""


def canonical_dir(path: Path) -> str:
    """The key a directory is stored under: absolute, symlinks resolved."""
    return str(Path(os.path.realpath(path)))


def trust_requiring_resources(cwd: Path, home: Path | None = None) -> list[Path]:
    """The entries under `cwd` (and `.agents/skills` in it or an ancestor) that need a trust decision."""
    home = Path(os.path.realpath(home or Path.home()))
    cwd = Path(os.path.realpath(cwd))
    found: list[Path] = []
    if cwd != home:  # ~/.pi is the user's own configuration, not a project's
        found.extend(cwd / ".pi" / name for name in PROJECT_TRUST_ENTRIES if (cwd / ".pi" / name).exists())
    for directory in [cwd, *cwd.parents]:
        skills = directory / ".agents" / "skills"
        if directory != home and skills.is_dir():
            found.append(skills)
    return found


def trust_store_path(agent_dir: Path) -> Path:
    return agent_dir / TRUST_FILE_NAME


def read_trust_store(agent_dir: Path) -> dict[str, bool]:
    """The saved decisions; an absent file means none. Raises TrustStoreError for a broken file."""
    path = trust_store_path(agent_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TrustStoreError(f"Failed to read trust store {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TrustStoreError(f"Failed to read trust store {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise TrustStoreError(f"Invalid trust store {path}: expected an object")
    store: dict[str, bool] = {}
    for key, value in data.items():
        if value is None:
            continue
        if not isinstance(value, bool):
            raise TrustStoreError(f'Invalid trust store {path}: value for "{key}" must be true, false, or null')
        store[key] = value
    return store


@contextlib.contextmanager
def _locked(agent_dir: Path) -> Iterator[None]:
    import fcntl

    agent_dir.mkdir(parents=True, exist_ok=True)
    lock_path = agent_dir / f"{TRUST_FILE_NAME}.lock"
    with open(lock_path, "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def update_trust_store(agent_dir: Path, changes: Mapping[str, bool | None]) -> dict[str, bool]:
    """Apply `changes` (None removes a key) under the lock and return the new store."""
    with _locked(agent_dir):
        store = read_trust_store(agent_dir)
        for key, value in changes.items():
            if value is None:
                store.pop(key, None)
            else:
                store[key] = value
        text = json.dumps(dict(sorted(store.items())), indent=2) + "\n"
        write_atomic(trust_store_path(agent_dir), text)
    return store


def save_trust_decision(agent_dir: Path, cwd: Path, choice: TrustChoice) -> None:
    """Remember a persistent answer; the "this session only" answers save nothing."""
    key = canonical_dir(cwd)
    if choice is TrustChoice.TRUST:
        update_trust_store(agent_dir, {key: True})
    elif choice is TrustChoice.DISTRUST:
        update_trust_store(agent_dir, {key: False})
    elif choice is TrustChoice.TRUST_PARENT:
        update_trust_store(agent_dir, {canonical_dir(Path(key).parent): True, key: None})


def saved_decision(store: Mapping[str, bool], cwd: Path, *, nearest: bool = True) -> bool | None:
    """The decision saved for `cwd`, or (with `nearest`) for its closest ancestor that has one."""
    directory = Path(canonical_dir(cwd))
    for candidate in [directory, *directory.parents] if nearest else [directory]:
        if str(candidate) in store:
            return store[str(candidate)]
    return None


def _decide(
    cwd: Path,
    store: Mapping[str, bool],
    default_trust: str,
    ask: AskTrust | None,
    handlers: Sequence[TrustHandler],
    resources: tuple[Path, ...],
) -> tuple[bool, TrustDecision | None, TrustChoice | None]:
    """(trusted, a decision when not asked, the user's answer when asked)."""
    for handler in handlers:
        answer = handler(cwd)
        if answer is not None:
            return answer, TrustDecision(answer, "handler", resources), None
    saved = saved_decision(store, cwd)
    if saved is not None:
        return saved, TrustDecision(saved, "saved", resources), None
    if default_trust == "always":
        return True, TrustDecision(True, "default", resources), None
    if default_trust == "never" or ask is None:
        return False, TrustDecision(False, "default", resources), None
    choice = ask(cwd, resources)
    trusted = choice in (TrustChoice.TRUST, TrustChoice.TRUST_PARENT, TrustChoice.TRUST_SESSION)
    return trusted, None, choice


def resolve_project_trust(
    cwd: Path,
    agent_dir: Path,
    approve: bool | None = None,
    default_trust: str = "ask",
    ask: AskTrust | None = None,
    handlers: Sequence[TrustHandler] = (),
    home: Path | None = None,
) -> TrustDecision:
    """Decide whether the project in `cwd` is trusted for this run (see the module docstring).

    `approve` is `--approve` (True) / `--no-approve` (False). `ask` is the interactive question;
    pass None when there is no UI. A persistent answer to the question is saved. Raises
    TrustStoreError when trust.json is broken (the caller reports it and treats the project as
    untrusted, or stops).
    """
    resources = tuple(trust_requiring_resources(cwd, home))
    if approve is not None:
        return TrustDecision(approve, "flag", resources)
    home_dir = Path(os.path.realpath(home or Path.home()))
    in_home = Path(os.path.realpath(cwd)) == home_dir
    store = {} if in_home else read_trust_store(agent_dir)
    if not resources:
        saved = saved_decision(store, cwd, nearest=False)
        return TrustDecision(saved is not False, "saved" if saved is False else "no_resources", resources)
    trusted, decision, choice = _decide(cwd, store, default_trust, ask, handlers, resources)
    if decision is not None:
        return decision
    if choice is not None:
        save_trust_decision(agent_dir, cwd, choice)
    return TrustDecision(trusted, "prompt", resources)


def trust_prompt_title(cwd: Path) -> str:
    """The interactive question's title."""
    return (
        f"Trust project folder?\n{cwd}\n\nThis allows pi to load .pi settings and resources, "
        "install missing project packages, and execute project extensions."
    )


def trust_prompt_options(cwd: Path) -> list[tuple[TrustChoice, str]]:
    """The interactive question's answers, in the order they are offered."""
    return [
        (TrustChoice.TRUST, "Trust"),
        (TrustChoice.TRUST_PARENT, f"Trust parent folder ({Path(canonical_dir(cwd)).parent})"),
        (TrustChoice.TRUST_SESSION, "Trust (this session only)"),
        (TrustChoice.DISTRUST, "Do not trust"),
        (TrustChoice.DISTRUST_SESSION, "Do not trust (this session only)"),
    ]


__all__ = [
    "PROJECT_TRUST_ENTRIES",
    "TRUST_FILE_NAME",
    "AskTrust",
    "DefaultProjectTrust",
    "TrustChoice",
    "TrustDecision",
    "TrustHandler",
    "TrustStoreError",
    "canonical_dir",
    "read_trust_store",
    "resolve_project_trust",
    "save_trust_decision",
    "saved_decision",
    "trust_prompt_options",
    "trust_prompt_title",
    "trust_requiring_resources",
    "trust_store_path",
    "update_trust_store",
]
