"""Redaction: a report with nothing that identifies a person or a machine (host, user and full
names, home and other folders of the user, GPU UUIDs, serials, MAC and IP addresses)."""

from __future__ import annotations

import copy
import dataclasses
import getpass
import os
import re
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from wizard.probe.facts import Machine, field_kind, schema_words, to_dict

if TYPE_CHECKING:
    from wizard.diagnosis.findings import Finding

_Record = TypeVar("_Record")

# What stands in for what was removed. Their words are spared as names (_GENERIC_NAMES), or a
# user called "folder" would turn "<folder>" into "<<redacted>>".
REDACTED = "<redacted>"
FOLDER = "<folder>"
ENV = "<env>"

# Keys whose value identifies a machine or person wherever they appear.
_IDENTIFYING_KEYS = frozenset({
    "hostname", "host", "uuid", "serial", "serial_number", "board_serial", "product_serial",
    "product_uuid", "machine_id", "mac", "mac_address", "ip", "ip_address", "username", "user",
})
# Keys that hold an interpreter's path, in any table: [machine.torch] and its lists (other_pythons,
# not_run, asked), [install], and whatever table comes later.
_INTERPRETER_KEYS = frozenset({"interpreter", "python", "asked"})
# Host and user names too generic to identify anyone, and too common as words to blank out
# of the text (a host called "debian" must not erase the OS name).
_GENERIC_NAMES = frozenset({
    "root", "user", "admin", "administrator", "nvidia", "cuda", "torch", "python", "home", "users",
    "default", "public", "guest", "runner", "jovyan", "colab", "kaggle", "gpu", "server", "desktop",
    "laptop", "workstation", "linux", "ubuntu", "debian", "fedora", "centos", "rocky", "arch",
    "archlinux", "manjaro", "kali", "mint", "pop-os", "raspberrypi", "localhost", "wsl", "docker",
    "redacted", "folder", "env", "uuid", "serial", "mac",
})
# A login of digits only (a student number) is a name from this many digits on; shorter ones are
# too likely to be some count or model number in the text.
_MIN_NUMERIC_LOGIN = 4
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

# ---- folders --------------------------------------------------------------------------------
# Shared system places: a path under one names software every machine has, not a person, and
# is kept whole. POSIX names are case-sensitive; Windows ones (also as WSL sees them, /mnt/c/…)
# are not. Checked against a path with '/' for every separator.
_SHARED_FOLDERS = re.compile(r"""
    (?: /(?: usr | opt | bin | sbin | lib | lib32 | lib64 | libx32 | etc | boot | proc | sys | dev
           | run | snap | nix/store | var/(?:lib|log|run|cache) | kaggle
           | System | Library | Applications                         # /opt/homebrew, /usr/local too
           | pytorch )                     # PyTorch's build tree, as its warnings quote it
      | (?i: (?:[a-z]: | /mnt/[a-z]) /(?: Windows | Program\ Files(?:\ \(x86\))? | ProgramData
                                         | Python\d* ) )
    ) (?:/|$)""", re.VERBOSE)
# One name in a path: no separator, blank or quote, none of the characters Windows forbids in
# names, no ':' (a line number, a PATH list) and no CJK punctuation ("（/data/x）：…").
_NAME = r"[^\\/\s\"'`<>|*?:;\u3000-\u303f\uff00-\uffef]+"
# A folder's name may hold spaces ("My Courses") when a separator follows it; a last name ends
# at the first blank, as a path in a sentence does. A word that starts a path of its own ("~/x",
# "<env>/lib", "./run.py") is no part of the name before it.
_FOLDER_NAME = rf"{_NAME}(?: (?![~<.]){_NAME}){{0,3}}"
# '/', '\', or '\\' (a Windows path written escaped).
_SEP = r"(?:\\\\|\\|/)"
# An absolute path: a root, at least one folder, and the last name if any. It must not start
# right after a letter, digit, '.', '~', '-', '>', '…' or another separator: "and/or", "8/16",
# "./run.py", "~/x", "<env>/lib", "…/whl/cu126" and the "//host/path" of a URL are no folders;
# a file:/// URL's path is one.
_ABSOLUTE_PATH = re.compile(
    r"(?:(?<=file://)|(?<![A-Za-z0-9_.~>\-\\/\u2026]))"
    rf"(?P<root>[A-Za-z]:{_SEP}|\\\\|/)"          # C:\  \\server\share  /
    rf"(?P<folders>(?:{_FOLDER_NAME}{_SEP})+)"
    rf"(?P<last>{_NAME})?")

# ---- names ----------------------------------------------------------------------------------
_LETTER = re.compile(r"[^\W\d_]")
# A token that names a file or folder: it holds a separator, or pieces joined by '-', '_' or
# '.' ("cs231n-ana-lopez", "alopez_hw1"). Inside one, a name counts between such joints.
_PATH_LIKE = re.compile(r"[\\/]|[^\W_][-_.][^\W_]")
_SEPARATOR = re.compile(r"[\\/]")
_TOKEN = re.compile(r"\S+")
# Where a name may start and end: in prose a whole word, hyphenated words included (today's
# rule: a host "zenbook" leaves "alice-zenbook" to the whole name); in a path-like token any
# letter or digit ends it, so '-', '_' and '.' do not hide a name.
_IN_PROSE = (r"(?<![\w-])", r"(?![\w-])")
_IN_PATHS = (r"(?<![^\W_])", r"(?![^\W_])")
# A number is a name only on its own: not part of a version ("1.20231234", "20231234.5").
_NOT_IN_VERSION = (r"(?<!\d\.)", r"(?!\.\d)")


def local_identifiers() -> list[str]:
    """This computer's host and user names, which may appear in probe messages."""
    names = []
    # socket.gethostname is what platform.node() reads on every OS, without loading platform.
    for get in (socket.gethostname, getpass.getuser):
        try:
            names.append(get())
        except Exception:  # getuser raises when there is no user name at all (containers)
            pass
    return [n for n in names if n]


def current_folders() -> list[str]:
    """The folder gpu-wizard runs in, as given and with links resolved: a student's project
    folder often carries a student number or name (/data/20231234/cs231n-ana-lopez)."""
    try:
        cwd = os.getcwd()
    except OSError:  # the folder was deleted while we ran
        return []
    folders = [cwd, os.path.realpath(cwd)]
    # The shell's name for it, when reached through a link: getcwd gives the resolved one.
    shell = os.environ.get("PWD")
    if shell and os.path.isabs(shell) and os.path.realpath(shell) == folders[1]:
        folders.append(shell)
    return list(dict.fromkeys(folders))


def local_full_name() -> str:
    """The user's full name as the account records it (GECOS); "" where there is none."""
    try:
        import pwd  # POSIX only: on Windows the ImportError is the answer (caught below)

        return pwd.getpwuid(os.getuid()).pw_gecos or ""
    except Exception:  # no pwd on Windows; KeyError for a uid without an entry (containers)
        return ""


def name_words(full_name: str) -> list[str]:
    """"Ana Lopez,Room 4,," → ["Ana", "Lopez"]: the name's words of three letters or more
    (GECOS puts the name before the first comma; "de", "Li" are too short to be safe to scrub)."""
    return re.findall(r"[^\W\d_]{3,}", full_name.split(",")[0])


def redact_report(report: dict[str, Any], identifiers: Iterable[str] | None = None,
                  folders: Iterable[str] | None = None, full_name: str | None = None) -> dict[str, Any]:
    """A copy with host/user names, home and other folders of the user, UUIDs, serials, MAC and
    IP addresses removed, from every table the report holds ([install] and later ones too).

    `identifiers` are extra names to scrub (default: this computer's host and user names);
    the machine's own hostname and user names found in home paths are always scrubbed. A login
    of digits only counts from _MIN_NUMERIC_LOGIN digits. `folders` are written as <folder>
    (default: the current folder); `full_name`'s words are scrubbed inside file and folder names
    only, never in prose (default: the account's full name).
    Redaction goes by field: closed sets and forms (os, vendor, status, "8.6") and the facts a
    probe reads (versions, GPU and CPU names) are never name-scrubbed, so a user called
    `darwin` or `intel` leaves a report that still validates and still says what the hardware is.
    Interpreters are kept by name only, in every text, and their environment's folder as <env>.
    """
    out = _scrubber(report, identifiers, folders, full_name).report(report)
    out["redacted"] = True
    return out


def redact_machine(machine: Machine, findings: Iterable[Finding] = (), identifiers: Iterable[str] | None = None,
                   folders: Iterable[str] | None = None, full_name: str | None = None) -> tuple[Machine, list[Finding]]:
    """The machine and its findings as a redacted report holds them (redact_report's rules, field
    by field, and its arguments), as a Machine and Findings: what `check` prints or pastes, with
    no trip through a table and back. The names to scrub are read from the pair as one report's."""
    findings = list(findings)
    view = {"machine": to_dict(machine), "findings": [to_dict(f) for f in findings]}
    scrubber = _scrubber(view, identifiers, folders, full_name)
    return scrubber.record(machine), [scrubber.finding(f) for f in findings]


def _scrubber(report: dict[str, Any], identifiers: Iterable[str] | None, folders: Iterable[str] | None,
              full_name: str | None) -> _Scrubber:
    """The scrubber for one report: the names and folders redact_report's docstring lists."""
    names = set(local_identifiers() if identifiers is None else identifiers)
    machine = report.get("machine")
    if isinstance(machine, dict) and isinstance(machine.get("hostname"), str):
        names.add(machine["hostname"])
    names |= _users_in_paths(report)
    spared = _spared_words(report)
    names = {n for n in (n.strip() for n in names if isinstance(n, str))
             if _is_name(n) and n.lower() not in spared}
    words = {w for w in name_words(local_full_name() if full_name is None else full_name)
             if w.lower() not in spared}
    home = os.path.expanduser("~")
    own = _own_folders(current_folders() if folders is None else folders, home)
    return _Scrubber(names, words, _interpreter_paths(report), own, home)


redact = redact_report  # the short name callers use; build_report's `redact=` flag shadows it there


def interpreter_name(path: str) -> str:
    """/home/alice/venv/bin/python3.11 → python3.11 (Windows paths too)."""
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1] or path


def _is_name(name: str) -> bool:
    """Long enough to be someone's: three characters with a letter, or a numeric login."""
    if name.isdigit():
        return len(name) >= _MIN_NUMERIC_LOGIN
    return len(name) >= 3 and _LETTER.search(name) is not None


# Report keys that are ours alone (no text from the machine or the user): only folders are
# taken out, should a hand-made file have put one there.
_OURS = frozenset({"schema", "tool_version", "created", "language", "redacted", "answers"})
# Facts a probe reads from hardware and software: never name-scrubbed (a user "rtx" must not
# turn "RTX 4060" into "<redacted> 4060"). The first set is kept as it is but for folders, which
# no such fact holds; the second may be free-form enough to hold an address or serial, so those
# patterns still apply.
_FACTS = frozenset({
    ("NvidiaInfo", "reason"), ("NvidiaInfo", "nvml_version"), ("NvidiaInfo", "kernel_module"),
    ("Gpu", "kernel_driver"), ("Gpu", "bus_id"), ("GpuTest", "device"), ("OtherPython", "torch_version"),
    ("NotRunPython", "torch_version"),
    ("TorchInfo", "version"), ("TorchInfo", "hip_version"), ("TorchInfo", "xpu_version"),
    ("TorchInfo", "arch_list"), ("TorchInfo", "python_arch"), ("TorchInfo", "cpu_capability"),
    ("TorchInfo", "libraries"), ("TorchInfo", "companions"), ("Benchmark", "dtype"),
    ("Benchmark", "gpu_backend"), ("ProbeNote", "name"), ("Machine", "arch"), ("Machine", "python_version"),
    # Which library variables were set: their names only (LD_LIBRARY_PATH, CUDA_HOME), never a value;
    # and the packages beside torch, "name==version" (a four-part version is no IP address).
    ("TorchInfo", "env_vars"), ("TorchInfo", "ld_library_path_cuda"), ("TorchInfo", "packages"),
})
_HARDWARE = frozenset({
    ("Machine", "os_version"), ("Machine", "cpu_model"), ("Gpu", "name"), ("TorchDevice", "name"),
    ("GpuTest", "name"), ("Benchmark", "gpu_name"), ("TorchInfo", "visible_devices_env"),
})
# Where a text's names are scrubbed: everywhere; in file and folder names (our own prose around
# catalog names, where a user "lab" must not blank the word); only in a token with a separator,
# what is left of a path (hardware names and facts, which hold none: "RTX" stays for a user "rtx").
_EVERYWHERE, _IN_NAMES, _IN_FOLDERS = "everywhere", "names", "folders"


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """data[key] when it is a table, else an empty one: a hand-edited report may hold anything."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _spared_words(report: dict[str, Any]) -> set[str]:
    """Names too generic, or too much part of the hardware's own names, to scrub: a host
    called `intel` identifies nobody, and scrubbing it would blank "Intel(R) UHD Graphics"."""
    spared = set(_GENERIC_NAMES) | schema_words()
    machine = _table(report, "machine")
    texts = [machine.get("os_version"), machine.get("cpu_model"), machine.get("arch")]
    for gpu in machine.get("gpus") or []:
        texts.append(gpu.get("name") if isinstance(gpu, dict) else None)
    torch = _table(machine, "torch")
    for device in torch.get("devices") or []:
        texts.append(device.get("name") if isinstance(device, dict) else None)
    rec = _table(report, "recommendation")
    for pick in rec.get("gpus") or []:
        texts.append(pick.get("name") if isinstance(pick, dict) else None)
    for text in texts:
        if isinstance(text, str):
            spared.add(text.lower())
            # A path is nobody's hardware: words in one planted there must not spare the login.
            words = [t for t in text.split() if not _ABSOLUTE_PATH.search(t) and not t.startswith("~")]
            spared.update(word.lower() for word in re.findall(r"[\w+-]+", " ".join(words)))
    return spared


def _interpreter_paths(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, replacement) for every interpreter path in the report and its environment's
    folder, longest first: /data/bob/env/bin/python → python, /data/bob/env → <env>."""
    paths = [path for key, value in report.items() if key not in _OURS for path in _interpreters_in(value)]
    pairs: dict[str, str] = {}
    for path in paths:
        if not re.search(r"[\\/]", path):
            continue
        pairs[path] = interpreter_name(path)
        seps = [m.start() for m in re.finditer(r"[\\/]", path)]
        in_bin = len(seps) >= 2 and path[seps[-2] + 1:seps[-1]].lower() in ("bin", "scripts")
        prefix = path[:seps[-2] if in_bin else seps[-1]]
        # /usr, /usr/local, /opt/conda, C:\Python312: shared system places, not anyone's folder.
        if len([p for p in re.split(r"[\\/]+", prefix) if p and not p.endswith(":")]) >= 3:
            pairs[prefix] = ENV
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def _interpreters_in(obj: Any, key: str | None = None) -> Iterator[str]:
    """Every string under an interpreter key (_INTERPRETER_KEYS), lists of them included."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _interpreters_in(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _interpreters_in(v, key)
    elif isinstance(obj, str) and key in _INTERPRETER_KEYS:
        yield obj


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


# ---- folders --------------------------------------------------------------------------------

def _parts(path: str) -> list[str]:
    """The names in a path, its drive ("C:") left out."""
    return [p for p in re.split(r"[\\/]+", path) if p and not re.fullmatch(r"[A-Za-z]:", p)]


def _is_windows(path: str) -> bool:
    return re.match(r"[A-Za-z]:", path) is not None


def _is_shared(folder: str) -> bool:
    return _SHARED_FOLDERS.match(re.sub(r"[\\/]+", "/", folder)) is not None


def _is_within(inner: str, outer: str) -> bool:
    """`inner` is `outer` or a folder in it (by names: separators and, on Windows, case aside)."""
    fold = str.lower if _is_windows(outer) else str
    a, b = [fold(p) for p in _parts(inner)], [fold(p) for p in _parts(outer)]
    return a[:len(b)] == b


def _own_folders(folders: Iterable[str], home: str) -> list[re.Pattern[str]]:
    """A pattern for each folder of the user to write as <folder>, longest first. Left out: the
    home folder and those above it ("~" says it better, and "/home" would keep the user's name
    after it), folders right under the root (the general rule keeps their last name), and shared
    system places (a container's /usr/src/app is nobody's)."""
    patterns = []
    for folder in sorted({f for f in folders if isinstance(f, str)}, key=len, reverse=True):
        if len(_parts(folder)) < 2 or _is_shared(folder) or _is_within(home, folder):
            continue
        names = [re.escape(p) for p in re.split(r"[\\/]+", folder.rstrip("\\/"))]
        # The whole folder only: not "/data/ana" inside "/data/anagram", nor inside a longer path.
        patterns.append(re.compile(rf"(?<![\w.~-]){_SEP.join(names)}(?![\w-]|\.\w)",
                                   re.IGNORECASE if _is_windows(folder) else 0))
    return patterns


def _keep_last_name(m: re.Match[str]) -> str:
    """/data/20231234/cs231n/torch.py → <folder>/torch.py; a shared system path stays whole."""
    folders = m.group("folders")
    if m.group("root") != "\\\\" and _is_shared(m.group("root") + folders):
        return m.group(0)
    sep = re.search(rf"{_SEP}$", folders)
    assert sep is not None  # every folder ends with one
    last = m.group("last")
    if last:
        return FOLDER + sep.group() + last
    # "/data/ana/": the last folder is the last name
    return FOLDER + sep.group() + re.split(_SEP, folders)[-2] + sep.group()


# ---- the scrubber ---------------------------------------------------------------------------

def _name_pattern(names: Iterable[str], edges: tuple[str, str]) -> re.Pattern[str] | None:
    """One pattern for all `names`, longest first, each within `edges`; numbers kept out of
    versions."""
    ordered = sorted(names, key=len, reverse=True)
    if not ordered:
        return None
    alternatives = "|".join(
        _NOT_IN_VERSION[0] + re.escape(n) + _NOT_IN_VERSION[1] if n.isdigit() else re.escape(n)
        for n in ordered)
    return re.compile(f"{edges[0]}(?:{alternatives}){edges[1]}", re.IGNORECASE)


class _Scrubber:
    def __init__(self, names: set[str], words: set[str], interpreters: list[tuple[str, str]],
                 folders: list[re.Pattern[str]], home: str):
        self.interpreters = interpreters
        self.folders = folders
        self.home = home if len(home) > 3 else None
        # Numbers apart, since a version field keeps them (a login "2024" is no reason to touch
        # "2024.1"); the full name's words only inside file and folder names ("this will install"
        # stays for a user called Will).
        self.prose = (_name_pattern([n for n in names if not n.isdigit()], _IN_PROSE),
                      _name_pattern([n for n in names if n.isdigit()], _IN_PROSE))
        self.paths = (_name_pattern([n for n in names if not n.isdigit()] + sorted(words), _IN_PATHS),
                      _name_pattern([n for n in names if n.isdigit()], _IN_PATHS))

    def report(self, report: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in report.items():
            if key.lower() in _IDENTIFYING_KEYS:
                continue
            if key in _OURS:
                out[key] = self.folders_only(value)
            elif key == "machine" and isinstance(value, dict):
                out[key] = self.table(value, Machine)
            elif key == "findings" and isinstance(value, list):
                out[key] = [{k: self.finding_field(k, v) for k, v in f.items()}
                            if isinstance(f, dict) else self.walk(f) for f in value]
            elif key == "recommendation":
                # Our own prose around catalog names: a user called "lab" must not blank the word.
                out[key] = self.walk(value, names=_IN_NAMES)
            else:  # [install], [replay] and any table a later version adds: all of it
                out[key] = self.walk(value)
        return out

    def table(self, obj: dict[str, Any], cls: type) -> dict[str, Any]:
        """A table of the machine (`cls`: the record it holds, wizard.probe.facts)."""
        return {key: self.field(cls, key, value) for key, value in obj.items()
                if key.lower() not in _IDENTIFYING_KEYS}

    def record(self, obj: _Record) -> _Record:
        """A record of the machine (the Machine, a Gpu...) scrubbed as its table is: the same
        rule for each field; an identifying one (host name, UUID) is left out, as from the table."""
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(obj):  # type: ignore[arg-type]
            value = getattr(obj, f.name)
            if value is None:
                continue
            changes[f.name] = None if f.name.lower() in _IDENTIFYING_KEYS else self.field(type(obj), f.name, value)
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]

    def finding(self, finding: Finding) -> Finding:
        return dataclasses.replace(finding, **{f.name: self.finding_field(f.name, getattr(finding, f.name))
                                               for f in dataclasses.fields(finding)})

    def finding_field(self, key: str, value: Any) -> Any:
        return self.folders_only(value) if key in ("id", "severity") else self.walk(value)

    def field(self, cls: type, key: str, value: Any) -> Any:
        """One field of a machine's record (`cls`), in a table or a dataclass."""
        kind, inner = field_kind(cls, key)
        if kind == "fixed" or (cls.__name__, key) in _FACTS:
            # A closed set or a fact never holds a folder: taking one out changes no real value.
            return self.folders_only(value)
        if kind == "table" and inner is not None:
            if isinstance(value, (list, tuple)):
                return type(value)(self.inner(v, inner) for v in value)
            return self.inner(value, inner)
        if key == "interpreter" and isinstance(value, str):
            # By name only, the README's promise; a file name, not prose.
            return self.text(interpreter_name(value), names=_IN_NAMES)
        return self.walk(value, names=_IN_FOLDERS if (cls.__name__, key) in _HARDWARE else _EVERYWHERE,
                         is_version=key.endswith("version"))

    def inner(self, value: Any, cls: type) -> Any:
        """A table or record inside another (a GPU, [machine.torch]); anything else is walked."""
        if isinstance(value, dict):
            return self.table(value, cls)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self.record(value)
        return self.walk(value)

    def folders_only(self, obj: Any) -> Any:
        """Folders out, and names inside what is left of a path; nothing else touched."""
        if isinstance(obj, dict):
            return {k: self.folders_only(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.folders_only(v) for v in obj)
        if isinstance(obj, str):
            return self.names_in(self.folders_in(obj), _IN_FOLDERS)
        return copy.deepcopy(obj)

    def walk(self, obj: Any, names: str = _EVERYWHERE, is_version: bool = False) -> Any:
        if isinstance(obj, dict):
            return {k: self.walk(v, names, k.endswith("version")) for k, v in obj.items()
                    if k.lower() not in _IDENTIFYING_KEYS}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.walk(v, names, is_version) for v in obj)
        if isinstance(obj, str):
            return self.text(obj, is_version=is_version, names=names)
        return obj

    def text(self, s: str, is_version: bool = False, names: str = _EVERYWHERE) -> str:
        s = self.folders_in(s)
        s = _GPU_UUID.sub("GPU-<uuid>", s)
        s = _UUID.sub("<uuid>", s)
        s = _MAC.sub("<mac>", s)
        s = _SERIAL.sub(r"\1<serial>", s)
        if not is_version:  # "10.0.22631.4602" style versions are not addresses
            s = _IPV4.sub("<ip>", s)
            s = _IPV6.sub("<ip>", s)
        return self.names_in(s, names, numbers=not is_version)

    def folders_in(self, s: str) -> str:
        """Most precise first: an interpreter by its name and its environment as <env>, the
        current folder as <folder>, home as ~; then any other folder of the user's, keeping
        the last name (/data/x/torch.py → <folder>/torch.py)."""
        for path, replacement in self.interpreters:
            if path in s:
                s = s.replace(path, replacement)
        for pattern in self.folders:
            s = pattern.sub(FOLDER, s)
        if self.home and self.home in s:
            s = s.replace(self.home, "~")
        for pattern in _HOME_PATTERNS:
            s = pattern.sub("~", s)
        return _ABSOLUTE_PATH.sub(_keep_last_name, s)

    def names_in(self, s: str, where: str, numbers: bool = True) -> str:
        """Names scrubbed where `where` says; numeric logins only when `numbers` (not in a
        version field)."""
        def chosen(pair: tuple[re.Pattern[str] | None, re.Pattern[str] | None]) -> list[re.Pattern[str]]:
            return [p for p in (pair[0], pair[1] if numbers else None) if p is not None]

        if where == _EVERYWHERE:
            for pattern in chosen(self.prose):
                s = pattern.sub(REDACTED, s)
        patterns = chosen(self.paths)
        if patterns:
            tokens = _SEPARATOR if where == _IN_FOLDERS else _PATH_LIKE
            s = _TOKEN.sub(_in_path_like(patterns, tokens), s)
        return s


def _in_path_like(patterns: list[re.Pattern[str]], path_like: re.Pattern[str]) -> Callable[[re.Match[str]], str]:
    """Scrub `patterns` in a token `path_like` finds a path in, leave others as they are."""
    def scrub(m: re.Match[str]) -> str:
        token = m.group()
        if path_like.search(token):
            for pattern in patterns:
                token = pattern.sub(REDACTED, token)
        return token
    return scrub
