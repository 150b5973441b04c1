"""Work on a remote machine: `pi --ssh <host>` runs `read`, `write`, `edit` and `bash` there.

With `--ssh user@host` (or `--ssh user@host:/srv/app` for a directory other than the login
directory) the four tools are replaced by the built-in ones wired to remote operations: every
file access and command becomes one `ssh <host> '<shell script>'` call, so the host needs nothing
but a POSIX shell (and bash for the `bash` tool). Paths resolve against the remote directory, the
model is told where it works, and the footer shows the host. Without the flag nothing changes.

The command that reaches the host is configurable: `PI_SSH_COMMAND` (default
`ssh -o BatchMode=yes`, which fails instead of asking for a password) is split like a shell line
and gets `<host> <script>` appended. Point it at a wrapper to add options, go through a jump host,
or, as the tests do, at a fake that runs the script in a local directory.

Limits: `~` in a path means the local home directory (use relative or absolute remote paths);
`!` commands typed by the user still run locally; an aborted command closes the connection, and
whether the remote process survives that is up to the host's sshd.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shlex
import signal as signals
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi.app.extensions import ExtensionAPI

if TYPE_CHECKING:
    from pi.tools import ToolName

DEFAULT_COMMAND = "ssh -o BatchMode=yes"
COMMAND_VARIABLE = "PI_SSH_COMMAND"
REMOTE_TOOLS: tuple[ToolName, ...] = ("read", "bash", "edit", "write")
FORWARDED_VARIABLES = ("PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL")

# Exit codes of the checking scripts, mapped to the local errno the tools understand.
EXIT_ERRNO = {2: errno.ENOENT, 13: errno.EACCES, 21: errno.EISDIR}
CHECK_READ = "if [ -d {p} ]; then exit 21; elif [ ! -e {p} ]; then exit 2; elif [ ! -r {p} ]; then exit 13; fi"
CHECK_EDIT = CHECK_READ[: -len("; fi")] + "; elif [ ! -w {p} ]; then exit 13; fi"
# Write next to the target, keeping an existing file's mode (cp -p), then rename over it.
WRITE = 't={p}.pi-tmp.$$; if [ -e {p} ]; then cp -p -- {p} "$t" || exit 1; fi; cat > "$t" && mv -f -- "$t" {p}'


class RemoteError(OSError):
    """The remote command failed; `errno` says how, so the tools phrase it like a local failure."""


@dataclass(slots=True)
class Completed:
    code: int
    stdout: bytes
    stderr: bytes


@dataclass(slots=True)
class Remote:
    """One host and the command line that reaches it; every operation is one call of `run`."""

    host: str
    directory: str | None = None
    command: list[str] = field(default_factory=lambda: shlex.split(DEFAULT_COMMAND))

    @classmethod
    def from_flag(cls, value: str, environ: Mapping[str, str] = os.environ) -> Remote:
        """`host` or `host:/dir` from `--ssh`, and the command from `PI_SSH_COMMAND`."""
        host, _, directory = value.partition(":")
        command = shlex.split(environ.get(COMMAND_VARIABLE) or DEFAULT_COMMAND)
        return cls(host, directory or None, command)

    def argv(self, script: str, shell: str = "sh") -> list[str]:
        return [*self.command, self.host, f"{shell} -c {shlex.quote(script)}"]

    async def start(self, script: str, *, shell: str = "sh", stdin: bool = False, merge: bool = False) -> Any:
        """Spawn the call; `merge` sends stderr into stdout (a terminal's view of a command)."""
        try:
            return await asyncio.create_subprocess_exec(
                *self.argv(script, shell),
                stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT if merge else asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as error:
            message = f"cannot run {self.command[0]!r} (set {COMMAND_VARIABLE}): {error.strerror}"
            raise RemoteError(errno.EIO, message) from error

    async def run(self, script: str, data: bytes | None = None) -> Completed:
        process = await self.start(script, stdin=data is not None)
        out, err = await process.communicate(data)
        return Completed(process.returncode or 0, out, err)

    def failure(self, done: Completed, path: str | None = None) -> RemoteError:
        """The error a failed call stands for: a known exit code, else what the host printed."""
        code = EXIT_ERRNO.get(done.code)
        if code is not None:
            return RemoteError(code, os.strerror(code), path)
        said = done.stderr.decode(errors="replace").strip() or f"exit code {done.code}"
        return RemoteError(errno.EIO, f"ssh {self.host}: {said}", path)

    async def checked(self, script: str, path: str, data: bytes | None = None) -> bytes:
        done = await self.run(script, data)
        if done.code != 0:
            raise self.failure(done, path)
        return done.stdout

    async def resolve_directory(self) -> str:
        """The remote working directory: the one given, else the login directory (asked once)."""
        if self.directory is None:
            done = await self.run("pwd")
            if done.code != 0:
                raise self.failure(done)
            self.directory = done.stdout.decode().strip() or "/"
        return self.directory


def quoted(path: str) -> str:
    return shlex.quote(path)


# -- operations for the built-in tools ------------------------------------------------------------


@dataclass(slots=True)
class RemoteFiles:
    """`ReadOperations`, `WriteOperations` and `EditOperations` over one `Remote`."""

    remote: Remote

    def exists(self, path: str) -> bool:
        # Only used to try macOS spellings of a missing name; a remote round trip is not worth it.
        return True

    async def access(self, path: str) -> None:
        await self.remote.checked(CHECK_READ.format(p=quoted(path)), path)

    async def read_head(self, path: str, size: int) -> bytes:
        return await self.remote.checked(f"head -c {int(size)} -- {quoted(path)}", path)

    async def read_file(self, path: str) -> bytes:
        return await self.remote.checked(f"cat -- {quoted(path)}", path)

    async def read_chunks(self, path: str, chunk_size: int) -> AsyncIterator[bytes]:
        process = await self.remote.start(f"cat -- {quoted(path)}")
        assert process.stdout is not None and process.stderr is not None
        try:
            while chunk := await process.stdout.read(chunk_size):
                yield chunk
            code = await process.wait()
            if code != 0:  # a failure half-way must not pass for the end of the file
                raise self.remote.failure(Completed(code, b"", await process.stderr.read()), path)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()

    async def mkdir(self, path: str) -> None:
        await self.remote.checked(f"mkdir -p -- {quoted(path)}", path)

    async def write_file(self, path: str, data: bytes) -> None:
        await self.remote.checked(WRITE.format(p=quoted(path)), path, data)


@dataclass(slots=True)
class EditFiles(RemoteFiles):
    """Like `RemoteFiles`, but `access` also insists on write permission."""

    async def access(self, path: str) -> None:
        await self.remote.checked(CHECK_EDIT.format(p=quoted(path)), path)


def _kill(process: Any) -> None:
    """Stop the local ssh client and anything it started (it leads its own process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signals.SIGKILL)


@dataclass(slots=True)
class RemoteShell:
    """`BashOperations`: the command runs in bash on the host, in the tool's directory."""

    remote: Remote

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[bytes], None],
        signal: Any,
        timeout: float | None,
        env: Mapping[str, str] | None,
    ) -> Any:
        from pi.tools.shell import CommandAborted, CommandTimedOut, ExecResult

        # Only pi's own variables travel; the local environment means nothing on the host.
        exports = "".join(f"export {k}={quoted(v)}\n" for k, v in (env or {}).items() if k in FORWARDED_VARIABLES)
        process = await self.remote.start(
            f"cd -- {quoted(cwd)} || exit 1\n{exports}{command}", shell="bash", merge=True
        )
        assert process.stdout is not None

        async def pump() -> int:
            assert process.stdout is not None
            while chunk := await process.stdout.read(65536):
                on_data(chunk)
            code: int = await process.wait()
            return code

        work = asyncio.ensure_future(pump())
        stop = asyncio.ensure_future(signal.wait()) if signal is not None else None
        try:
            finished, _ = await asyncio.wait(
                {work, *([stop] if stop else [])}, timeout=timeout, return_when="FIRST_COMPLETED"
            )
        finally:
            if stop is not None:
                stop.cancel()
        if work in finished:
            return ExecResult(exit_code=work.result())
        _kill(process)
        await asyncio.gather(work, return_exceptions=True)
        if stop is not None and stop in finished:
            raise CommandAborted()
        raise CommandTimedOut(timeout or 0.0)


# -- the tools ------------------------------------------------------------------------------------


def build_tool(name: ToolName, remote: Remote, directory: str) -> Any:
    """The built-in tool `name`, working in `directory` on the host."""
    from pi.tools import BashToolOptions, EditToolOptions, ReadToolOptions, WriteToolOptions, create_tool
    from pi.tools import ToolsOptions as Options

    files = RemoteFiles(remote)
    options = Options(
        read=ReadToolOptions(operations=files),
        write=WriteToolOptions(operations=files),
        edit=EditToolOptions(operations=EditFiles(remote)),
        bash=BashToolOptions(operations=RemoteShell(remote)),
    )
    return create_tool(name, directory, options)


def remote_definition(name: ToolName, remote: Remote) -> dict[str, Any]:
    """An extension tool with the built-in's schema whose calls go to a lazily built remote tool."""
    from pi.tools import create_tool

    template = create_tool(name, ".")
    built: dict[str, Any] = {}

    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        if "tool" not in built:
            built["tool"] = build_tool(name, remote, await remote.resolve_directory())
        return await built["tool"].execute(tool_call_id, params, signal, on_update)

    return {
        "name": name,
        "label": f"{name} ({remote.host})",
        "description": template.description,
        "parameters": template.parameters,
        "prepare_arguments": template.prepare_arguments,
        "prompt_snippet": template.prompt_snippet,
        "prompt_guidelines": list(template.prompt_guidelines),
        "execution_mode": template.execution_mode or "parallel",
        "execute": execute,
    }


def setup(pi: ExtensionAPI) -> None:
    pi.register_flag("ssh", type="string", description="Run read/write/edit/bash on this host (user@host[:dir])")
    state: dict[str, Remote | None] = {"remote": None}

    @pi.on("session_start")
    def connect(event: Any, ctx: Any) -> None:
        value = pi.get_flag("ssh")
        if not isinstance(value, str) or not value.strip():
            return
        remote = state["remote"] = Remote.from_flag(value.strip())
        for name in REMOTE_TOOLS:
            pi.register_tool(remote_definition(name, remote))
        ctx.ui.set_status("ssh", f"ssh {remote.host}")

    @pi.on("before_agent_start")
    def explain(event: Any, ctx: Any) -> dict[str, Any] | None:
        remote = state["remote"]
        if remote is None:
            return None
        where = f"the directory {remote.directory}" if remote.directory else "the login directory"
        note = (
            f"\n\nThe read, write, edit and bash tools work on the remote host {remote.host}, in {where}; "
            "relative paths resolve there, not in the local working directory named above."
        )
        return {"systemPrompt": event.system_prompt + note}
