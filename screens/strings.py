"""What the screens say, read from content/: a UI string, and a step's guide pages as one text.

No Textual: the steps, the dialogs and the reader all import it, and it imports none of them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wizard.knowledge.content import ContentError, content_dir, read_page
from wizard.text.i18n import t


def ui(key: str, lang: str, **values: Any) -> str:
    """The UI string `ui.<key>` in `lang`."""
    return t(f"ui.{key}", lang, **values)


def guide_page(lang: str, *pages: str) -> str:
    """Guide Markdown for a step; a missing page is skipped (English when zh lacks it)."""
    texts = []
    for index, page in enumerate(pages):
        for folder in (lang, "en"):
            try:
                text = read_page(Path(content_dir()) / folder / f"{page}.md")
            except ContentError:  # damaged: the English page instead; the App warns once
                text = None
            if text is None:
                continue
            if index == 0:
                # The title bar already names the step; the H1 would repeat it.
                text = re.sub(r"\A\s*# [^\n]*\n+", "", text)
            texts.append(text)
            break
    return "\n\n".join(texts)
