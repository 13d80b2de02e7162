"""The NVIDIA kernel module's own files: a driver version even when NVML cannot answer.

When the library and the loaded module disagree ("version mismatch") or NVML is missing
inside a container, /proc/driver/nvidia/version still says which module is loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

_NVRM = re.compile(r"NVRM version:\s+NVIDIA UNIX\s+(?P<kind>Open Kernel Module for \S+|\S+ Kernel Module)"
                   r"\s+(?P<version>\d+(?:\.\d+)+)")


def parse_proc_version(text: str) -> tuple[str, str] | None:
    """→ (driver version, "open" | "proprietary"), or None when the text is not a module banner."""
    match = _NVRM.search(text)
    if not match:
        return None
    kind = "open" if match.group("kind").startswith("Open") else "proprietary"
    return match.group("version"), kind


def loaded_module(root: Path = Path("/")) -> tuple[str, str] | None:
    try:
        text = (root / "proc/driver/nvidia/version").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    found = parse_proc_version(text)
    if found:
        return found
    try:
        version = (root / "sys/module/nvidia/version").read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return (version, "unknown") if re.fullmatch(r"\d+(?:\.\d+)+", version) else None


# The UEFI variable that says whether Secure Boot is on: 4 bytes of attributes, then 1 or 0.
SECURE_BOOT_VAR = "sys/firmware/efi/efivars/SecureBoot-8be5f61c-6a6e-4b2b-8d53-9ded8a3e0cdd"


def secure_boot(root: Path = Path("/")) -> bool | None:
    """Whether UEFI Secure Boot is on (Linux), which refuses kernel modules signed by a key the
    firmware does not know: True, False (on, off, or a BIOS boot without UEFI), None when unknown."""
    if not (root / "sys/firmware/efi").is_dir():
        return False if (root / "sys/firmware").is_dir() else None
    try:
        data = (root / SECURE_BOOT_VAR).read_bytes()[:8]
    except OSError:
        return None
    return data[4] == 1 if len(data) >= 5 else None
