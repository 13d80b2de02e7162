"""The error every content data file raises, apart from the records, so that code which only
needs to catch it does not load the catalog's declarations."""

from __future__ import annotations

from wizard.knowledge.content import ContentError


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
