"""The shareable report (format version 1, described in README.md's "The report format"): build, redact, save, load, check.

A report travels from a student to a TA, so by default it carries nothing that identifies a
person or a machine; it is written atomically and never replaces an existing file silently,
and reading one treats the file as hostile (size cap, encoding, TOML errors with the line).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import errno
import getpass
import os
import platform
import re
import stat
import tempfile
try:
    import tomllib  # novermin (3.9 and 3.10 get tomli below)
except ModuleNotFoundError:  # Python 3.9 and 3.10: the same parser, from PyPI
    import tomli as tomllib  # type: ignore[no-redef]
from pathlib import Path
from typing import Any, Iterable

import tomli_w

from wizard import __version__
from wizard.answers import answers_problems, answers_to_dict
from wizard.findings import SEVERITIES
from wizard.i18n import LANGUAGES, t
from wizard.probe.model import to_dict
from wizard.signals import deferred
from wizard.textout import clean_strings

SCHEMA = "gpu-wizard/report/1"
SCHEMA_PREFIX = "gpu-wizard/report/"
MAX_REPORT_BYTES = 1_000_000
SAVED: list[Path] = []   # reports this process has written, for the message after Ctrl+C
VERDICTS = (
    "use-current-gpu", "fix-setup", "use-free-cloud", "rent-cloud",
    "upgrade-desktop", "buy-desktop", "buy-laptop", "no-gpu-needed",
)
_FINDING_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


# ------------------------------------------------------------------------------ errors ---

class ReportError(Exception):
    """A report problem the user can act on; `message(lang)` says it in their language."""

    key = "report.error.generic"

    def __init__(self, path: Path | str, reason: str = "", raw: str = "", **values: Any):
        self.path = Path(path)
        self.reason = reason    # an i18n key for the cause, or ""
        self.raw = raw          # a cause that has no translation (an OS or TOML message)
        self.values = values
        super().__init__(self.message("en"))

    def detail(self, lang: str = "en") -> str:
        if self.reason:
            return t(self.reason, lang, **self.values)
        return self.raw

    def message(self, lang: str = "en") -> str:
        return t(self.key, lang, path=self.path, detail=self.detail(lang), **self.values)


class ReportExistsError(ReportError):
    key = "report.error.exists"

    def __init__(self, path: Path | str):
        self.suggestion = next_free_path(Path(path))
        super().__init__(path, suggestion=self.suggestion)


class ReportSaveError(ReportError):
    key = "report.error.save"


class ReportReadError(ReportError):
    """The file cannot be read as TOML at all (missing, too big, not UTF-8, bad syntax)."""

    key = "report.error.read"


class ReportInvalidError(ReportError):
    """The file is TOML but not a valid report; `problems` names each key path."""

    key = "report.error.invalid"

    def __init__(self, path: Path | str, problems: list[str]):
        self.problems = problems
        super().__init__(path, raw="; ".join(problems), count=len(problems))


# ----------------------------------------------------------------------------- building ---

def build_report(answers: Any, machine: Any, findings: Iterable[Any], recommendation: Any,
                 lang: str, redact: bool = True, now: dt.datetime | None = None,
                 identifiers: Iterable[str] | None = None) -> dict[str, Any]:
    """Everything the user saw, as TOML-ready data; identifiers removed unless redact=False."""
    created = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    report = {
        "schema": SCHEMA,
        "tool_version": __version__,
        "created": created.replace(microsecond=0),
        "language": lang if lang in LANGUAGES else "en",
        "redacted": False,
        "answers": answers_to_dict(answers) if dataclasses.is_dataclass(answers) else dict(answers),
        "machine": _plain(machine),
        "findings": [_plain(f) for f in findings],
        "recommendation": _plain(recommendation),
    }
    report = clean_strings(report)  # a recorded machine may carry undecodable OS bytes
    return redact_report(report, identifiers) if redact else report


def _plain(obj: Any) -> Any:
    return to_dict(obj) if dataclasses.is_dataclass(obj) else _drop_none(obj)


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, (list, tuple)):
        return [_drop_none(v) for v in obj]
    return obj


# ---------------------------------------------------------------------------- redaction ---

# Keys whose value identifies a machine or person wherever they appear.
_IDENTIFYING_KEYS = frozenset({
    "hostname", "host", "uuid", "serial", "serial_number", "board_serial", "product_serial",
    "product_uuid", "machine_id", "mac", "mac_address", "ip", "ip_address", "username", "user",
})
# Host and user names too generic to identify anyone, and too common as words to blank out
# of the text (a host called "debian" must not erase the OS name).
_GENERIC_NAMES = frozenset({
    "root", "user", "admin", "administrator", "nvidia", "cuda", "torch", "python", "home", "users",
    "default", "public", "guest", "runner", "jovyan", "colab", "kaggle", "gpu", "server", "desktop",
    "laptop", "workstation", "linux", "ubuntu", "debian", "fedora", "centos", "rocky", "arch",
    "archlinux", "manjaro", "kali", "mint", "pop-os", "raspberrypi", "localhost", "wsl", "docker",
})
# A user folder's name may hold spaces ("Ana Lopez") when a separator follows it; otherwise the
# name ends at the first space ("/home/ana is missing").
_USER = r"""(?P<user>[^\\/\s"':;,]+(?: [^\\/\s"':;,]+){0,3}(?=[\\/])|[^\\/\s"':;,]+)"""
_HOME_PATTERNS = (
    re.compile(r"(?<![\w.])(?:[A-Za-z]:)?(?:\\\\|\\|/)(?:Users|Documents and Settings)(?:\\\\|\\|/)"
               + _USER, re.IGNORECASE),
    re.compile(r"/mnt/[a-z]/Users/" + _USER, re.IGNORECASE),
    re.compile(r"(?<![\w.~-])/(?:var/)?home/" + _USER),
    re.compile(r"(?<![\w.~-])/root(?=/|\b|$)"),
)
_GPU_UUID = re.compile(r"\b(?:GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_UUID = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_MAC = re.compile(r"\b[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}\b")
_IPV4 = re.compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,7}(?::[0-9a-fA-F]{1,4}){1,7}(?![\w:])"
                   r"|(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])")
_SERIAL = re.compile(r"(?i)\b(serial(?:[ _]?(?:number|no))?\s*[:=#]\s*)[^\s,;)]+")


def local_identifiers() -> list[str]:
    """This computer's host and user names, which may appear in probe messages."""
    names = []
    for get in (platform.node, getpass.getuser):
        try:
            names.append(get())
        except Exception:  # getuser raises when there is no user name at all (containers)
            pass
    return [n for n in names if n]


def redact_report(report: dict[str, Any], identifiers: Iterable[str] | None = None) -> dict[str, Any]:
    """A copy with host/user names, home paths, UUIDs, serials, MAC and IP addresses removed.

    `identifiers` are extra names to scrub (default: this computer's host and user names);
    the machine's own hostname and user names found in home paths are always scrubbed.
    Redaction goes by field: closed sets and forms (os, vendor, status, "8.6") and the facts a
    probe reads (versions, GPU and CPU names) are never name-scrubbed, so a user called
    `darwin` or `intel` leaves a report that still validates and still says what the hardware is.
    Interpreters are kept by name only, in every text, and their environment's folder too.
    """
    names = set(local_identifiers() if identifiers is None else identifiers)
    machine = report.get("machine")
    if isinstance(machine, dict) and isinstance(machine.get("hostname"), str):
        names.add(machine["hostname"])
    names |= _users_in_paths(report)
    spared = _spared_words(report)
    names = {n.strip() for n in names if isinstance(n, str) and len(n.strip()) >= 3
             and _LETTER.search(n) and n.strip().lower() not in spared}
    scrubber = _Scrubber(names, _interpreter_paths(report))
    out = scrubber.report(report)
    out["redacted"] = True
    return out


redact = redact_report  # the short name callers use; build_report's `redact=` flag shadows it there


def interpreter_name(path: str) -> str:
    """/home/alice/venv/bin/python3.11 → python3.11 (Windows paths too)."""
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1] or path


_LETTER = re.compile(r"[^\W\d_]")
# Report keys that are ours alone (no text from the machine or the user): copied untouched.
_OURS = frozenset({"schema", "tool_version", "created", "language", "redacted", "answers"})
# Facts a probe reads from hardware and software: never name-scrubbed (a user "rtx" must not
# turn "RTX 4060" into "<redacted> 4060"). The first set is kept exactly; the second may be
# free-form enough to hold an address or serial, so those patterns still apply.
_FACTS = frozenset({
    ("NvidiaInfo", "reason"), ("NvidiaInfo", "nvml_version"), ("NvidiaInfo", "kernel_module"),
    ("Gpu", "kernel_driver"), ("Gpu", "bus_id"), ("GpuTest", "device"), ("OtherPython", "torch_version"),
    ("TorchInfo", "version"), ("TorchInfo", "hip_version"), ("TorchInfo", "xpu_version"),
    ("TorchInfo", "arch_list"), ("TorchInfo", "python_arch"), ("TorchInfo", "cpu_capability"),
    ("TorchInfo", "libraries"), ("TorchInfo", "companions"), ("Benchmark", "dtype"),
    ("Benchmark", "gpu_backend"), ("ProbeNote", "name"), ("Machine", "arch"), ("Machine", "python_version"),
})
_HARDWARE = frozenset({
    ("Machine", "os_version"), ("Machine", "cpu_model"), ("Gpu", "name"), ("TorchDevice", "name"),
    ("GpuTest", "name"), ("Benchmark", "gpu_name"), ("TorchInfo", "visible_devices_env"),
})


def _spared_words(report: dict[str, Any]) -> set[str]:
    """Names too generic, or too much part of the hardware's own names, to scrub: a host
    called `intel` identifies nobody, and scrubbing it would blank "Intel(R) UHD Graphics"."""
    from wizard.probe.model import schema_words

    spared = set(_GENERIC_NAMES) | schema_words()
    machine = report.get("machine") if isinstance(report.get("machine"), dict) else {}
    texts = [machine.get("os_version"), machine.get("cpu_model"), machine.get("arch")]
    for gpu in machine.get("gpus") or []:
        texts.append(gpu.get("name") if isinstance(gpu, dict) else None)
    torch = machine.get("torch") if isinstance(machine.get("torch"), dict) else {}
    for device in torch.get("devices") or []:
        texts.append(device.get("name") if isinstance(device, dict) else None)
    rec = report.get("recommendation") if isinstance(report.get("recommendation"), dict) else {}
    for pick in rec.get("gpus") or []:
        texts.append(pick.get("name") if isinstance(pick, dict) else None)
    for text in texts:
        if isinstance(text, str):
            spared.add(text.lower())
            spared.update(word.lower() for word in re.findall(r"[\w+-]+", text))
    return spared


def _interpreter_paths(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, replacement) for every interpreter path in the report and its environment's
    folder, longest first: /data/bob/env/bin/python → python, /data/bob/env → <env>."""
    machine = report.get("machine") if isinstance(report.get("machine"), dict) else {}
    torch = machine.get("torch") if isinstance(machine.get("torch"), dict) else {}
    paths = [torch.get("interpreter")] + [o.get("interpreter") for o in torch.get("other_pythons") or []
                                          if isinstance(o, dict)]
    pairs: dict[str, str] = {}
    for path in paths:
        if not isinstance(path, str) or not re.search(r"[\\/]", path):
            continue
        pairs[path] = interpreter_name(path)
        seps = [m.start() for m in re.finditer(r"[\\/]", path)]
        in_bin = len(seps) >= 2 and path[seps[-2] + 1:seps[-1]].lower() in ("bin", "scripts")
        prefix = path[:seps[-2] if in_bin else seps[-1]]
        # /usr, /usr/local, /opt/conda, C:\Python312: shared system places, not anyone's folder.
        if len([p for p in re.split(r"[\\/]+", prefix) if p and not p.endswith(":")]) >= 3:
            pairs[prefix] = "<env>"
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def _users_in_paths(obj: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(obj, dict):
        for v in obj.values():
            found |= _users_in_paths(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= _users_in_paths(v)
    elif isinstance(obj, str):
        for pattern in _HOME_PATTERNS:
            for m in pattern.finditer(obj):
                if "user" in pattern.groupindex and m.group("user"):
                    found.add(m.group("user"))
    return found


class _Scrubber:
    def __init__(self, names: set[str], interpreters: list[tuple[str, str]]):
        self.names = sorted(names, key=len, reverse=True)
        self.interpreters = interpreters
        home = os.path.expanduser("~")
        self.home = home if len(home) > 3 else None

    def report(self, report: dict[str, Any]) -> dict[str, Any]:
        from wizard.probe.model import Machine

        out: dict[str, Any] = {}
        for key, value in report.items():
            if key.lower() in _IDENTIFYING_KEYS:
                continue
            if key in _OURS:
                out[key] = copy.deepcopy(value)
            elif key == "machine" and isinstance(value, dict):
                out[key] = self.table(value, Machine)
            elif key == "findings" and isinstance(value, list):
                out[key] = [{k: (v if k in ("id", "severity") else self.walk(v)) for k, v in f.items()}
                            if isinstance(f, dict) else self.walk(f) for f in value]
            elif key == "recommendation":
                # Our own prose around catalog names: a user called "lab" must not blank the word.
                out[key] = self.walk(value, names=False)
            else:
                out[key] = self.walk(value)
        return out

    def table(self, obj: dict[str, Any], cls: type) -> dict[str, Any]:
        from wizard.probe.model import field_kind

        out: dict[str, Any] = {}
        for key, value in obj.items():
            if key.lower() in _IDENTIFYING_KEYS:
                continue
            kind, inner = field_kind(cls, key)
            if kind == "fixed" or (cls.__name__, key) in _FACTS:
                out[key] = copy.deepcopy(value)
            elif kind == "table" and inner is not None:
                out[key] = [self.table(v, inner) if isinstance(v, dict) else self.walk(v) for v in value] \
                    if isinstance(value, list) else self.table(value, inner) if isinstance(value, dict) \
                    else self.walk(value)
            elif key == "interpreter" and isinstance(value, str):
                out[key] = interpreter_name(value)  # by name only: the README's promise
            else:
                out[key] = self.walk(value, names=(cls.__name__, key) not in _HARDWARE,
                                     is_version=key.endswith("version"))
        return out

    def walk(self, obj: Any, names: bool = True, is_version: bool = False) -> Any:
        if isinstance(obj, dict):
            return {k: self.walk(v, names, k.endswith("version")) for k, v in obj.items()
                    if k.lower() not in _IDENTIFYING_KEYS}
        if isinstance(obj, list):
            return [self.walk(v, names, is_version) for v in obj]
        if isinstance(obj, str):
            return self.text(obj, is_version=is_version, names=names)
        return obj

    def text(self, s: str, is_version: bool = False, names: bool = True) -> str:
        for path, replacement in self.interpreters:
            if path in s:
                s = s.replace(path, replacement)
        if self.home and self.home in s:
            s = s.replace(self.home, "~")
        for pattern in _HOME_PATTERNS:
            s = pattern.sub("~", s)
        s = _GPU_UUID.sub("GPU-<uuid>", s)
        s = _UUID.sub("<uuid>", s)
        s = _MAC.sub("<mac>", s)
        s = _SERIAL.sub(r"\1<serial>", s)
        if not is_version:  # "10.0.22631.4602" style versions are not addresses
            s = _IPV4.sub("<ip>", s)
            s = _IPV6.sub("<ip>", s)
        for name in self.names if names else ():
            s = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "<redacted>", s,
                       flags=re.IGNORECASE)
        return s


# ------------------------------------------------------------------------------ saving ---

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
            raise ReportExistsError(path)
        folder = path.parent
        if not folder.is_dir():
            raise ReportSaveError(path, "report.error.no-folder", folder=folder)
    except OSError as exc:  # a name over 255 bytes, a loop of links
        raise _save_error(path, exc, path.parent) from None
    return path


def _writable_dir(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


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
            raise ReportExistsError(path)
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
        raise ReportExistsError(path) from exc
    except OSError:
        if path.exists():
            raise ReportExistsError(path) from None
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


# ----------------------------------------------------------------------------- reading ---

def read_toml(path: Path | str, max_bytes: int = MAX_REPORT_BYTES) -> dict[str, Any]:
    """A TOML file read defensively: regular file, size cap, UTF-8, syntax error with its line."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ReportReadError(path, "report.error.not-found") from None
    except OSError as exc:
        raise ReportReadError(path, raw=exc.strerror or str(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise ReportReadError(path, "report.error.is-dir")
    if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
        raise ReportReadError(path, "report.error.not-regular")
    if info.st_size > max_bytes:
        raise ReportReadError(path, "report.error.too-big", size=_size(info.st_size),
                              limit=_size(max_bytes))
    try:
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ReportReadError(path, raw=exc.strerror or str(exc)) from None
    if len(raw) > max_bytes:
        raise ReportReadError(path, "report.error.too-big", size=_size(len(raw)),
                              limit=_size(max_bytes))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ReportReadError(path, "report.error.not-utf8", line=line) from None
    text = text.removeprefix("\ufeff")  # Windows Notepad's byte-order mark
    line = _too_deep(text)
    if line is not None:
        raise ReportReadError(path, "report.error.key-too-long", line=line)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ReportReadError(path, "report.error.toml", error=str(exc)) from None
    except RecursionError:
        raise ReportReadError(path, "report.error.toml", error="nested too deeply") from None
    except ValueError:  # a whole number of thousands of digits: Python refuses to convert it
        raise ReportReadError(path, "report.error.toml", error="a number is far too long") from None
    return clean_strings(data)


def created_text(value: Any) -> str | None:
    """When a report was saved, for a reader: in UTC where the time can be moved there, else
    with its own offset named (never a `+08:00` time labelled UTC). None for anything else.

    Written digit by digit: strftime gives year 1 as "1", and moving 0001-01-01 00:00+08:00 to
    UTC falls before year 1 (OverflowError)."""
    if not isinstance(value, dt.datetime):
        return None
    zone = ""
    if value.tzinfo is not None:
        try:
            value, zone = value.astimezone(dt.timezone.utc), " UTC"
        except (OverflowError, ValueError):
            offset = value.utcoffset() or dt.timedelta(0)
            minutes = int(offset.total_seconds()) // 60
            sign = "-" if minutes < 0 else "+"
            zone = f" UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
            f"{value.hour:02d}:{value.minute:02d}{zone}")


# The TOML parser's time grows with the square of a dotted key's length (80 kB of "a.a.a…" takes
# 32 s): such keys are refused before parsing. Ours are at most 4 deep and 40 characters long.
_MAX_KEY_DOTS = 16
_MAX_KEY_CHARS = 200


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY = re.compile(rf"\s*(\[\[?)?\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*(=|\]\]?)")


def _too_deep(text: str) -> int | None:
    """The first line whose key is deeper or longer than any report needs, or None.

    Only lines that start with a key (`a.b = …`, `[a.b]`) count: a string in a multi-line
    array is a value, whatever it holds."""
    for number, line in enumerate(text.splitlines(), start=1):
        match = _KEY.match(line)
        if match is None or (match.group(1) is None) != (match.group(3) == "="):
            continue
        key = match.group(2)
        if key.count(".") > _MAX_KEY_DOTS or len(key) > _MAX_KEY_CHARS:
            return number
    return None


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} kB"


def read_report(path: Path | str) -> dict[str, Any]:
    """The raw TOML of a report; ReportReadError when it cannot be read at all."""
    return read_toml(path, MAX_REPORT_BYTES)


def load_report(path: Path | str, knowledge: Any = None) -> dict[str, Any]:
    """A report that passed validate_report; ReportReadError / ReportInvalidError otherwise."""
    data = read_report(path)
    problems = validate_report(data, knowledge)
    if problems:
        raise ReportInvalidError(path, problems)
    return data


# -------------------------------------------------------------------------- validation ---
# The report's records, declared once (wizard.schema): the [machine] table is wizard.probe.model's
# Machine, the [answers] table wizard.answers' own rules; the rest is declared here.

from wizard.probe.model import Machine  # noqa: E402  (here, not at the top: the validator is one piece)
from wizard.schema import SHARED, check_record, rule, shown  # noqa: E402


@dataclasses.dataclass(frozen=True)
class ReportFinding:
    id: str = dataclasses.field(metadata=rule(pattern=_FINDING_ID.pattern, what="a kebab-case id"))
    severity: str = dataclasses.field(metadata=rule(choices=SEVERITIES))
    title: str
    detail: str
    fix: str | None = None


@dataclasses.dataclass(frozen=True)
class ReportGpu:
    name: str
    vram_gb: float
    why: str
    price: float | None = dataclasses.field(default=None, metadata=rule(low=0))
    currency: str | None = None


@dataclasses.dataclass(frozen=True)
class ReportPlatform:
    name: str
    url: str
    why: str


@dataclasses.dataclass(frozen=True)
class ReportRecommendation:
    verdict: str = dataclasses.field(metadata=rule(choices=VERDICTS))
    headline: str
    reasons: tuple[str, ...]
    torch_command: str | None = None
    gpus: tuple[ReportGpu, ...] = ()
    platforms: tuple[ReportPlatform, ...] = ()


@dataclasses.dataclass(frozen=True)
class Report:
    """What a report must hold besides `schema`, `created` and `[answers]`, which are checked
    on their own (a version message, a date-time with a zone, rules that need the content)."""

    tool_version: str
    language: str = dataclasses.field(metadata=rule(choices=LANGUAGES))
    redacted: bool
    machine: Machine
    findings: tuple[ReportFinding, ...]
    recommendation: ReportRecommendation


# The order problems are listed in: the order of the report's keys.
_REPORT_KEYS = ("schema", "tool_version", "created", "language", "redacted", "answers", "machine",
                "findings", "recommendation")


def validate_report(data: Any, knowledge: Any = None) -> list[str]:
    """Every problem with the report, each with its key path; [] when valid."""
    if not isinstance(data, dict):
        return ["(top level): expected a table"]
    schema = data.get("schema")
    if schema is None:
        return ["schema: missing (this is not a gpu-wizard report)"]
    if not isinstance(schema, str):
        return [f"schema: {SHARED.wrong_type('text', schema)}"]
    if schema != SCHEMA:
        if schema.startswith(SCHEMA_PREFIX):
            return [f"schema: {shown(schema)} is a version this gpu-wizard does not read "
                    f"(it reads {SCHEMA!r}); update gpu-wizard"]
        return [f"schema: {shown(schema)} is not a gpu-wizard report schema"]
    problems = [(p.path[0], p.dotted()) for p in check_record(Report, data, SHARED)]
    created = data.get("created")
    if created is None:
        problems.append(("created", "created: missing"))
    elif not isinstance(created, dt.datetime) or created.tzinfo is None:
        problems.append(("created", "created: expected a TOML date-time with a time zone, "
                                    "e.g. 2026-11-30T12:00:00Z"))
    if "answers" not in data:
        problems.append(("answers", "answers: missing"))
    else:
        answers = data["answers"]
        problems += [("answers", p) for p in answers_problems(answers, "answers", knowledge)]
        if isinstance(answers, dict):
            problems += [("answers", f"answers.{key}: missing")
                         for key in ("need_gpu", "has_nvidia", "form_factor", "goal") if key not in answers]
    return [text for _key, text in sorted(problems, key=lambda item: _REPORT_KEYS.index(item[0]))]


# ------------------------------------------------------------------------------ roster ---

SUMMARY_COLUMNS = ("file", "ready", "gpu", "vram_gb", "torch", "torch_gpu", "verdict", "errors",
                   "replay", "duplicate_of")
# What the terminal table shows as columns; `replay` and `duplicate_of` mark the file's cell
# there (neither row is counted as a student).
TABLE_COLUMNS = SUMMARY_COLUMNS[:8]


def _gb_text(value: float) -> str:
    # As people say sizes: 12, 10.6, 140 (a driver's 11.99 is a 12 GB card).
    return f"{round(value):d}" if value >= 10 else f"{round(value, 1):g}"


def summarize(reports: Iterable[tuple[str, dict[str, Any]]],
              seen: dict[str, str] | None = None) -> list[dict[str, str]]:
    """One row per (name, valid report): who is ready, which GPU, torch's state, the verdict.

    A report saved from a replay (`gpu-wizard --machine REPORT`) has replay "yes"; a report
    identical to an earlier one in the list (the same file sent twice, under two names) names
    that one in duplicate_of. Neither is another student: see `counted`. `seen` carries the
    earlier reports over from one call to the next (a roster summarized file by file).
    """
    rows: list[dict[str, str]] = []
    seen = {} if seen is None else seen
    for name, report in reports:
        row = _summary_row(name, report)
        key = _identity(report)
        if key is not None and key in seen:
            row["duplicate_of"] = seen[key]
        elif key is not None:
            seen[key] = name
        rows.append(row)
    return rows


def counted(row: dict[str, str]) -> bool:
    """Whether a roster row is a student of its own: not a replay, not a copy of another row."""
    return row.get("replay") != "yes" and not row.get("duplicate_of")


def _identity(report: Any) -> str | None:
    """The same for two reports with the same content: the same answers and machine, saved in
    the same second, each probe taking the same milliseconds. Two students' computers do not
    produce that (not even a lab of identical ones); one file sent twice does. The redacted
    reports hold nothing else that could tell one computer from another, so two different
    checks of one computer stay two rows."""
    import hashlib
    import json

    try:
        text = json.dumps(report, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def unusable_row(name: str, state: str, data: Any = None) -> dict[str, str]:
    """The roster row of a report that is "invalid" (read, but fails validation) or
    "unreadable": the student stays on the roster. An invalid report shows what it can."""
    row = {column: "" for column in SUMMARY_COLUMNS}
    if isinstance(data, dict):
        try:
            row = _summary_row(name, data)
        except Exception:  # a hand-edited file can hold anything; the row is best effort
            pass
    return {**row, "file": name, "ready": state, "duplicate_of": ""}


def torch_has_error(findings: list[Any]) -> bool:
    return any(isinstance(f, dict) and str(f.get("id", "")).startswith("torch-")
               and f.get("severity") == "error" for f in findings)


def torch_uses_gpu(torch: dict[str, Any], findings: list[Any]) -> bool:
    """PyTorch can really use the GPU. "Available" is not "usable": a build without the GPU's
    kernels reports cuda_available and fails at the first kernel (an error finding)."""
    available = bool(torch.get("cuda_available") or torch.get("mps_available") or torch.get("xpu_available"))
    tests_failed = any(isinstance(test, dict) and test.get("status") != "ok" for test in torch.get("gpu_tests", []))
    return available and not tests_failed and not torch_has_error(findings)


def _summary_row(name: str, report: dict[str, Any]) -> dict[str, str]:
    machine = report.get("machine", {})
    gpus = machine.get("gpus", [])
    best = max(gpus, key=lambda g: (g.get("vendor") == "nvidia", g.get("vram_gb") or 0),
               default=None)
    torch = machine.get("torch") or {}
    rec = report.get("recommendation", {})
    errors = sum(1 for f in report.get("findings", []) if f.get("severity") == "error")
    torch_gpu = torch_uses_gpu(torch, report.get("findings", []))
    verdict = rec.get("verdict", "")
    if torch.get("status") == "ok":
        torch_text = f"{torch.get('version', '?')} ({torch.get('build', '?')})"
    else:
        torch_text = torch.get("status", "unknown")
    # Ready = can start the course today: torch works, nothing is broken, and either its GPU
    # works or this student does not need one.
    ready = (errors == 0 and torch.get("status") == "ok"
             and (torch_gpu or verdict == "no-gpu-needed") and verdict != "fix-setup")
    vram = best.get("vram_gb") if best else None
    row = {
        "file": name,
        "ready": "yes" if ready else "no",
        "gpu": best.get("name", "") if best else "",
        "vram_gb": _gb_text(vram) if isinstance(vram, (int, float)) and not isinstance(vram, bool) else "",
        "torch": torch_text,
        "torch_gpu": "yes" if torch_gpu else "no",
        "verdict": verdict,
        "errors": str(errors),
        # Saved from `gpu-wizard --machine REPORT`: an earlier report's machine, not a new check.
        "replay": "yes" if isinstance(report.get("replay"), dict) else "no",
        "duplicate_of": "",
    }
    # An invalid report's row is best effort: a name that is a number, a verdict that is a table.
    return {key: value if isinstance(value, str) else "" for key, value in row.items()}
