"""The live half: the child process that imports torch in the chosen interpreter, and the
checks its answer must pass before anything downstream reads it.

The child's source is `wizard/pytorch/probe/describe_torch.py`, sent as `-c`: it runs in the user's
Python (3.8 and up), so it imports nothing of ours.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from wizard.probe.facts import LIBRARY_ENV_VARS, TorchInfo
from wizard.pytorch.probe import describe_torch
from wizard.schema import MAX_ITEMS, fits


@cache
def child_source() -> str:
    return Path(describe_torch.__file__).read_text(encoding="utf-8")


def parse_child_output(stdout: str) -> dict | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(describe_torch.MARKER):
            try:
                data = json.loads(line[len(describe_torch.MARKER):])
            except (ValueError, RecursionError):
                return None
            return _sane(data) if isinstance(data, dict) else None
    return None


# What each key of the child's answer must be. Anything can print a line that starts with our
# marker (a wrapper script, a tampered sitecustomize): a value of another type is dropped, so
# nothing downstream meets a number where it expects text.
_CHILD_TYPES: dict[str, Any] = {
    "status": str, "error_line": str, "describe_error": str, "version": str, "cuda": str,
    "hip": str, "xpu": str, "mps_built": bool, "cuda_available": bool, "mps_available": bool,
    "xpu_available": bool, "device_count": int, "devices": list, "arch_list": list,
    "python_version": str, "machine": str, "cpu_capability": str, "warnings": list,
    "gpu_tests": list, "visible_devices": dict, "location": str, "import_seconds": (int, float),
    "benchmark": dict, "threads": int, "stopped": str, "glibc": str, "env_vars": list,
    "ld_library_path_cuda": bool, "cudnn": str, "cudnn_error": str,
}
_CHILD_TEXT_LIMIT = 2000


def _sane(data: dict) -> dict | None:
    if data.get("status") not in ("ok", "not-installed", "import-error"):
        return None
    out: dict[str, Any] = {}
    for key, value in data.items():
        kind = _CHILD_TYPES.get(key)
        if kind is None or isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < 2**31:
            continue
        out[key] = value[:_CHILD_TEXT_LIMIT] if isinstance(value, str) else value
    for key in ("cuda", "hip", "xpu"):
        if key in out and not fits(TorchInfo, "cuda_version", out[key]):
            del out[key]
    for key, model_key in (("python_version", "python_version"), ("glibc", "glibc_version"),
                           ("cudnn", "cudnn_version")):
        if key in out and not fits(TorchInfo, model_key, out[key]):
            del out[key]
    if "env_vars" in out:
        out["env_vars"] = [v for v in LIBRARY_ENV_VARS if v in out["env_vars"]]
    for key in ("arch_list", "warnings"):
        if key in out:
            out[key] = [v[:200] for v in out[key] if isinstance(v, str)][:MAX_ITEMS]
    for key in ("devices", "gpu_tests"):
        if key in out:
            out[key] = [v for v in out[key] if isinstance(v, dict)][:MAX_ITEMS]
    if "visible_devices" in out:
        out["visible_devices"] = {k: v[:200] for k, v in out["visible_devices"].items()
                                  if isinstance(k, str) and isinstance(v, str)}
    return out


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
