"""Install the PyTorch build that fits into the Python that will use it, then prove it works.

Every tool stops at printing a command; beginners then paste it into the wrong environment or lose
half of it to a line wrap. Here the plan names the interpreter (the one discovery found, or the one
given), runs that interpreter's own pip (uv's `--torch-backend` when uv manages the environment),
keeps torchvision/torchaudio in step, and afterwards probes the interpreter again, GPU test
included. Mirrors of PyTorch's wheel index (content/torch_mirrors.toml) replace download.pytorch.org
where it is slow. Nothing runs through a shell; nothing runs with sudo.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from wizard.bounded_read import FileRefused, read_text
from wizard.knowledge.content import ContentError, content_dir, read_toml
from wizard.knowledge.damaged import KnowledgeError
from wizard.probe.discover import discover
from wizard.pytorch.choose import TorchChoice, choose_for_machine, shell_quote
from wizard.pytorch.matrix import INDEX_BASE, load_matrix

MIRRORS_FILE = "torch_mirrors.toml"
MIRROR_KINDS = ("index", "find-links")


@dataclass(frozen=True)
class Mirror:
    name: str
    title: str
    title_zh: str
    kind: str                   # "index": replaces --index-url; "find-links": a flat folder (-f)
    url: str                    # with {variant}
    variants: tuple[str, ...]
    note: str = ""

    def url_for(self, variant: str) -> str:
        return self.url.replace("{variant}", variant)


@cache
def load_mirrors() -> dict[str, Mirror]:
    """The named mirrors; KnowledgeError names the file, entry and field of a damaged one."""
    try:
        data = read_toml(content_dir() / MIRRORS_FILE, MIRRORS_FILE)
    except ContentError as exc:
        raise KnowledgeError(MIRRORS_FILE, "", "", exc.reason) from None
    if data.get("schema") != "gpu-wizard/torch-mirrors/1":
        raise KnowledgeError(MIRRORS_FILE, "", "schema", "must be 'gpu-wizard/torch-mirrors/1'")
    sources = data.get("sources") or {}
    mirrors = {}
    for position, raw in enumerate(data.get("mirror") or []):
        entry = f"mirror[{position}]"
        if not isinstance(raw, dict):
            raise KnowledgeError(MIRRORS_FILE, entry, "", "must be a table")
        for key in ("name", "title", "title_zh", "kind", "url"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise KnowledgeError(MIRRORS_FILE, entry, key, "must be text")
        if raw["kind"] not in MIRROR_KINDS:
            raise KnowledgeError(MIRRORS_FILE, entry, "kind", f"must be one of {', '.join(MIRROR_KINDS)}")
        if not raw["url"].startswith("https://") or "{variant}" not in raw["url"]:
            raise KnowledgeError(MIRRORS_FILE, entry, "url", "must be an https:// address with {variant}")
        variants = raw.get("variants")
        if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
            raise KnowledgeError(MIRRORS_FILE, entry, "variants", "must be a list of variants like cu126")
        for sid in raw.get("source") or []:
            if sid not in sources:
                raise KnowledgeError(MIRRORS_FILE, entry, "source", f"{sid!r} is not defined in [sources]")
        mirrors[raw["name"]] = Mirror(raw["name"], raw["title"], raw["title_zh"], raw["kind"], raw["url"],
                                      tuple(variants), str(raw.get("note", "")))
    return mirrors


@dataclass(frozen=True)
class PypiMirror:
    """A mirror of PyPI itself (its [pypi] table): PyPI's own torch builds and everything else."""

    name: str
    title: str
    title_zh: str
    url: str                    # a PEP 503 index, for -i / --index-url


@cache
def load_pypi_mirror() -> PypiMirror:
    """torch_mirrors.toml's [pypi] table; KnowledgeError names the field of a damaged one."""
    try:
        data = read_toml(content_dir() / MIRRORS_FILE, MIRRORS_FILE)
    except ContentError as exc:
        raise KnowledgeError(MIRRORS_FILE, "", "", exc.reason) from None
    raw = data.get("pypi")
    if not isinstance(raw, dict):
        raise KnowledgeError(MIRRORS_FILE, "[pypi]", "", "must be a table")
    for key in ("name", "title", "title_zh", "url"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise KnowledgeError(MIRRORS_FILE, "[pypi]", key, "must be text")
    if not re.fullmatch(r"https://\S+/simple/?", raw["url"]):
        raise KnowledgeError(MIRRORS_FILE, "[pypi]", "url", "must be an https:// index ending in /simple")
    sources = data.get("sources") or {}
    ids = raw.get("source")
    if not isinstance(ids, list) or not ids:
        raise KnowledgeError(MIRRORS_FILE, "[pypi]", "source", "must list the sources")
    for sid in ids:
        if sid not in sources:
            raise KnowledgeError(MIRRORS_FILE, "[pypi]", "source", f"{sid!r} is not defined in [sources]")
    return PypiMirror(raw["name"], raw["title"], raw["title_zh"], raw["url"])


# ----------------------------------------------------------------------------------- plan ---

@dataclass(frozen=True)
class Plan:
    """What will run, for which interpreter, and what it brings."""

    python: str
    source: str                     # how the interpreter was found (INTERPRETER_SOURCES)
    torch_before: str | None        # the torch installed now, if any
    choice: TorchChoice
    argv: tuple[str, ...]
    companions: tuple[str, ...]
    download_mb: float | None
    via: str                        # "pip" | "uv"

    @property
    def shown(self) -> str:
        """The command as the user could type it (quoted where the shell needs it)."""
        os_name = "Windows" if os.name == "nt" else None
        return " ".join(shell_quote(part, os_name, program=index == 0) for index, part in enumerate(self.argv))


class PlanError(ValueError):
    """The plan cannot be made from these arguments (exit 2); `key` names the sentence."""

    def __init__(self, key: str, **values: Any):
        self.key = key
        self.values = values
        super().__init__(key)


def variant_index(variant: str, index_url: str | None) -> str:
    """`--index-url`: a base like https://mirror/whl (the variant is added) or a whole index."""
    if index_url is None:
        return INDEX_BASE + variant
    base = index_url.rstrip("/")
    if "{variant}" in base:
        return base.replace("{variant}", variant)
    last = base.rsplit("/", 1)[-1]
    if re.fullmatch(r"cpu|cu\d{3}|rocm\d+(\.\d+)*|xpu", last):
        return base  # already one variant's index: used as given
    return f"{base}/{variant}"


# pyvenv.cfg is a few lines; anything far bigger (or a FIFO, or /dev/zero) is not one to read.
PYVENV_CFG_BYTES = 64 * 1024


def uv_manages(prefix: str | None) -> bool:
    """A virtualenv made by uv records itself in pyvenv.cfg ("uv = 0.9.5")."""
    if not prefix:
        return False
    try:
        text = read_text(os.path.join(prefix, "pyvenv.cfg"), PYVENV_CFG_BYTES)
    except (FileRefused, ValueError):  # ValueError: a NUL in a prefix a fake Python gave
        return False
    return any(line.split("=")[0].strip() == "uv" for line in text.splitlines())


def make_plan(python: str, source: str, choice: TorchChoice, *, torch_before: str | None = None,
              companions: tuple[str, ...] = (), prefix: str | None = None, index_url: str | None = None,
              mirror: Mirror | None = None, uv: str | None = None) -> Plan:
    """The command for `choice` in `python`; PlanError when the arguments cannot give one."""
    if not choice.command or not choice.torch_version or not choice.variant:
        raise PlanError("nothing-fits", reason=choice.reason)
    version, variant = choice.torch_version, choice.variant
    packages = [f"torch=={version}", *companions]
    extras = ['numpy<2'] if '"numpy<2"' in choice.command else []
    on_pypi = choice.index_url is None  # Macs: PyPI's own wheels, no PyTorch index
    if mirror is not None and not on_pypi:
        if variant not in mirror.variants:
            raise PlanError("mirror-lacks-variant", mirror=mirror.name, variant=variant,
                            variants=", ".join(mirror.variants))
        if mirror.kind == "find-links":
            if companions:
                raise PlanError("mirror-find-links-companions", mirror=mirror.name,
                                companions=" ".join(companions))
            # A flat folder beside PyPI: only the local version tag keeps pip off PyPI's default build.
            packages = [f"torch=={version}+{variant}"]
            index_args = ["-f", mirror.url_for(variant)]
        else:
            index_args = ["--index-url", mirror.url_for(variant)]
    elif on_pypi:
        index_args = []
    else:
        index_args = ["--index-url", variant_index(variant, index_url)]
    uv_binary = uv if uv and mirror is None and index_url is None and uv_manages(prefix) else None
    if uv_binary:
        backend = [] if on_pypi else [f"--torch-backend={variant}"]
        argv = (uv_binary, "pip", "install", "--python", python, *packages, *extras, *backend)
    else:
        argv = (python, "-m", "pip", "install", *packages, *extras, *index_args)
    return Plan(python, source, torch_before, choice, argv, companions, download_size(variant),
                "uv" if uv_binary else "pip")


def download_size(variant: str) -> float | None:
    """MB to download, where it was measured (the CPU and CUDA builds)."""
    kind = "cpu" if variant == "cpu" else "cuda" if variant.startswith("cu") else None
    if kind is None:
        return None
    try:
        fact = load_matrix().size(kind)
    except ContentError:
        return None
    return fact.download_mb if fact else None


def find_uv() -> str | None:
    return shutil.which("uv")


# ------------------------------------------------------------------------------------ run ---

def run_install(plan: Plan, *, wait_after_interrupt: float = 10.0) -> int:
    """Run the plan's command, its output straight to the terminal; its exit status.

    Same process group as gpu-wizard: a Ctrl+C in the terminal reaches pip too, which then stops
    in its own way. KeyboardInterrupt is re-raised once pip has ended (or been killed)."""
    proc = subprocess.Popen(list(plan.argv), stdin=subprocess.DEVNULL)
    try:
        return proc.wait()
    except BaseException:
        try:
            proc.wait(timeout=wait_after_interrupt)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        raise


EXPECTED_BUILD = {"cpu": "cpu", "mps": "mps", "xpu": "xpu"}


def expected_build(variant: str) -> str:
    if variant.startswith("cu"):
        return "cuda"
    if variant.startswith("rocm"):
        return "rocm"
    return EXPECTED_BUILD.get(variant, variant)


def verdict(plan: Plan, torch: Any, errors: list[Any]) -> str:
    """ "gpu-ok" | "cpu-ok" | "failed": what the probe after the install says."""
    if torch.status != "ok" or errors:
        return "failed"
    wanted = expected_build(plan.choice.variant or "")
    if torch.build != wanted:
        return "failed"
    if wanted == "cpu":
        return "cpu-ok"
    tests = torch.gpu_tests
    if tests and all(test.status == "ok" for test in tests):
        return "gpu-ok"
    return "failed"


def interpreter_is_own(python: str) -> bool:
    return os.path.normcase(os.path.abspath(python)) == os.path.normcase(os.path.abspath(sys.executable))


def plan_for_machine(machine: Any, lang: str, *, uv: str | None = None) -> Plan:
    """The wizard's plan: the Python whose PyTorch was checked, the build the advice recommends."""
    torch = machine.torch
    if torch is None or not torch.interpreter:
        raise PlanError("no-python")
    python, source = torch.interpreter, torch.interpreter_source or "--python"
    before, companions = (torch.version if torch.status != "not-installed" else None), tuple(torch.companions)
    if source == "own":
        # No environment of the user's had torch: install into theirs, as install-torch does.
        # The torch probe's static half (psutil with it), here and in verify: +20-40 ms at the
        # top for whoever reads the mirror table through this module (wizard.pytorch.mirrors:
        # torch-command's text, the result screen) (measured 2026-12-04).
        from wizard.pytorch.probe.static import static_torch_facts

        target = discover().install_target()
        if target.path != python:
            facts = static_torch_facts(target.path)
            python, source = target.path, target.source
            before, companions = (facts.version if facts.installed else None), facts.companions
    return make_plan(python, source, choose_for_machine(machine, lang), torch_before=before,
                     companions=companions, prefix=str(Path(python).parent.parent), uv=uv)


def verify(plan: Plan, machine: Any, lang: str, gpu_test: bool = True) -> tuple[str, Any, list[Any]]:
    """Probe the interpreter again (GPU test included): (verdict, TorchInfo, error findings)."""
    # The torch probe and the diagnosis: see plan_for_machine.
    from wizard.diagnosis.diagnose import diagnose
    from wizard.pytorch.probe.job import probe_torch

    info, _, _ = probe_torch(plan.python, timeout=90, gpu_test=gpu_test, source=plan.source)
    errors = [f for f in diagnose(replace(machine, torch=info), lang) if f.severity == "error"]
    return verdict(plan, info, errors), info, errors


# What pip and uv print when the index cannot be reached at all (DNS, no route, a proxy, TLS
# cut by a firewall, a timeout), as opposed to an index that answered "no such version".
_UNREACHABLE = re.compile(
    r"Failed to establish a new connection|Max retries exceeded|Temporary failure in name resolution"
    r"|Name or service not known|Network is unreachable|ConnectTimeoutError|ReadTimeoutError|ProxyError"
    r"|Could not fetch URL|Connection (?:refused|reset)|SSLError|dns error|error sending request"
    r"|Failed to fetch|operation timed out", re.IGNORECASE)


def index_unreachable(lines: Any) -> bool:
    """pip's (or uv's) output says the package index could not be reached."""
    return any(_UNREACHABLE.search(line) for line in lines)


def mirrors_for(plan: Plan) -> list[Mirror]:
    """The mirrors that can serve this plan: full indexes first (they carry torchvision and
    torchaudio too), a folder of files only for torch alone. None for a Mac's PyPI wheels."""
    if plan.choice.index_url is None or not plan.choice.variant:
        return []
    try:
        mirrors = load_mirrors().values()
    except KnowledgeError:   # a damaged mirror table: offer none rather than fail the dialog
        return []
    usable = [m for m in mirrors if plan.choice.variant in m.variants
              and (m.kind == "index" or not plan.companions)]
    return sorted(usable, key=lambda m: m.kind != "index")


def with_mirror(plan: Plan, mirror: Mirror) -> Plan:
    """The same install, downloaded from `mirror` (pip: uv's --torch-backend has no mirror)."""
    return make_plan(plan.python, plan.source, plan.choice, torch_before=plan.torch_before,
                     companions=plan.companions, mirror=mirror)


def stream_install(plan: Plan, on_line: Any, on_start: Any = None) -> int:
    """Run the plan with its output piped, one line at a time to `on_line` (the wizard's log):
    the wizard owns the terminal. `on_start(proc)` lets the caller stop it."""
    proc = subprocess.Popen(list(plan.argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace",
                            bufsize=1)
    if on_start is not None:
        on_start(proc)
    assert proc.stdout is not None
    for line in proc.stdout:
        on_line(line.rstrip("\r\n"))
    return proc.wait()


def record(plan: Plan, status: int | None, result: str | None, info: Any = None) -> dict[str, Any]:
    """What a saved report says about an install made from the wizard."""
    out: dict[str, Any] = {"command": plan.shown, "interpreter_source": plan.source,
                           "verified": result in ("gpu-ok", "cpu-ok")}
    if status is not None:
        out["exit_status"] = status
    if info is not None and info.version:
        out["torch_version"] = info.version
    if info is not None:
        out["gpu_tests"] = [test.status for test in info.gpu_tests]
    return out
