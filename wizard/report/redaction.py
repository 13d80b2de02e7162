"""Redaction: a report with nothing that identifies a person or a machine (host and user
names, home folders, GPU UUIDs, serials, MAC and IP addresses)."""

from __future__ import annotations

import copy
import getpass
import os
import re
import socket
from collections.abc import Iterable
from typing import Any

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
    # socket.gethostname is what platform.node() reads on every OS, without loading platform.
    for get in (socket.gethostname, getpass.getuser):
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


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """data[key] when it is a table, else an empty one: a hand-edited report may hold anything."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _spared_words(report: dict[str, Any]) -> set[str]:
    """Names too generic, or too much part of the hardware's own names, to scrub: a host
    called `intel` identifies nobody, and scrubbing it would blank "Intel(R) UHD Graphics"."""
    from wizard.probe.model import schema_words

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
            spared.update(word.lower() for word in re.findall(r"[\w+-]+", text))
    return spared


def _interpreter_paths(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, replacement) for every interpreter path in the report and its environment's
    folder, longest first: /data/bob/env/bin/python → python, /data/bob/env → <env>."""
    machine = _table(report, "machine")
    torch = _table(machine, "torch")
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
