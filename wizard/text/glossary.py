"""The words the Words page explains, and how a guide page writes each (content/glossary.toml).

The screens link the first use of each term to its explanation; this module only says where
the terms are in a text, so it stays free of Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from wizard.knowledge.content import ContentError, content_dir, read_toml
from wizard.schema import CONTENT, KEBAB_ID, RecordError, read_record, rule

FILE = "glossary.toml"


@dataclass(frozen=True)
class Term:
    id: str
    section: int           # its "##" section on the Words page, counted from 0
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class _Spellings:
    """One [[term]] of the file: how each language's pages write it (regular expressions)."""

    id: str = field(metadata=rule(pattern=KEBAB_ID, what="a kebab-case id like vram"))
    en: tuple[str, ...]
    zh: tuple[str, ...]


@dataclass(frozen=True)
class _Glossary:
    term: tuple[_Spellings, ...]


@cache
def terms(lang: str) -> tuple[Term, ...]:
    """The terms in `lang`; ContentError when the file is damaged."""
    name = f"content/{FILE}"
    try:
        glossary = read_record(_Glossary, read_toml(content_dir() / FILE), CONTENT)
    except RecordError as exc:
        raise ContentError(name, exc.problems[0].dotted()) from None
    # English terms match as whole words; Chinese has no spaces to mark a word's edges.
    edge = r"\b" if lang == "en" else ""
    out = []
    for section, entry in enumerate(glossary.term):
        try:
            pattern = re.compile("|".join(f"{edge}(?:{s}){edge}" for s in getattr(entry, lang)))
        except re.error as exc:
            raise ContentError(name, f"term[{section}].{lang}: not a valid pattern ({exc})") from None
        out.append(Term(entry.id, section, pattern))
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
