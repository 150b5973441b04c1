"""`pi install`, `pi remove` (`uninstall`), `pi update` (packages) and `pi list`, with pi's exact output."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from msgspec import Struct

from pi.app.packages.filters import PackageEntry, Scope
from pi.app.packages.install import (
    PackageInstallError,
    PackageStore,
    host_dependency_warning,
    install_package,
    remove_package_files,
    update_package,
)
from pi.app.packages.resolve import read_entries, settings_path, source_of
from pi.app.packages.settings_file import SettingsFileError, read_packages, write_packages
from pi.app.packages.sources import PackageSource, PackageSourceError, parse_source, settings_form

UNTRUSTED_CONFIG = "Project is not trusted. Use --approve to modify local package config."
_USAGE = {
    "install": "Usage: pi install <source> [-l]",
    "remove": "Usage: pi remove <source> [-l]",
    "uninstall": "Usage: pi uninstall <source> [-l]",
    "update": "Usage: pi update [--self | --extensions | --extension <source> | <source> | --all]",
    "list": "Usage: pi list",
}
_DIM, _UNDIM = "\x1b[2m", "\x1b[22m"


class _UsageError(Exception):
    pass


class _Args(Struct):
    command: str
    source: str | None = None
    local: bool = False
    approve: bool | None = None
    packages: bool = False
    """`update`: reconcile packages (`--extensions`, `--all`, or a source)."""
    self_update: bool = False
    """`update`: update pi itself (bare `update`, `--self`, `self`, `pi`, `--all`, `--force`)."""
    force: bool = False


def _parse(command: str, rest: Sequence[str]) -> _Args:
    args = _Args(command)
    items = list(rest)
    while items:
        arg = items.pop(0)
        if arg in ("-l", "--local") and command != "list":
            args.local = True
        elif arg in ("-a", "--approve"):
            args.approve = True
        elif arg in ("-na", "--no-approve"):
            args.approve = False
        elif command == "update" and arg in ("--extensions", "--self", "--all", "--force"):
            args.packages = args.packages or arg in ("--extensions", "--all")
            args.self_update = args.self_update or arg in ("--self", "--all", "--force")
            args.force = args.force or arg == "--force"
        elif command == "update" and arg == "--extension" and items:
            args.source = items.pop(0)
        elif arg.startswith("-") or (args.source is not None or command == "list"):
            raise _UsageError(f'Unknown option {arg} for "{command}".')
        else:
            args.source = arg
    if command in ("install", "remove", "uninstall") and args.source is None:
        raise _UsageError(f"Missing {command} source.")
    if command == "update":
        if args.source in ("self", "pi"):
            args.source, args.self_update = None, True
        elif args.source is not None:
            args.packages = True
        if not args.packages:
            args.self_update = True
    return args


def _offline() -> bool:
    return os.environ.get("PI_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def run_package_command(
    argv: Sequence[str],
    *,
    agent_dir: Path,
    cwd: Path,
    project_trusted: bool,
    out: TextIO,
    err: TextIO,
    offline: bool = False,
) -> int:
    """Run `argv` (`["install", "./pkg", "-l"]` …) and return the exit code; for callers without a running loop."""
    return asyncio.run(
        run_package_command_async(
            argv, agent_dir=agent_dir, cwd=cwd, project_trusted=project_trusted, out=out, err=err, offline=offline
        )
    )


async def run_package_command_async(
    argv: Sequence[str],
    *,
    agent_dir: Path,
    cwd: Path,
    project_trusted: bool,
    out: TextIO,
    err: TextIO,
    offline: bool = False,
) -> int:
    """`run_package_command` for callers already inside an event loop. `offline` adds to `PI_OFFLINE`."""
    command, rest = (argv[0], argv[1:]) if argv else ("list", [])
    try:
        args = _parse(command, rest)
    except _UsageError as error:
        err.write(f"{error}\n{_USAGE.get(command, 'Usage: pi --help')}\n")
        return 1
    trusted = project_trusted if args.approve is None else args.approve
    store = PackageStore(agent_dir, cwd, trusted, offline=offline or _offline())
    runner = _Runner(store, args, out, err)
    try:
        if command == "install":
            return await runner.install()
        if command in ("remove", "uninstall"):
            return runner.remove()
        if command == "update":
            return await runner.update()
        return runner.list_packages()
    except (PackageSourceError, PackageInstallError, SettingsFileError) as error:
        err.write(f"Error: {error}\n")
        return 1


class _Runner(Struct):
    store: PackageStore
    args: _Args
    out: TextIO
    err: TextIO

    @property
    def scope(self) -> Scope:
        return "project" if self.args.local else "user"

    def _check_config_trust(self) -> None:
        if self.scope == "project" and not self.store.project_trusted:
            raise PackageInstallError(UNTRUSTED_CONFIG)

    def _source(self) -> PackageSource:
        assert self.args.source is not None
        return parse_source(self.args.source, base_dir=self.store.cwd)

    def _matching(self, scope: Scope, identity: str) -> tuple[list[object], int | None]:
        """The scope's raw entries and the index of the first one with `identity`."""
        raw_entries = read_packages(settings_path(self.store, scope))
        for index, raw in enumerate(raw_entries):
            text = raw if isinstance(raw, str) else raw.get("source") if isinstance(raw, dict) else None
            if not isinstance(text, str):
                continue
            try:
                found = parse_source(text, base_dir=self.store.settings_dir(scope)).identity
            except PackageSourceError:
                continue
            if found == identity:
                return raw_entries, index
        return raw_entries, None

    async def install(self) -> int:
        self._check_config_trust()
        source = self._source()
        self.out.write(f"Installing {self.args.source}...\n")
        self.out.flush()
        await install_package(self.store, source, self.scope)
        warning = host_dependency_warning(self.store, source, self.scope)
        if warning is not None:
            self.err.write(f"Warning: {warning}\n")
        written = settings_form(source, self.store.settings_dir(self.scope))
        raw_entries, index = self._matching(self.scope, source.identity)
        if index is None:
            raw_entries.append(written)
        elif isinstance(raw_entries[index], dict):
            raw_entries[index] = {**raw_entries[index], "source": written}  # type: ignore[dict-item]
        else:
            raw_entries[index] = written
        write_packages(settings_path(self.store, self.scope), raw_entries)
        self.out.write(f"Installed {self.args.source}\n")
        return 0

    def remove(self) -> int:
        self._check_config_trust()
        source = self._source()
        raw_entries, index = self._matching(self.scope, source.identity)
        if index is None:
            self.err.write(f"No matching package found for {self.args.source}\n")
            return 1
        remove_package_files(self.store, source, self.scope)
        del raw_entries[index]
        write_packages(settings_path(self.store, self.scope), raw_entries)
        self.out.write(f"Removed {self.args.source}\n")
        return 0

    def _entries(self, warnings: list[str]) -> list[PackageEntry]:
        return read_entries(self.store, "user", warnings) + read_entries(self.store, "project", warnings)

    async def update(self) -> int:
        code = 0
        if self.args.self_update:
            from pi.app.packages.self_update import update_self

            code = await update_self(self.store.agent_dir, self.out, self.err, force=self.args.force)
        if self.args.packages:
            code = max(code, await self.update_packages())
        return code

    async def update_packages(self) -> int:
        warnings: list[str] = []
        entries = self._entries(warnings)
        if self.args.source is not None:
            identity = self._source().identity
            entries = [e for e in entries if source_of(self.store, e).identity == identity]
            if not entries:
                self.err.write(f"No matching package found for {self.args.source}\n")
                return 1
        if self.store.offline:
            self.out.write("Skipped package updates (offline mode)\n")
            return 0
        changes: list[str] = []
        failed = 0
        for entry in entries:
            source = source_of(self.store, entry)
            try:
                before, after = await update_package(self.store, source, entry.scope)
            except PackageInstallError as error:
                self.err.write(f"Warning: Failed to update {entry.source}: {error}\n")
                failed += 1
                continue
            if before != after:
                suffix = " (project)" if entry.scope == "project" else ""
                changes.append(f"  {entry.source}{suffix} {_short(source, before)} -> {_short(source, after)}")
        for warning in warnings:
            self.err.write(f"Warning: {warning}\n")
        if changes:
            self.out.write(f"Updated {len(changes)} package{'' if len(changes) == 1 else 's'}:\n")
            self.out.write("".join(line + "\n" for line in changes))
        elif failed:
            self.out.write("No packages were updated, see the warnings above\n")
        elif self.args.source is not None:
            self.out.write(f"{self.args.source} is already up to date\n")
        else:
            self.out.write("Packages are already up to date\n")
        return 1 if failed else 0

    def list_packages(self) -> int:
        warnings: list[str] = []
        sections: list[str] = []
        titles: tuple[tuple[Scope, str], ...] = (("user", "User packages:"), ("project", "Project packages:"))
        for scope, title in titles:
            entries = read_entries(self.store, scope, warnings)
            if entries:
                sections.append(title + "\n" + "".join(self._list_line(e) for e in entries))
        for warning in warnings:
            self.err.write(f"Warning: {warning}\n")
        self.out.write("\n".join(sections) if sections else "No packages installed.\n")
        return 0

    def _list_line(self, entry: PackageEntry) -> str:
        suffix = " (filtered)" if entry.is_object else ""
        path = str(self.store.install_path(source_of(self.store, entry), entry.scope))
        if self.out.isatty():
            path = f"{_DIM}{path}{_UNDIM}"
        return f"  {entry.source}{suffix}\n    {path}\n"


def _short(source: PackageSource, version: str | None) -> str:
    if version is None:
        return "(not installed)"
    return version[:7] if source.kind == "git" else version


__all__ = ["UNTRUSTED_CONFIG", "run_package_command", "run_package_command_async"]
