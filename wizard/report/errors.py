"""The report errors a user can act on, each with its message in their language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wizard.text.i18n import t


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

    def __init__(self, path: Path | str, suggestion: Path):
        self.suggestion = suggestion    # the first free name beside it (saving.next_free_path)
        super().__init__(path, suggestion=suggestion)


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
