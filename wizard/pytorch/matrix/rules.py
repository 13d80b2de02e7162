"""The compatibility rules: which compute capabilities a build's compiled GPU code runs on, and
how NVIDIA driver and release versions compare. Pure functions on strings; no data file."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version


def parse_cc(text: str) -> tuple[int, int] | None:
    """ "8.6" → (8, 6); None for anything else."""
    match = re.fullmatch(r"\s*(\d{1,2})\.(\d)\s*", str(text))
    return (int(match.group(1)), int(match.group(2))) if match else None


def arch_cc(entry: str) -> tuple[str, int, int, bool] | None:
    match = re.fullmatch(r"(sm|compute)_(\d+)(\d)([af]?)", entry)
    if not match:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3)), bool(match.group(4))


def arch_support(arch_list: tuple[str, ...] | list[str], cc: str | tuple[int, int]) -> str | None:
    """How a build with `arch_list` runs on compute capability `cc`.

    "sass": compiled code for it (sm_XY runs on X.Z when Z >= Y; sm_XYa/f only on X.Y itself);
    "ptx": only through the driver compiling PTX (compute_XY, any cc >= X.Y): slow first start;
    None: no kernels for this GPU ("no kernel image is available for execution on the device").
    """
    target = parse_cc(cc) if isinstance(cc, str) else cc
    if target is None:
        return None
    major, minor = target
    ptx = False
    for entry in arch_list:
        parsed = arch_cc(str(entry))
        if parsed is None:
            continue
        kind, a_major, a_minor, specific = parsed
        if kind == "sm":
            if a_major == major and (a_minor == minor if specific else a_minor <= minor):
                return "sass"
        elif (a_major, a_minor) <= (major, minor):
            ptx = True
    return "ptx" if ptx else None


def sm_name(cc: str) -> str:
    parsed = parse_cc(cc)
    return f"sm_{parsed[0]}{parsed[1]}" if parsed else str(cc)


def driver_tuple(version: str) -> tuple[int, ...] | None:
    parts = re.findall(r"\d+", str(version))
    if not parts or not re.match(r"^\s*\d", str(version)):
        return None
    return tuple(int(p) for p in parts[:3])


def driver_at_least(driver: str, floor: str) -> bool:
    have, need = driver_tuple(driver), driver_tuple(floor)
    if have is None or need is None:
        return False
    width = max(len(have), len(need))
    return have + (0,) * (width - len(have)) >= need + (0,) * (width - len(need))


def version_tuple(version: str) -> tuple[int, ...]:
    """A release's numbers, at most three: "2.8.0+cu128" → (2, 8, 0), "3.10" → (3, 10)."""
    try:
        return Version(version).release[:3]
    except InvalidVersion:  # not PEP 440 ("2.8.0-cu128" in a hand-edited report): its numbers
        return tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0])[:3])
