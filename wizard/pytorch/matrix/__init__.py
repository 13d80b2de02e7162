"""The torch / CUDA / driver matrix from content/torch_matrix.toml, checked at load, and the
compatibility rules everything else applies to it.

* `rules.py`: does a build's compiled GPU code run on compute capability cc (`arch_support`);
  NVIDIA driver and release version comparison (`driver_at_least`, `version_tuple`);
* `model.py`: the records (releases, builds, variants, arch sets, sizes) as dataclasses, each
  field's type and rule declared once (wizard.schema), as the catalog's records are;
* `load.py`: reading the file, strictly. A wrong fact here becomes a wrong `pip install` line
  on a student's machine, so every entry is read against its declaration and checked for
  cross-references, and every problem raises `KnowledgeError` naming the file, the entry and
  the field.
"""

from __future__ import annotations

from wizard.pytorch.matrix.model import (
    INDEX_BASE,
    PLATFORMS,
    SCHEMA,
    VARIANT_KINDS,
    ArchSet,
    Build,
    LegacyCuda,
    MacIntel,
    Release,
    SizeFact,
    Source,
    TorchMatrix,
    Variant,
)
from wizard.pytorch.matrix.parse import DEFAULT_PLATFORMS, FILE, load_matrix
from wizard.pytorch.matrix.rules import (
    arch_cc,
    arch_support,
    driver_at_least,
    driver_tuple,
    parse_cc,
    sm_name,
    version_tuple,
)

__all__ = [
    "DEFAULT_PLATFORMS", "FILE", "INDEX_BASE", "PLATFORMS", "SCHEMA", "VARIANT_KINDS", "ArchSet", "Build",
    "LegacyCuda", "MacIntel", "Release", "SizeFact", "Source", "TorchMatrix", "Variant", "arch_cc",
    "arch_support", "driver_at_least", "driver_tuple", "load_matrix", "parse_cc", "sm_name",
    "version_tuple",
]
