"""Whose Python gpu-wizard may run to find the user's PyTorch (README, "What gpu-wizard runs").

Starting a Python runs more than its binary: every `.pth` file in its site-packages, its
`sitecustomize`, the standard library it was built with. So whether an interpreter may run
rests on who owns it and its environment, never on what the binary looks like:

- the environment's folder, its `pyvenv.cfg`, its `bin/` (`Scripts\\`), its site-packages
  folders and the interpreter itself (after symbolic links, with the folder it is in) belong to
  the user running gpu-wizard, or to root in a shared system location (/usr, /opt, …);
- none of them can be written by another user: not world-writable, and group-writable only
  for the owner's own private group (RHEL and Fedora give every user one, with umask 002);
- the folder holding the environment cannot be written by others either (or has the sticky bit,
  as /tmp does), so nobody can swap the environment between this check and the run.

An interpreter that fails is not run; `Refusal` says why, for the sentence the user reads. The
same rule is git's answer to CVE-2022-24765 (a repository owned by someone else).

On Windows files have no POSIX owner that os.stat could show: these checks pass there, and the
folder rules of wizard.probe.discover (no parent folders outside home; a folder's own
environment runs only once the user allows it) are what protect.
"""

from __future__ import annotations

import glob
import os
import stat
from functools import lru_cache
from typing import NamedTuple

# Where root-owned programs are shared system software; elsewhere a root-owned file is as
# foreign as any other user's (a .venv root left in /tmp, or in a project folder).
SYSTEM_PREFIXES = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store",
    "/gnu/store", "/snap", "/System", "/Library", "/Applications", "/Developer",
)


class Refusal(NamedTuple):
    """Why an interpreter is not run: `reason` (wizard.probe.facts.NOT_RUN_REASONS), the file
    or folder that decided it, and that file's owner (a user id)."""

    reason: str
    path: str
    owner: int | None = None


class Policy(NamedTuple):
    """Who "the user" is (tests pretend to be somebody else) and where the system lives."""

    uid: int
    system_prefixes: tuple[str, ...] = SYSTEM_PREFIXES


def current_policy() -> Policy | None:
    """The rule for this process; None where files have no POSIX owner (Windows)."""
    if os.name == "nt" or not hasattr(os, "geteuid"):
        return None
    return Policy(os.geteuid())


def in_system_location(path: str, prefixes: tuple[str, ...] = SYSTEM_PREFIXES) -> bool:
    real = os.path.realpath(path)
    return any(real == prefix or real.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)


@lru_cache(maxsize=64)
def _private_group(gid: int, uid: int) -> bool:
    """The group is the owner's own private group: named after the owner, the owner's primary
    group, and with no other member."""
    try:
        # POSIX only: on Windows the ImportError is the answer (caught below)
        import grp
        import pwd

        user = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
    except (ImportError, KeyError, OSError):
        return False
    return user.pw_gid == gid and group.gr_name == user.pw_name and \
        all(member == user.pw_name for member in group.gr_mem)


def _check(path: str, policy: Policy, *, holder: bool = False) -> Refusal | None:
    """One file or folder (after links). `holder`: the folder holding what runs, where a
    sticky bit (/tmp) keeps others from replacing what is in it, so its own owner is not asked."""
    try:
        info = os.stat(path)
    except OSError:
        return None  # nothing there: the run itself fails, and says so
    sticky = stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_ISVTX)
    if not holder:
        mine = info.st_uid == policy.uid
        system = info.st_uid == 0 and in_system_location(path, policy.system_prefixes)
        if not (mine or system):
            return Refusal("other-owner", path, info.st_uid)
    if sticky and holder:
        return None
    if info.st_mode & stat.S_IWOTH:
        return Refusal("writable-by-others", path, info.st_uid)
    if info.st_mode & stat.S_IWGRP and not _private_group(info.st_gid, info.st_uid):
        return Refusal("writable-by-others", path, info.st_uid)
    return None


def environment_of(python: str) -> str | None:
    """The virtualenv or conda environment `python` belongs to (its folder), if any."""
    folder = os.path.dirname(os.path.abspath(python))
    if os.path.basename(folder).lower() in ("bin", "scripts"):
        folder = os.path.dirname(folder)
    if os.path.isfile(os.path.join(folder, "pyvenv.cfg")) or os.path.isdir(os.path.join(folder, "conda-meta")):
        return folder
    return None


def _environment_parts(env: str) -> list[str]:
    parts = [env, os.path.join(env, "pyvenv.cfg"), os.path.join(env, "bin"), os.path.join(env, "Scripts")]
    # .pth files here run at every start of the interpreter.
    parts += glob.glob(os.path.join(glob.escape(env), "lib", "python*", "site-packages"))
    parts.append(os.path.join(env, "Lib", "site-packages"))
    return [p for p in parts if os.path.lexists(p)]


def refusal(python: str, policy: Policy | None = None) -> Refusal | None:
    """Why `python` must not run (None: it may). `policy` defaults to this process's."""
    if not os.path.isabs(python):
        return Refusal("relative-path", python)  # a folder of PATH's "." or "bin": wherever we are
    policy = policy if policy is not None else current_policy()
    if policy is None:
        return None
    env = environment_of(python)
    real = os.path.realpath(python)
    checks = [(p, False) for p in (_environment_parts(env) if env else [])]
    # After links: the binary that runs, and the folder it is in, whoever owns the link.
    checks += [(real, False), (os.path.dirname(real), False)]
    checks.append((os.path.dirname(env if env else os.path.abspath(python)), True))
    for path, holder in checks:
        found = _check(path, policy, holder=holder)
        if found is not None:
            return found
    return None


def refusal_of_file(path: str, policy: Policy | None = None) -> Refusal | None:
    """Why a file that decides what runs (the user's settings) cannot be trusted: another
    owner, or writable by others, or in a folder others can write."""
    policy = policy if policy is not None else current_policy()
    if policy is None:
        return None
    return _check(path, policy) or _check(os.path.dirname(os.path.abspath(path)), policy, holder=True)

