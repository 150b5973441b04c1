"""Package sources and their identities (`pypi:`, git forms, local paths).

Two spellings of one package share an identity, so settings entries written over SSH and HTTPS,
with or without a ref, or as a relative and an absolute path, are recognised as the same package.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from msgspec import Struct

NPM_NOT_SUPPORTED = "npm packages need Node.js and are not supported; use pypi: or git: sources"
NEVER_LOCAL_PREFIXES = ("npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:", "pypi:")
_URL_SCHEMES = ("https://", "http://", "ssh://", "git://")
_PEP503_SEPARATORS = r"[-_.]+"
_FALLBACK_REQUIREMENT = r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*?)\s*$"
_SCP_FORM = r"^(?P<user>[^@/:]+)@(?P<host>[^:/]+):(?P<path>.+)$"
_URL_FORM = r"^(?P<scheme>[a-z+]+)://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?(?P<path>/.*)?$"


_PACKAGE_PREFIXES = ("pypi:", "git:", "git+", "npm:", "github:", "http://", "https://", "ssh://", "git://")


def is_package_source(text: str) -> bool:
    """Whether a `-e` argument names a package source (rather than a file, directory or `builtin:` name)."""
    return text.strip().startswith(_PACKAGE_PREFIXES)


class PackageSourceError(ValueError):
    """A source that names no package pi can install; the message says what to use instead."""


class PackageSource(Struct, frozen=True):
    """One parsed source. `location` is the requirement (pypi), the clone URL (git) or the resolved path (local)."""

    kind: Literal["pypi", "git", "local"]
    raw: str
    identity: str
    pinned: bool
    location: str
    name: str = ""
    """The PEP 503 normalized distribution name (pypi only)."""
    host: str = ""
    repo_path: str = ""
    ref: str | None = None


def normalize_name(name: str) -> str:
    """PEP 503 normalization: lower case, runs of `-`, `_`, `.` become one `-`."""
    return re.sub(_PEP503_SEPARATORS, "-", name).lower()


def _pinned_specifier(specs: list[tuple[str, str]]) -> bool:
    return len(specs) == 1 and specs[0][0] in ("==", "===") and not specs[0][1].endswith(".*")


def _parse_requirement_fallback(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Name and specifier clauses of a requirement without the `packaging` library (no markers or URLs)."""
    match = re.match(_FALLBACK_REQUIREMENT, text)
    if match is None or match.group(3).startswith(("@", ";")):
        raise PackageSourceError(f'Invalid PyPI requirement "{text}"')
    clauses: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in match.group(3).split(","))):
        clause = re.match(r"^(===|==|!=|~=|<=|>=|<|>)\s*(\S+)$", part)
        if clause is None:
            raise PackageSourceError(f'Invalid PyPI requirement "{text}"')
        clauses.append((clause.group(1), clause.group(2)))
    return match.group(1), clauses


def parse_requirement(text: str) -> tuple[str, bool]:
    """The normalized name of a PEP 508 requirement and whether it pins one exact version."""
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:
        name, clauses = _parse_requirement_fallback(text)
        return normalize_name(name), _pinned_specifier(clauses)
    try:
        requirement = Requirement(text)
    except InvalidRequirement as error:
        raise PackageSourceError(f'Invalid PyPI requirement "{text}": {error}') from error
    clauses = [(spec.operator, spec.version) for spec in requirement.specifier]
    return normalize_name(requirement.name), requirement.url is None and _pinned_specifier(clauses)


def _safe_repo_path(path: str) -> str | None:
    """The repository path without `.git` and slashes at the ends, or None when unsafe or too short."""
    if "\\" in path or "\x00" in path:
        return None
    trimmed = path.strip("/").removesuffix(".git").strip("/")
    segments = trimmed.split("/")
    if len(segments) < 2 or any(s in ("", ".", "..") for s in segments):
        return None
    return trimmed


def _split_ref(path: str) -> tuple[str, str | None]:
    if "@" in path:
        head, ref = path.rsplit("@", 1)
        return head, ref or None
    return path, None


def _git_source(raw: str, body: str, *, explicit: bool) -> PackageSource | None:
    """A git source from `body` (the text after an optional `git:`), or None when it is not one."""
    if body.startswith(_URL_SCHEMES):
        url = re.match(_URL_FORM, body)
        if url is None:
            return None
        host, path_and_ref = url.group("host"), url.group("path") or ""
        base = body[: len(body) - len(path_and_ref)]
        path_text, ref = _split_ref(path_and_ref)
        clone_url = base + path_text
    elif not explicit:
        return None
    elif (scp := re.match(_SCP_FORM, body)) is not None:
        host = scp.group("host")
        path_text, ref = _split_ref(scp.group("path"))
        if path_text.startswith("/"):
            return None
        clone_url = f"{scp.group('user')}@{host}:{path_text}"
    else:
        host, _, path_and_ref = body.partition("/")
        if "." not in host and host.split(":")[0] != "localhost":
            return None
        path_text, ref = _split_ref(path_and_ref)
        clone_url = f"https://{host}/{path_text}"
        host = host.split(":")[0]
    repo_path = _safe_repo_path(path_text)
    if repo_path is None or not host or ".." in host:
        return None
    identity = f"git:{host}/{repo_path}"
    return PackageSource("git", raw, identity, ref is not None, clone_url, host=host, repo_path=repo_path, ref=ref)


def _local_source(raw: str, base_dir: Path) -> PackageSource:
    text = raw.removeprefix("file://") if raw.startswith("file://") else raw.removeprefix("file:")
    path = Path(os.path.expanduser(text))
    resolved = Path(os.path.normpath(base_dir / path))
    return PackageSource("local", raw, f"local:{resolved}", False, str(resolved))


def parse_source(source: str, *, base_dir: Path) -> PackageSource:
    """Parse a package source; relative local paths resolve against `base_dir`.

    Raises PackageSourceError for npm sources and malformed PyPI requirements.
    """
    text = source.strip()
    if text.startswith("npm:"):
        raise PackageSourceError(NPM_NOT_SUPPORTED)
    if text.startswith("pypi:"):
        requirement = text.removeprefix("pypi:").strip()
        if not requirement:
            raise PackageSourceError("Missing requirement after pypi: (for example pypi:pi-tools==1.2.0)")
        name, pinned = parse_requirement(requirement)
        return PackageSource("pypi", text, f"pypi:{name}", pinned, requirement, name=name)
    explicit = text.startswith("git:") and not text.startswith("git://")
    found = _git_source(text, text.removeprefix("git:") if explicit else text, explicit=explicit)
    return found if found is not None else _local_source(text, base_dir)


def settings_form(source: PackageSource, settings_dir: Path) -> str:
    """How a source is written into settings: local paths relative to the settings dir (`.` when equal)."""
    if source.kind != "local":
        return source.raw
    relative = os.path.relpath(source.location, os.path.normpath(settings_dir))
    return Path(relative).as_posix()


__all__ = [
    "NEVER_LOCAL_PREFIXES",
    "NPM_NOT_SUPPORTED",
    "PackageSource",
    "PackageSourceError",
    "normalize_name",
    "parse_requirement",
    "parse_source",
    "settings_form",
]
