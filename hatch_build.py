"""Build hook: content/CHECKSUMS matches the content files that go into the wheel.

The installed wizard trusts a content file whose CRC-32 and size are in the manifest and parses only
the others (wizard/knowledge/content.py `check_installation`), so a wheel must never carry a stale
manifest: it is rewritten here whenever content/ changed since it was last written.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ContentManifestHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        root = Path(self.root)
        # Loaded by path: the package is not importable (nor installed) while it is built.
        spec = importlib.util.spec_from_file_location(
            "_gpu_wizard_content_manifest", root / "wizard" / "knowledge" / "manifest.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if module.write_manifest(root / "content"):
            self.app.display_info(f"content/{module.MANIFEST_NAME} rewritten: content/ had changed")
