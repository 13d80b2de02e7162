"""Words as the user reads them, in English and Chinese.

    i18n.py      the UI and explanation strings (content/<lang>/strings/*.toml)
    output.py    status marks that survive LANG=C, numbers and sizes, line breaking, sanitizing
                 what comes from outside
    evidence.py  the probes' evidence lines in the reader's language
    glossary.py  the words the Words page explains (content/glossary.toml)
"""
