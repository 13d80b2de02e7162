"""Saving a report: a default name that is free, written atomically, never replacing a file
silently."""

from __future__ import annotations

import datetime as dt
import errno
import os
import tempfile
from pathlib import Path
from typing import Any

import tomli_w

from wizard.report.errors import ReportError, ReportExistsError, ReportSaveError
from wizard.signals import SAVED, deferred


def default_report_path(now: dt.datetime | None = None, cwd: Path | None = None,
                        home: Path | None = None) -> Path:
    """gpu-report-YYYYMMDD-HHMMSS.toml in cwd, or in the home directory when cwd is read-only."""
    now = now or dt.datetime.now()
    name = f"gpu-report-{now:%Y%m%d-%H%M%S}.toml"
    folder = current_folder() if cwd is None else cwd
    if folder is None or not _writable_dir(folder):
        folder = Path.home() if home is None else home
    return next_free_path(folder / name)


def current_folder() -> Path | None:
    """The current folder, or None when it was deleted under us (os.getcwd() raises)."""
    try:
        return Path.cwd()
    except OSError:
        return None


def check_report_target(path: Path) -> Path:
    """Where a report named `path` goes: a folder means the default name inside it. Raises
    ReportError when it cannot go there (taken, no folder, a name the OS refuses), so a
    headless run says so before a minute of probing."""
    path = Path(path)
    if not path.is_absolute() and current_folder() is None:
        raise ReportSaveError(path, "report.error.cwd-gone")
    try:
        if path.is_dir():
            path = next_free_path(path / default_report_path(cwd=path).name)
        if path.exists() or path.is_symlink():
            raise _taken(path)
        folder = path.parent
        if not folder.is_dir():
            raise ReportSaveError(path, "report.error.no-folder", folder=folder)
    except OSError as exc:  # a name over 255 bytes, a loop of links
        raise _save_error(path, exc, path.parent) from None
    return path


def _writable_dir(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _taken(path: Path) -> ReportExistsError:
    """The error for a name that is taken, with the free name to offer instead."""
    return ReportExistsError(path, next_free_path(path))


def next_free_path(path: Path) -> Path:
    """path, or path with -2, -3, ... before the suffix: the first name not taken."""
    path = Path(path)

    def free(candidate: Path) -> bool:
        # A dangling link is taken too: saving refuses it, so offering it would loop.
        try:
            return not (candidate.exists() or candidate.is_symlink())
        except OSError:  # a name the OS refuses: saving will say why
            return True

    if free(path) or not path.name:
        return path
    for n in range(2, 10_000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if free(candidate):
            return candidate
    return path.with_name(f"{path.stem}-{os.getpid()}{path.suffix}")


def dumps_report(report: dict[str, Any]) -> str:
    return tomli_w.dumps(report)


def save_report(report: dict[str, Any], path: Path | str, overwrite: bool = False) -> Path:
    """Write atomically (temp file + rename in the same folder); refuse to replace a file."""
    path = Path(path)
    try:
        data = dumps_report(report).encode("utf-8")
    except (TypeError, ValueError) as exc:  # a None or a nan deep inside: a bug, said plainly
        raise ReportSaveError(path, raw=f"the report could not be encoded as TOML ({exc})") from exc
    folder = path.parent if str(path.parent) else Path(".")
    if not path.is_absolute() and current_folder() is None:
        raise ReportSaveError(path, "report.error.cwd-gone")
    try:
        if path.is_dir():
            raise ReportSaveError(path, "report.error.is-dir")
        if not overwrite and (path.exists() or path.is_symlink()):
            raise _taken(path)
        if not folder.is_dir():
            raise ReportSaveError(path, "report.error.no-folder", folder=folder)
    except OSError as exc:  # a name over 255 bytes, a loop of links
        raise _save_error(path, exc, folder) from None
    # From the temp file's creation to its removal a signal waits: an interrupted save leaves
    # either the whole report or nothing, never a stray ".tmp".
    with deferred():
        try:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            raise _save_error(path, exc, folder) from exc
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o644 & ~_umask())
            if overwrite:
                os.replace(tmp, path)
            else:
                _publish_without_overwrite(tmp, path)
        except ReportError:
            raise
        except OSError as exc:
            raise _save_error(path, exc, folder) from exc
        finally:
            if tmp.exists():
                tmp.unlink(missing_ok=True)
        SAVED.append(path)
    return path


def _publish_without_overwrite(tmp: Path, path: Path) -> None:
    # A hard link fails if the name was taken meanwhile, which closes the race a plain
    # exists-check leaves; file systems without hard links fall back to that check.
    try:
        os.link(tmp, path)
    except FileExistsError as exc:
        raise _taken(path) from exc
    except OSError:
        if path.exists():
            raise _taken(path) from None
        os.replace(tmp, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _save_error(path: Path, exc: OSError, folder: Path) -> ReportSaveError:
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return ReportSaveError(path, "report.error.read-only", folder=folder)
    if exc.errno == errno.ENOSPC:
        return ReportSaveError(path, "report.error.disk-full", folder=folder)
    if exc.errno == errno.ENAMETOOLONG:
        return ReportSaveError(path, "report.error.name-too-long")
    return ReportSaveError(path, raw=exc.strerror or str(exc))
