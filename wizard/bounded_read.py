"""Reading a file gpu-wizard did not write (a report, an environment's pyvenv.cfg, torch's
version.py and install records, the user's settings) so that no file can hang or flood it.

The path is opened without blocking (a FIFO would otherwise wait for a writer forever), the
open descriptor is asked what it is (`fstat` after `open`: what is checked is what is read, with
no window for a swap between the two), only a regular file is read, and never more than a cap.
A FIFO, /dev/zero or a 10 GB file costs one `open` and one `fstat`, and is named as what it is.
"""

from __future__ import annotations

import io
import os
import stat
from typing import Any

# What a refused file was, for the sentence that names it (FileRefused.kind).
KINDS = ("missing", "directory", "fifo", "device", "socket", "not-regular", "too-big", "denied", "error")

_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class FileRefused(OSError):
    """The file was not read: `kind` (KINDS) says why; `size` and `limit` for "too-big",
    `error` the system's words for "error"."""

    def __init__(self, path: str | os.PathLike, kind: str, *, size: int | None = None,
                 limit: int | None = None, error: str | None = None):
        self.path = os.fspath(path)
        self.kind = kind
        self.size = size
        self.limit = limit
        self.error = error
        super().__init__(f"{self.path}: {kind}" + (f" ({error})" if error else ""))


def _kind_of(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "not-regular"


def _open(path: str | os.PathLike) -> tuple[int, os.stat_result]:
    try:
        fd = os.open(path, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):  # a file where a folder should be: no such file
        raise FileRefused(path, "missing") from None
    except PermissionError:
        raise FileRefused(path, "denied") from None
    except IsADirectoryError:  # Windows opens no folder as a file
        raise FileRefused(path, "directory") from None
    except OSError as exc:
        raise FileRefused(path, "error", error=exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        kind = _kind_of(info.st_mode)
        if kind is not None:
            raise FileRefused(path, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _read(fd: int, path: str | os.PathLike, limit: int) -> bytes:
    chunks = []
    left = limit
    try:
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise FileRefused(path, "error", error=exc.strerror or str(exc)) from None
    return b"".join(chunks)


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The whole file, or FileRefused: not a regular file, or longer than `limit` bytes."""
    fd, info = _open(path)
    try:
        if info.st_size > limit:
            raise FileRefused(path, "too-big", size=info.st_size, limit=limit)
        # One byte past the cap tells a file that grew since fstat (or that /proc-style lies
        # about its size) from one that fits.
        data = _read(fd, path, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileRefused(path, "too-big", size=len(data), limit=limit)
    return data


def read_head(path: str | os.PathLike, limit: int) -> bytes:
    """At most the first `limit` bytes of a regular file (its headers, say); FileRefused when
    it is not one."""
    fd, _info = _open(path)
    try:
        return _read(fd, path, limit)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, limit: int, encoding: str = "utf-8", errors: str = "replace") -> str:
    """read_bytes, decoded (undecodable bytes replaced unless `errors` says otherwise)."""
    return read_bytes(path, limit).decode(encoding, errors)


class _Capped(io.RawIOBase):
    """An open descriptor read to at most `limit` bytes; FileRefused for a byte past them (the
    file grew since fstat) or a failed read."""

    def __init__(self, fd: int, path: str | os.PathLike, limit: int):
        super().__init__()
        self._fd, self._path, self._left, self._limit = fd, path, limit, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer: BufferedReader passes a memoryview
        try:
            # At the cap, one byte more tells a file that grew from one that ended there.
            chunk = os.read(self._fd, min(len(buffer), self._left) if self._left > 0 else 1)
        except OSError as exc:
            raise FileRefused(self._path, "error", error=exc.strerror or str(exc)) from None
        if self._left <= 0 and chunk:
            raise FileRefused(self._path, "too-big", size=self._limit + 1, limit=self._limit)
        buffer[:len(chunk)] = chunk
        self._left -= len(chunk)
        return len(chunk)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def open_text(path: str | os.PathLike, limit: int, encoding: str = "utf-8",
              errors: str = "replace") -> io.TextIOWrapper:
    """A regular file of at most `limit` bytes, open for reading a line at a time (use `with`).

    For a long file read once through: torch's install record (1.5 MB, 15,000 lines) read whole
    and decoded was a 6 MB spike, the wizard's peak memory (issue 25). FileRefused as
    read_bytes: at once for a file that is not regular or is over the cap, from a read for one
    that grows past it. Newlines are left as they are (csv wants them so)."""
    fd, info = _open(path)
    try:
        if info.st_size > limit:
            raise FileRefused(path, "too-big", size=info.st_size, limit=limit)
        raw = _Capped(fd, path, limit)
    except BaseException:
        os.close(fd)
        raise
    return io.TextIOWrapper(io.BufferedReader(raw), encoding=encoding, errors=errors, newline="")


def is_regular_file(path: str | os.PathLike) -> bool:
    """True for a regular file (after symbolic links); False for anything else or nothing. Only
    looks (`stat`): for a file that is then read, read_bytes checks again on what it opened."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
