"""Installing, updating and removing packages in their managed directories (pip targets and git clones).

User packages live under the agent dir, project packages under `<cwd>/.pi`: `pypi/<normalized-name>/`
(a `pip install --target`) and `git/<host>/<path>` (a clone, with its Python dependencies in
`.pi-site`). Local packages are referenced in place. pip runs with a constraints file pinning the
host's own distributions, so a package can never replace pi or its libraries in the running process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from msgspec import Struct

from pi.app.packages.filters import Scope
from pi.app.packages.sources import PackageSource, normalize_name

logger = logging.getLogger(__name__)

HOST_DISTRIBUTION = "pi-coding-agent"
UNTRUSTED_STORAGE = "Project is not trusted; refusing to access project package storage"


def credential_hint(source: str) -> str:
    """What to do when git wanted to ask for credentials it may not ask for."""
    return (
        "git cannot ask for a password or passphrase while pi runs. Set up a git credential helper or an ssh agent, "
        f"or install the package once from the shell with `pi install {source}`."
    )


_CREDENTIAL_SIGNS = (
    "terminal prompts disabled",
    "could not read username",
    "could not read password",
    "permission denied (publickey",
    "host key verification failed",
    "authentication failed",
)
SITE_DIR = ".pi-site"


class PackageInstallError(Exception):
    """An install, update or removal that failed; the message is for the user."""


def outside_root_message(path: Path) -> str:
    return f"Refusing to use path outside package install root: {path}"


def host_constraints() -> list[str]:
    """`name==version` for the host distribution and every runtime dependency it pulls in, as installed."""
    try:
        from packaging.requirements import Requirement
    except ImportError:
        return _constraints_without_packaging()
    pins: dict[str, str] = {}
    pending = [HOST_DISTRIBUTION]
    while pending:
        name = normalize_name(pending.pop())
        if name in pins:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        pins[name] = dist.version
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def _constraints_without_packaging() -> list[str]:
    try:
        return [f"{HOST_DISTRIBUTION}=={metadata.version(HOST_DISTRIBUTION)}"]
    except metadata.PackageNotFoundError:
        return []


class CommandResult(Struct, frozen=True):
    code: int
    stdout: str
    stderr: str


async def run_command(args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> CommandResult:
    """Run a program without a terminal (stdin closed) and capture its output."""
    process = await asyncio.create_subprocess_exec(
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    return CommandResult(process.returncode or 0, stdout.decode(errors="replace"), stderr.decode(errors="replace"))


def git_environment() -> dict[str, str]:
    """The environment git runs in: never prompting, ssh in batch mode unless the user chose a command."""
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def git_failure(source: str, result: CommandResult) -> PackageInstallError:
    detail = (result.stderr.strip() or result.stdout.strip() or f"git exited with code {result.code}").splitlines()
    message = f"git failed for {source}: {detail[-1] if detail else ''}"
    if any(sign in result.stderr.lower() for sign in _CREDENTIAL_SIGNS):
        message += "\n" + credential_hint(source)
    return PackageInstallError(message)


class PackageStore(Struct, frozen=True):
    """Where one process keeps packages: the agent dir for user scope, `<cwd>/.pi` for project scope."""

    agent_dir: Path
    cwd: Path
    project_trusted: bool
    offline: bool = False

    def settings_dir(self, scope: Scope) -> Path:
        return self.agent_dir if scope == "user" else self.cwd / ".pi"

    def install_root(self, scope: Scope, kind: str) -> Path:
        """`<settings dir>/<kind>`; project storage needs trust."""
        if scope == "project" and not self.project_trusted:
            raise PackageInstallError(UNTRUSTED_STORAGE)
        return self.settings_dir(scope) / kind

    def install_path(self, source: PackageSource, scope: Scope) -> Path:
        """The directory a package lives in (checked to stay inside its install root)."""
        if source.kind == "local":
            return Path(source.location)
        root = self.install_root(scope, source.kind)
        path = root / source.name if source.kind == "pypi" else root / source.host / source.repo_path
        resolved_root = root.resolve()
        if not path.resolve().is_relative_to(resolved_root) or path.resolve() == resolved_root:
            raise PackageInstallError(outside_root_message(path))
        return path

    def site_dirs(self, source: PackageSource, scope: Scope) -> list[Path]:
        """Directories to put on `sys.path` (after the host's) when the package's first extension loads."""
        path = self.install_path(source, scope)
        if source.kind == "pypi":
            return [path]
        site = path / SITE_DIR
        return [site] if site.is_dir() else []


def ensure_install_root(root: Path) -> None:
    """Create an install root with a `.gitignore` that keeps its contents out of the user's repository."""
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n!.gitignore\n", encoding="utf-8")


def installed_version(store: PackageStore, source: PackageSource, scope: Scope) -> str | None:
    """The installed distribution version (pypi), commit hash (git) or `[project].version` (local)."""
    path = store.install_path(source, scope)
    if source.kind == "pypi":
        for dist in metadata.distributions(path=[str(path)]):
            if normalize_name(dist.metadata["Name"] or "") == source.name:
                return dist.version
        return None
    if source.kind == "git":
        head = path / ".git"
        return _read_head(head) if head.exists() else None
    from pi.app.packages.contents import project_version

    return project_version(path)


def _read_head(git_dir: Path) -> str | None:
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref: "):
        return head
    ref = head.removeprefix("ref: ")
    try:
        return (git_dir / ref).read_text(encoding="utf-8").strip()
    except OSError:
        for line in _packed_refs(git_dir):
            sha, _, name = line.partition(" ")
            if name == ref:
                return sha
    return None


def _packed_refs(git_dir: Path) -> list[str]:
    try:
        return (git_dir / "packed-refs").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def host_dependency_warning(store: PackageStore, source: PackageSource, scope: Scope) -> str | None:
    """The warning for an installed pypi package that declares the host distribution as a dependency.

    The host's copy always wins on `sys.path`, so such a declaration only wastes a download.
    """
    if source.kind != "pypi":
        return None
    declared: set[str] = set()
    for dist in metadata.distributions(path=[str(store.install_path(source, scope))]):
        if normalize_name(dist.metadata["Name"] or "") == source.name:
            for text in dist.requires or ():
                declared.add(normalize_name(re.split(r"[\s;\[<>=!~(@]", text.strip(), maxsplit=1)[0]))
    hosted = sorted(declared & {HOST_DISTRIBUTION})
    if not hosted:
        return None
    return f"Host-provided extension packages must not be declared as dependencies: {', '.join(hosted)}"


def is_installed(store: PackageStore, source: PackageSource, scope: Scope) -> bool:
    path = store.install_path(source, scope)
    if source.kind == "local":
        return path.is_dir()
    return installed_version(store, source, scope) is not None


async def pip_install(target: Path, requirement_args: list[str]) -> None:
    """`pip install --target` with the host constraints; raises PackageInstallError with pip's last words.

    pip installs into a fresh sibling directory that then replaces `target`: installing over an
    older copy would leave the old version's metadata beside the new one, and a failed install
    leaves the old copy untouched.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        with tempfile.TemporaryDirectory(prefix="pi-constraints-") as scratch:
            constraints = Path(scratch) / "host-constraints.txt"
            constraints.write_text("\n".join(host_constraints()) + "\n", encoding="utf-8")
            args = [sys.executable, "-m", "pip", "install", "--target", str(staging), "--upgrade"]
            args += ["--disable-pip-version-check", "--constraint", str(constraints), *requirement_args]
            logger.info("running %s", " ".join(args))
            result = await run_command(args)
        if result.code != 0:
            lines = [ln for ln in result.stderr.splitlines() if ln.strip()] or [f"pip exited with code {result.code}"]
            raise PackageInstallError(f"pip failed for {' '.join(requirement_args)}: {lines[-1].strip()}")
        try:
            _replace_directory(staging, target)
        except OSError as error:
            raise PackageInstallError(f"Could not put the installed files in {target}: {error}") from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _replace_directory(new: Path, target: Path) -> None:
    """Put `new` in place of `target` with renames, so readers see the old or the new tree, never a mix."""
    if not target.exists():
        new.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old.rmdir()
    target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)


async def install_package(store: PackageStore, source: PackageSource, scope: Scope) -> str | None:
    """Install a package (a no-op for local ones that exist); returns the installed version."""
    path = store.install_path(source, scope)
    if source.kind == "local":
        if not path.is_dir():
            raise PackageInstallError(f"Package directory does not exist: {path}")
        return installed_version(store, source, scope)
    if store.offline:
        raise PackageInstallError(f"Cannot install {source.raw} in offline mode")
    ensure_install_root(store.install_root(scope, source.kind))
    if source.kind == "pypi":
        await pip_install(path, [source.location])
    else:
        await clone_repository(source, path)
        await install_clone_dependencies(path)
    return installed_version(store, source, scope)


async def run_git(source: PackageSource, args: list[str], cwd: Path | None = None) -> CommandResult:
    result = await run_command(["git", *args], cwd=cwd, env=git_environment())
    if result.code != 0:
        raise git_failure(source.raw, result)
    return result


async def clone_repository(source: PackageSource, path: Path) -> None:
    """Clone (or refresh an existing clone's refs), then check out the ref when one is given."""
    if (path / ".git").exists():
        await run_git(source, ["fetch", "--quiet", "--tags", "origin"], cwd=path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            shutil.rmtree(path)
        await run_git(source, ["clone", "--quiet", source.location, str(path)])
    if source.ref is not None:
        await run_git(source, ["checkout", "--quiet", "--detach", source.ref], cwd=path)


async def install_clone_dependencies(clone: Path) -> None:
    site = clone / SITE_DIR
    if (clone / "pyproject.toml").is_file() or (clone / "setup.py").is_file():
        await pip_install(site, [str(clone)])
    elif (clone / "requirements.txt").is_file():
        await pip_install(site, ["-r", str(clone / "requirements.txt")])


async def update_package(store: PackageStore, source: PackageSource, scope: Scope) -> tuple[str | None, str | None]:
    """Bring an installed package up to date (pinned ones are only installed when missing): (before, after)."""
    before = installed_version(store, source, scope) if is_installed(store, source, scope) else None
    if source.kind == "local" or (source.pinned and before is not None):
        return before, before
    if before is None or source.kind == "pypi":
        return before, await install_package(store, source, scope)
    path = store.install_path(source, scope)
    await run_git(source, ["fetch", "--quiet", "origin"], cwd=path)
    await run_git(source, ["reset", "--quiet", "--hard", "origin/HEAD"], cwd=path)
    await install_clone_dependencies(path)
    return before, installed_version(store, source, scope)


def remove_package_files(store: PackageStore, source: PackageSource, scope: Scope) -> None:
    """Delete a managed install (local packages are never touched)."""
    if source.kind == "local":
        return
    path = store.install_path(source, scope)
    if path.is_dir():
        shutil.rmtree(path)


__all__ = [
    "UNTRUSTED_STORAGE",
    "PackageInstallError",
    "PackageStore",
    "clone_repository",
    "credential_hint",
    "ensure_install_root",
    "git_environment",
    "host_constraints",
    "host_dependency_warning",
    "install_clone_dependencies",
    "install_package",
    "installed_version",
    "is_installed",
    "outside_root_message",
    "pip_install",
    "remove_package_files",
    "run_git",
    "update_package",
]
