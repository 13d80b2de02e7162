"""The errors a damaged content file raises, and the record of what was found damaged: apart
from the reader (tomllib) and the records, so that code which only catches them (the
CLI, before `check` starts its NVML child) loads neither."""

from __future__ import annotations

# Every content file found damaged in this process (shown name → reason): whoever caught the
# error and carried on, the CLI still tells the user once, at the end.
DAMAGED: dict[str, str] = {}


class ContentError(ValueError):
    """A content file that cannot be used: `file` (as shown to the user) and `reason`."""

    def __init__(self, file: str, reason: str) -> None:
        self.file = file
        self.reason = reason
        DAMAGED.setdefault(file, reason)
        super().__init__(f"{file}: {reason}")


class KnowledgeError(ContentError):
    """A content data file is missing, unreadable or has a bad entry.

    `str(error)` is the full sentence; the parts are kept for tests and for tools that list
    problems.
    """

    def __init__(self, file: str, entry: str, field_name: str, reason: str) -> None:
        super().__init__(file, reason)
        self.entry = entry
        self.field = field_name
        where = ", ".join(part for part in (file, entry, f"field {field_name!r}" if field_name else "") if part)
        self.args = (f"{where}: {reason}",)
