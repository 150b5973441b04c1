"""The one way pi replaces a file: a crash, a kill or a full disk leaves the old content or the new, never half.

Every layer writes through it: the write and edit tools (the user's files), session rewrites
(migration, repair) and the app's config files (settings.json, auth.json, trust.json). It lives at
the package root, outside the layers, because all of them need it and it needs nothing of pi.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def write_file_atomically(
    path: str | os.PathLike[str], data: bytes | str, mode: int | None = None, *, fsync: bool = True
) -> None:
    """Replace `path` (symlinks followed, missing parents created) with `data`.

    The data goes to a temporary file beside the target, which is then renamed over it. `mode`, when
    given, is set before any byte is written (auth.json must never be readable by others, not even
    for a moment); otherwise the file keeps the permissions and owner it had, and a new file gets the
    umask's default. Where a rename would change what the file is (a special file, a file with
    several hard links, one owned by someone else, or a directory pi may not create files in), the
    file is written in place instead. A read-only file fails with EACCES, as a plain write would.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = os.path.realpath(path)
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not os.access(target, os.W_OK):
            raise PermissionError(13, "Permission denied", str(path))
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1 or (os.geteuid() != 0 and info.st_uid != os.geteuid()):
            _write_in_place(target, payload, mode)
            return
    directory = os.path.dirname(target) or "."
    os.makedirs(directory, exist_ok=True)
    try:
        fd, temp_path = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except PermissionError:
        _write_in_place(target, payload, mode)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            # mkstemp creates the file 0600: give it the mode (and owner) it had or would get.
            os.fchmod(handle.fileno(), _final_mode(mode, info))
            if info is not None and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(PermissionError):
                    os.fchown(handle.fileno(), info.st_uid, info.st_gid)
            handle.write(payload)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.replace(temp_path, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_path)
        raise


write_atomic = write_file_atomically
"""The same function under the name the app's config writers use."""


def _final_mode(mode: int | None, info: os.stat_result | None) -> int:
    if mode is not None:
        return mode
    if info is not None:
        return stat.S_IMODE(info.st_mode)
    return 0o666 & ~_current_umask()


def _current_umask() -> int:
    """The process umask, read without changing it where /proc allows (changing it races other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_in_place(path: str, data: bytes, mode: int | None) -> None:
    with open(path, "wb") as handle:
        if mode is not None:
            os.fchmod(handle.fileno(), mode)
        handle.write(data)


__all__ = ["write_atomic", "write_file_atomically"]
