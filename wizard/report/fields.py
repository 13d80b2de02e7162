"""The fixed names of the report format (README.md, "The report format")."""

from __future__ import annotations

import re

SCHEMA = "gpu-wizard/report/1"
SCHEMA_PREFIX = "gpu-wizard/report/"
VERDICTS = (
    "use-current-gpu", "fix-setup", "use-free-cloud", "rent-cloud",
    "upgrade-desktop", "buy-desktop", "buy-laptop", "no-gpu-needed",
)
FINDING_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
