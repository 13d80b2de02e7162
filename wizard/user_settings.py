"""What the user told gpu-wizard to remember: for a folder's own Python environment, whether
to run it to check its PyTorch ("run") or never ("skip").

The file is the user's (`settings.toml` in the user's configuration folder, e.g.
~/.config/gpu-wizard/ on Linux, as platformdirs names it for each OS) and is read like any file
we did not write: bounded, and ignored unless it belongs to this user and nobody else can write
it, since whoever could add a line to it could have gpu-wizard run their Python. A damaged file
is never overwritten: the answer is then not remembered, and the user is told why.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

try:
    import tomllib  # novermin (3.9 and 3.10 get tomli below)
except ModuleNotFoundError:  # Python 3.9 and 3.10: the same parser, from PyPI
    import tomli as tomllib  # type: ignore[no-redef]
import tomli_w

from wizard.bounded_read import FileRefused, read_bytes
from wizard.probe.trust import current_policy, refusal_of_file
from wizard.text.i18n import t

SETTINGS_NAME = "settings.toml"
MAX_SETTINGS_BYTES = 256 * 1024
ANSWERS = ("run", "skip")
_TABLE = "environments"
_HEADER = ("# gpu-wizard's settings: written by gpu-wizard, safe to edit or delete.\n"
           "# [environments]: a folder's own Python environment and whether gpu-wizard may run it to\n"
           "# check its PyTorch (\"run\") or never runs it (\"skip\").\n")


class SettingsError(Exception):
    """The answer could not be remembered: `key` (settings.error.*) says why, `path` where."""

    def __init__(self, key: str, path: Path, detail: str = ""):
        self.key = key
        self.path = path
        self.detail = detail
        super().__init__(f"{path}: {key}" + (f" ({detail})" if detail else ""))


def settings_path() -> Path:
    """Where the settings live; GPU_WIZARD_CONFIG_DIR moves them (tests, portable installs)."""
    folder = os.environ.get("GPU_WIZARD_CONFIG_DIR")
    if folder:
        return Path(folder) / SETTINGS_NAME
    # Only where the settings are read or written: +4 ms on every command, which all import
    # this module through wizard.probe.discover (measured 2026-12-04).
    from platformdirs import user_config_path

    return user_config_path("gpu-wizard", appauthor=False) / SETTINGS_NAME


def environment_key(env: str) -> str:
    """One name for one folder however it was reached (a symbolic link, `..`)."""
    return os.path.realpath(env)


def _read(path: Path) -> dict:
    """The settings as a table; {} when there are none. SettingsError("damaged") for a file
    that is there but cannot be used, so that nothing overwrites it."""
    try:
        raw = read_bytes(path, MAX_SETTINGS_BYTES)
    except FileRefused as exc:
        if exc.kind == "missing":
            return {}
        raise SettingsError("damaged", path, exc.kind) from None
    policy = current_policy()
    if policy is not None and refusal_of_file(str(path), policy) is not None:
        raise SettingsError("not-yours", path)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SettingsError("damaged", path, str(exc)) from None
    return data


def environment_answer(env: str) -> str | None:
    """"run", "skip", or None (never asked, or the settings cannot be trusted)."""
    try:
        table = _read(settings_path()).get(_TABLE)
    except SettingsError:
        return None
    answer = table.get(environment_key(env)) if isinstance(table, dict) else None
    return answer if answer in ANSWERS else None


def remember_environment(env: str, answer: str) -> Path:
    """Remember `answer` for `env`; the file written. SettingsError when it cannot be."""
    if answer not in ANSWERS:
        raise ValueError(answer)
    path = settings_path()
    data = _read(path)
    table = data.get(_TABLE)
    if table is not None and not isinstance(table, dict):
        raise SettingsError("damaged", path, f"[{_TABLE}] is not a table")
    data[_TABLE] = {**(table or {}), environment_key(env): answer}
    try:
        text = _HEADER + tomli_w.dumps(data)
    except (TypeError, ValueError) as exc:  # a hand-edited value tomli_w cannot write back
        raise SettingsError("damaged", path, str(exc)) from None
    _write(path, text.encode("utf-8"))
    return path


def remember_saying(env: str, run: bool, lang: str) -> tuple[bool, str]:
    """Remember the user's answer for `env`; whether it was, and the sentence that says where
    it is kept, or why it could not be."""
    try:
        path = remember_environment(env, "run" if run else "skip")
    except SettingsError as exc:
        why = t(f"report.settings.{exc.key}", lang, path=exc.path, detail=exc.detail)
        return False, t("ui.run-python.not-remembered", lang, why=why)
    return True, t("ui.run-python.remembered", lang, file=path)


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a temporary file beside it, then a rename."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".settings-", suffix=".tmp")
    except OSError as exc:
        raise SettingsError("cannot-write", path, exc.strerror or str(exc)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise SettingsError("cannot-write", path, exc.strerror or str(exc)) from None
        raise
