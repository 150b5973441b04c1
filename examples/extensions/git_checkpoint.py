"""Git checkpoints: a snapshot of the working tree before the model changes files, and a way back.

Before the first `write`, `edit` or `bash` call of each turn, the whole working tree (tracked files
and untracked ones that `.gitignore` does not exclude) is recorded as a commit object kept under
`refs/pi-checkpoints/<sha>`. The snapshot is built in a private index file, so the user's index,
branch, HEAD and stash are never touched; nothing shows up in `git log` or `git status`. A turn
that changes nothing since the last checkpoint reuses it.

`/checkpoints` lists the checkpoints of the repository, newest first. `/checkpoints restore <sha>`
puts the working tree back as it was (files created since are removed, changed and deleted ones
come back); without a sha, UIs that have dialogs offer a choice. A restore first records the
current state as a checkpoint of its own, so it can be undone the same way. Only the newest
`MAX_CHECKPOINTS` are kept.

Outside a git repository the extension does nothing. Snapshot commits use a fixed identity
(`pi checkpoint <pi-checkpoint@localhost>`), so they work without any git configuration.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from pi.app.extensions import ExtensionAPI

REF_PREFIX = "refs/pi-checkpoints/"
MAX_CHECKPOINTS = 100
MUTATING_TOOLS = frozenset({"write", "edit", "bash"})
IDENTITY = {
    "GIT_AUTHOR_NAME": "pi checkpoint",
    "GIT_AUTHOR_EMAIL": "pi-checkpoint@localhost",
    "GIT_COMMITTER_NAME": "pi checkpoint",
    "GIT_COMMITTER_EMAIL": "pi-checkpoint@localhost",
}
USAGE = "Usage: /checkpoints (list them) or /checkpoints restore <sha>"

logger = logging.getLogger(__name__)


class GitError(Exception):
    """A git command failed; the message carries git's own explanation."""


async def git(root: str, *args: str, index: Path | None = None) -> str:
    """Run `git args...` in `root` and return its stdout; `index` replaces the user's index file."""
    env = {**os.environ, **IDENTITY}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    process = await asyncio.create_subprocess_exec(
        "git",
        *args,
        cwd=root,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise GitError(f"git {args[0]} failed: {err.decode(errors='replace').strip() or process.returncode}")
    return out.decode(errors="replace")


async def repository_root(cwd: str) -> str | None:
    """The top of the work tree containing `cwd`, or None outside a repository (or without git)."""
    try:
        return (await git(cwd, "rev-parse", "--show-toplevel")).strip() or None
    except (GitError, OSError):
        return None


async def head_commit(root: str) -> str | None:
    """HEAD's commit, or None in a repository without commits yet."""
    try:
        return (await git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")).strip() or None
    except GitError:
        return None


async def snapshot_tree(root: str) -> str:
    """The tree of the working tree as `git add -A` sees it, written through a private index copy."""
    with tempfile.TemporaryDirectory(prefix="pi-checkpoint-") as scratch:
        index = Path(scratch) / "index"
        user_index = Path(root, (await git(root, "rev-parse", "--git-path", "index")).strip())
        if user_index.is_file():
            shutil.copyfile(user_index, index)  # only to reuse git's file stat cache
        await git(root, "add", "-A", "--", ".", index=index)
        return (await git(root, "write-tree", index=index)).strip()


async def create_checkpoint(root: str, subject: str, body: str = "", tree: str | None = None) -> tuple[str, str]:
    """Record the working tree (or the given snapshot `tree`) as a checkpoint commit; returns (commit, tree)."""
    tree = tree or await snapshot_tree(root)
    parent = await head_commit(root)
    message = f"{subject}\n\n{body}".strip()
    args = ["commit-tree", tree, "-m", message, *(["-p", parent] if parent else [])]
    commit = (await git(root, *args)).strip()
    await git(root, "update-ref", "-m", "pi checkpoint", REF_PREFIX + commit, commit)
    return commit, tree


async def list_checkpoints(root: str) -> list[dict[str, Any]]:
    """Checkpoints newest first: `{commit, time, subject}`."""
    listing = await git(
        root,
        "for-each-ref",
        "--sort=-committerdate",
        "--format=%(objectname)%09%(committerdate:unix)%09%(subject)",
        REF_PREFIX,
    )
    rows = []
    for line in listing.splitlines():
        commit, stamp, subject = [*line.split("\t", 2), "", ""][:3]
        rows.append({"commit": commit, "time": int(stamp or 0), "subject": subject})
    return rows


async def prune(root: str, keep: int = MAX_CHECKPOINTS) -> None:
    """Drop the refs of all but the newest `keep` checkpoints (git collects the objects later)."""
    for row in (await list_checkpoints(root))[keep:]:
        await git(root, "update-ref", "-d", REF_PREFIX + row["commit"])


async def resolve_checkpoint(root: str, text: str) -> str:
    """The full commit of the checkpoint `text` names (a sha or a unique prefix of one)."""
    matches: list[str] = [
        row["commit"] for row in await list_checkpoints(root) if row["commit"].startswith(text.lower())
    ]
    if len(matches) != 1:
        problem = "No checkpoint" if not matches else "More than one checkpoint"
        raise GitError(f'{problem} matches "{text}"; run /checkpoints to see them')
    return matches[0]


def _remove_created(root: str, relative: str) -> None:
    """Delete a file that did not exist at the checkpoint, and the directories it leaves empty."""
    path = Path(root, relative)
    path.unlink(missing_ok=True)
    parent = path.parent
    while parent != Path(root) and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


async def restore_checkpoint(root: str, commit: str) -> str:
    """Make the working tree match checkpoint `commit`; returns the checkpoint of the state replaced."""
    backup, _ = await create_checkpoint(root, f"before restoring {commit[:7]}")
    created = await git(root, "diff-tree", "-r", "-z", "--name-only", "--diff-filter=A", commit, backup)
    for relative in filter(None, created.split("\0")):
        _remove_created(root, relative)
    with tempfile.TemporaryDirectory(prefix="pi-checkpoint-") as scratch:
        index = Path(scratch) / "index"
        await git(root, "read-tree", commit, index=index)
        await git(root, "checkout-index", "-a", "-f", index=index)
    return backup


def describe(tool_name: str, arguments: dict[str, Any]) -> str:
    """A short reason for the checkpoint: the tool and what it was about to touch."""
    target = arguments.get("path") or arguments.get("command") or ""
    target = str(target).splitlines()[0] if target else ""
    return f"{tool_name} {target[:60]}".strip()


def format_rows(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No checkpoints yet: one is recorded before the model first changes files in a turn."
    lines = [f"{len(rows)} checkpoint(s), newest first (restore with /checkpoints restore <sha>):"]
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["time"]))
        lines.append(f"  {row['commit'][:10]}  {when}  {row['subject']}")
    return "\n".join(lines)


def setup(pi: ExtensionAPI) -> None:
    # `turns` counts turn_start events over the whole session (turn_index restarts with each prompt).
    state: dict[str, Any] = {"root": None, "turns": 0, "turn_index": 0, "done": None, "last_tree": None}
    lock = asyncio.Lock()

    @pi.on("session_start")
    async def find_repository(event: Any, ctx: Any) -> None:
        state["root"] = await repository_root(ctx.cwd)

    @pi.on("turn_start")
    def new_turn(event: Any, ctx: Any) -> None:
        state["turns"] += 1
        state["turn_index"] = event.turn_index

    @pi.on("tool_call")
    async def before_change(event: Any, ctx: Any) -> None:
        root = state["root"]
        if root is None or event.tool_name not in MUTATING_TOOLS:
            return
        async with lock:  # parallel calls of one turn share a single checkpoint
            if state["done"] == state["turns"]:
                return
            state["done"] = state["turns"]
            try:
                await checkpoint(root, event, ctx)
            except (GitError, OSError) as error:  # never keep the model from working
                logger.warning("git checkpoint skipped: %s", error)
                ctx.ui.notify(f"Git checkpoint skipped: {error}", "warning")

    async def checkpoint(root: str, event: Any, ctx: Any) -> None:
        tree = await snapshot_tree(root)
        if tree == state["last_tree"]:
            return
        subject = f"before {describe(event.tool_name, dict(event.input))}"
        body = f"pi session {ctx.session_manager.get_session_id()}, turn {state['turn_index']}"
        commit, _ = await create_checkpoint(root, subject, body, tree)
        state["last_tree"] = tree
        pi.append_entry("git-checkpoint", {"commit": commit, "turnIndex": state["turn_index"]})
        await prune(root)

    async def restore(root: str, target: str, ctx: Any) -> None:
        if not target:
            rows = await list_checkpoints(root)
            if not ctx.has_ui or not rows:
                ctx.ui.notify(USAGE if rows else format_rows(rows), "warning")
                return
            labels = [f"{r['commit'][:10]}  {r['subject']}" for r in rows]
            choice = await ctx.ui.select("Restore which checkpoint?", labels)
            if choice is None:
                return
            target = choice.split()[0]
        await ctx.wait_for_idle()
        commit = await resolve_checkpoint(root, target)
        async with lock:
            backup = await restore_checkpoint(root, commit)
            state["last_tree"] = None
        ctx.ui.notify(f"Restored checkpoint {commit[:10]}; the replaced state is checkpoint {backup[:10]}")

    async def checkpoints(args: str, ctx: Any) -> None:
        root = state["root"] or await repository_root(ctx.cwd)
        if root is None:
            ctx.ui.notify("Not a git repository: checkpoints need one", "warning")
            return
        words = args.split()
        try:
            if not words:
                ctx.ui.notify(format_rows(await list_checkpoints(root)))
            elif words[0] == "restore" and len(words) <= 2:
                await restore(root, words[1] if len(words) == 2 else "", ctx)
            else:
                ctx.ui.notify(USAGE, "warning")
        except (GitError, OSError) as error:
            ctx.ui.notify(str(error), "error")

    def complete(prefix: str) -> list[dict[str, str]] | None:
        if "restore".startswith(prefix.strip()):
            return [{"value": "restore ", "label": "restore", "description": "Put the working tree back"}]
        return None

    pi.register_command(
        "checkpoints",
        checkpoints,
        description="List git checkpoints, or restore one: /checkpoints restore <sha>",
        get_argument_completions=complete,
    )
