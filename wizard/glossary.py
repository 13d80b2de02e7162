"""The words the Words page explains, and how a guide page writes each (content/glossary.toml).

The screens link the first use of each term to its explanation; this module only says where
the terms are in a text, so it stays free of Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from wizard.content import ContentError, content_dir, read_toml

FILE = "glossary.toml"


@dataclass(frozen=True)
class Term:
    id: str
    section: int           # its "##" section on the Words page, counted from 0
    pattern: re.Pattern[str]


@cache
def terms(lang: str) -> tuple[Term, ...]:
    """The terms in `lang`; ContentError when the file is damaged."""
    path = content_dir() / FILE
    data = read_toml(path)
    entries = data.get("term")
    if not isinstance(entries, list) or not entries:
        raise ContentError(f"content/{FILE}", "has no [[term]] tables")
    out = []
    for section, entry in enumerate(entries):
        label = f"term {section + 1}"
        spellings = entry.get(lang) if isinstance(entry, dict) else None
        term_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(term_id, str) or not term_id:
            raise ContentError(f"content/{FILE}", f"{label}: 'id' must be a text")
        if not isinstance(spellings, list) or not spellings or not all(isinstance(s, str) and s for s in spellings):
            raise ContentError(f"content/{FILE}", f"{label} ({term_id}): '{lang}' must list how it is written")
        # English terms match as whole words; Chinese has no spaces to mark a word's edges.
        edge = r"\b" if lang == "en" else ""
        try:
            pattern = re.compile("|".join(f"{edge}(?:{s}){edge}" for s in spellings))
        except re.error as exc:
            raise ContentError(f"content/{FILE}", f"{label} ({term_id}): not a valid pattern ({exc})") from None
        out.append(Term(term_id, section, pattern))
    return tuple(out)


def first_uses(text: str, lang: str, skip: set[str]) -> list[tuple[int, int, Term]]:
    """(start, end, term) of the first use in `text` of each term not in `skip`."""
    found = []
    for term in terms(lang):
        if term.id in skip:
            continue
        match = term.pattern.search(text)
        if match:
            found.append((match.start(), match.end(), term))
    return sorted(found, key=lambda hit: hit[0])
