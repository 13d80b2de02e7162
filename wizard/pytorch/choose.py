"""Which torch to install: the newest release and wheel variant that fits every constraint.

The constraints are checked together, which is what the usual tools do not do:
* the NVIDIA driver is at least the variant's floor (CUDA minor-version compatibility);
* every GPU's compute capability has compiled kernels in the variant's arch list
  (uv installs cu128 on a GTX 1080 Ti, which then fails with "no kernel image");
* the Python version is within the release's range.
Facts come from content/torch_matrix.toml (wizard.pytorch.matrix); this module only decides and
explains. Pure: no probing, no I/O beyond reading the matrix once.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wizard.pytorch.matrix import (
    Build,
    Release,
    TorchMatrix,
    arch_support,
    driver_at_least,
    driver_tuple,
    load_matrix,
    parse_cc,
    sm_name,
    version_tuple,
)
from wizard.pytorch.vendor_gpus import OVERRIDE_TARGET, amd_gfx, intel_xpu_capable, override_for, rocm_gpus
from wizard.text.i18n import t
from wizard.text.output import has_hidden

if TYPE_CHECKING:
    from wizard.probe.facts import Machine

OS_ALIASES = {"linux": "linux", "windows": "windows", "win32": "windows", "macos": "macos",
              "darwin": "macos", "mac": "macos", "osx": "macos"}
ARCH_ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64", "aarch64": "aarch64",
                "arm64": "aarch64"}


@dataclass(frozen=True)
class TorchChoice:
    command: str | None              # None when nothing fits
    index_url: str | None            # None for plain PyPI (macOS)
    variant: str | None              # "cu130", "cu126", "cpu", "rocm7.2", "mps", ...
    torch_version: str | None        # "2.13.0"
    reason: str                      # why this build, or why nothing fits
    warnings: tuple[str, ...] = ()
    uv_command: str | None = None
    # Stable ids for programs and tests: what limited the choice, what each warning is about.
    problem: str | None = None       # set when nothing fits: "gpu-too-old", "driver-too-old", ...
    warning_ids: tuple[str, ...] = ()
    cpu_fallback: str | None = None  # the CPU-build command when the GPU cannot be served

    def to_json(self) -> dict:
        return {
            "command": self.command,
            "index_url": self.index_url,
            "variant": self.variant,
            "torch_version": self.torch_version,
            "reason": self.reason,
            "warnings": list(self.warnings),
            "uv_command": self.uv_command,
            "problem": self.problem,
            "warning_ids": list(self.warning_ids),
        }


class _Notes:
    def __init__(self, lang: str):
        self.lang = lang
        self.ids: list[str] = []
        self.texts: list[str] = []

    def add(self, wid: str, **values: object) -> None:
        if wid in self.ids:
            return
        self.ids.append(wid)
        self.texts.append(t(f"torch.choice.warn-{wid}", self.lang, **values))


def normalize_os(os_name: str | None) -> str | None:
    if os_name is None:
        return None
    return OS_ALIASES.get(os_name.strip().lower())


def normalize_arch(arch: str | None, os_name: str) -> str:
    key = ARCH_ALIASES.get((arch or "").strip().lower())
    if os_name == "macos":
        return "x86_64" if key == "x86_64" else "arm64"
    return key or "x86_64"


def pip_command(version: str, index_url: str | None, pip: str = "pip", extra: str = "") -> str:
    command = f"{pip} install torch=={version}"
    if extra:
        command += f" {extra}"
    if index_url:
        command += f" --index-url {index_url}"
    return command


def uv_command(version: str, backend: str | None) -> str:
    return f"uv pip install torch=={version}" + (f" --torch-backend={backend}" if backend else "")


def choose_torch(
    os: str,
    driver: str | None = None,
    compute_capabilities: Sequence[str] = (),
    python_version: str | None = None,
    gpu_vendor: str | None = None,
    arch: str | None = None,
    *,
    amd_gfx: Sequence[str] = (),
    macos_version: str | None = None,
    companions: Sequence[str] = (),
    lang: str = "en",
    pip: str = "pip",
    matrix: TorchMatrix | None = None,
) -> TorchChoice:
    """The install command for a machine. Omitted facts mean "unknown / none".

    `os`: "linux" | "windows" | "macos" (Linux/Windows/Darwin accepted); `driver`: NVIDIA driver
    version; `compute_capabilities`: one "X.Y" per NVIDIA GPU; `gpu_vendor`: "nvidia", "amd",
    "intel", "apple" or None (= NVIDIA when a driver or capability is given, else no GPU);
    `arch`: the CPU architecture of the interpreter ("x86_64", "aarch64"/"arm64").
    Raises ValueError for an unknown os or a malformed capability; the CLI checks first.
    """
    matrix = matrix or load_matrix()
    os_name = normalize_os(os)
    if os_name is None:
        raise ValueError(f"unknown operating system {os!r}; use linux, windows or macos")
    ccs = []
    for cc in compute_capabilities:
        parsed = parse_cc(cc)
        if parsed is None:
            raise ValueError(f"{cc!r} is not a compute capability like 8.6")
        ccs.append(parsed)
    if driver is not None and driver_tuple(driver) is None:
        raise ValueError(f"{driver!r} is not a driver version like 550.54.14")
    py = ".".join(str(p) for p in version_tuple(python_version)[:2]) if python_version else None
    vendor = gpu_vendor or ("nvidia" if (ccs or driver) else None)
    ctx = _Context(matrix, os_name, normalize_arch(arch, os_name), driver, ccs, py, lang, pip,
                   macos_version, tuple(companions))

    if os_name == "macos":
        return ctx.mac()
    if vendor == "nvidia":
        return ctx.nvidia()
    if vendor == "amd":
        return ctx.amd(tuple(g.lower() for g in amd_gfx))
    if vendor == "intel":
        return ctx.xpu()
    return ctx.cpu(_Notes(lang), reason_key="cpu-no-gpu")


# GeForce/datacenter product lines → compute capability, for GPUs that neither NVML nor our
# catalog describes (no driver, not in the catalog). Without it an old card gets the newest
# build, which has no kernels for it. NVIDIA's CUDA GPUs table; most specific patterns first.
_CC_BY_NAME = (
    (r"\bRTX (PRO )?50\d0|RTX PRO \d000 Blackwell", "12.0"),
    (r"\bB[23]00\b|GB[23]00", "10.0"),
    (r"\bH[12]00\b|\bH20\b|GH200", "9.0"),
    (r"\bRTX 40\d0|\bL4\b|\bL40S?\b|RTX \d000 Ada", "8.9"),
    (r"\bA100\b|\bA30\b", "8.0"),
    (r"\bRTX 30\d0|\bA(10|40|2000|4000|5000|6000)\b", "8.6"),
    (r"\bRTX 20\d0|\bGTX 16\d0|TITAN RTX|\bT4\b|Quadro RTX|\bT(400|600|1000|1200)\b", "7.5"),
    (r"TITAN V\b|\bV100\b", "7.0"),
    (r"\bP100\b", "6.0"),
    (r"\bGTX 10\d0|TITAN Xp|TITAN X \(Pascal\)|\bMX[1-3]\d0\b|\bP[1-6]000\b|\bP4[0]?\b", "6.1"),
    (r"\bGTX 9\d0|TITAN X\b|\bM[4-6]0\b|\bM\d000M?\b", "5.2"),
    (r"\bGTX 7[45]0", "5.0"),
)


def guess_compute_capability(name: str) -> str | None:
    """The compute capability a product name implies, or None when the name does not say."""
    for pattern, cc in _CC_BY_NAME:
        if re.search(pattern, name or ""):
            return cc
    return None


def machine_facts(machine: Machine) -> dict:
    """The choose_torch arguments that describe a probed or recorded machine."""
    torch = machine.torch
    nvidia = [g for g in machine.gpus if g.vendor == "nvidia" and g.kernel_driver not in ("vfio-pci", "pci-stub")]
    amd = rocm_gpus(machine)
    apple = [g for g in machine.gpus if g.vendor == "apple"]
    ccs = [g.compute_capability or guess_compute_capability(g.name) for g in nvidia]
    ccs = [cc for cc in ccs if cc]
    if not ccs and torch is not None and torch.build == "cuda":
        ccs = [d.capability for d in torch.devices if d.capability and parse_cc(d.capability)]
    gfx = [amd_gfx(g) for g in amd]
    if torch is not None and torch.build == "rocm":
        gfx += [d.capability for d in torch.devices if d.capability and d.capability.startswith("gfx")]
    vendor = "nvidia" if nvidia else "amd" if amd else "apple" if apple else \
        "intel" if any(intel_xpu_capable(g) for g in machine.gpus) else None
    arch = (torch.python_arch if torch is not None and torch.python_arch else None) or machine.arch
    if machine.os == "Darwin" and apple:
        arch = "arm64"  # an x86_64 Python under Rosetta is the problem to fix, not the target
    driver = machine.nvidia.driver_version if nvidia else None
    if driver is not None and driver_tuple(driver) is None:
        driver = None
    python = (torch.python_version if torch is not None and torch.python_version else None) \
        or machine.python_version
    facts: dict[str, Any] = {"os": machine.os, "driver": driver, "compute_capabilities": ccs, "python_version": python,
             "gpu_vendor": vendor, "arch": arch}
    if vendor == "amd":
        facts["amd_gfx"] = tuple(dict.fromkeys(g for g in gfx if g))
    if machine.os == "Darwin":
        facts["macos_version"] = macos_version_of(machine.os_version)
    if torch is not None and torch.companions:
        facts["companions"] = tuple(torch.companions)
    return facts


def macos_version_of(os_version: str | None) -> str | None:
    """"macOS 13.6.7" → "13.6"; None when the text holds no version."""
    match = re.search(r"\b(1[0-9]|2[0-9])\.(\d{1,2})", os_version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


# Interpreters that `pip` on the user's PATH installs into: an activated environment. A python3
# found on PATH is not one: the first `pip` on PATH often belongs to another Python (pyenv's, or
# ~/.local/bin's), so its command names the interpreter, as everything else found does.
_PLAIN_PIP = frozenset({None, "virtualenv", "conda"})


def pip_for(machine: Machine) -> str:
    """How the install command must call pip so torch lands in the interpreter that was checked:
    plain `pip` in an activated environment, `PYTHON -m pip` for one that is not active."""
    torch = machine.torch
    if torch is None or not torch.interpreter or torch.interpreter_source in _PLAIN_PIP:
        return "pip"
    return f"{shell_quote(torch.interpreter, machine.os, program=True)} -m pip"


def shell_quote(word: str, os_name: str | None = None, program: bool = False) -> str:
    """One word of a command, written so that the user's shell reads back exactly `word`, and
    so that a terminal shows all of it (`program`: it is what the command runs).

    POSIX: shlex's quoting; a word with a character no terminal shows as it is (a control, bidi
    or hidden zero-width character, a newline or tab, a byte that is not UTF-8) in bash's $'…'
    with escapes instead, printable and still exact when pasted. The joiners U+200C/U+200D are
    shown (wizard.text.output keeps them: Persian and emoji are spelled with them), so they stay.
    Windows: PowerShell's quoting (the shell Windows Terminal opens), where a word with no special
    character needs none and works in cmd too."""
    if (os_name or "") == "Windows":
        return _powershell_word(word, program)
    if _unshown(word):
        return _ansi_c(word)

    return shlex.quote(word)


def _unshown(text: str) -> bool:
    """`text` holds a character a terminal would not show as it is (wizard.text.output.has_hidden), or
    a newline or tab: shown, they would split the one word over lines or pass for spaces."""
    return has_hidden(text) or "\n" in text or "\t" in text


def _ansi_c(word: str) -> str:
    """bash's $'…': the hidden characters (and the bytes of a name that is not UTF-8) as \\xHH."""
    out = []
    for ch in word:
        if ch in "\\'":
            out.append("\\" + ch)
        elif "\udc80" <= ch <= "\udcff":             # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif _unshown(ch):
            out.append("".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


# A PowerShell word that needs no quotes: nothing in it starts an expression, a variable, a
# string, a redirection or another command. Letters of any script count (\w: no quote, dash or
# space is one), so a user folder named in Chinese stays bare and the command works in cmd too.
_POWERSHELL_PLAIN = re.compile(r"[\w:\\/.=+-]+")
# PowerShell reads the typographic quotes as quotes too (‘ ’ ‚ ‛ as ', “ ” „ as ").
_POWERSHELL_SINGLE = "'\u2018\u2019\u201a\u201b"
_POWERSHELL_DOUBLE = '"\u201c\u201d\u201e'


def _powershell_word(word: str, program: bool) -> str:
    """Single quotes, inside which PowerShell gives nothing a meaning but the quote itself
    (doubled); a word with hidden characters in double quotes, each as $([char]0x…), with `, $
    and the quotes escaped. A quoted program runs through the call operator `&`: a quoted
    string at the start of a line is only a value to PowerShell."""
    if _POWERSHELL_PLAIN.fullmatch(word):
        return word
    if _unshown(word):
        quoted = '"' + "".join(
            f"$([char]0x{ord(ch):04X})" if _unshown(ch)
            else "`" + ch if ch in "`$" + _POWERSHELL_DOUBLE else ch
            for ch in word) + '"'
    else:
        quoted = "'" + "".join(ch * 2 if ch in _POWERSHELL_SINGLE else ch for ch in word) + "'"
    return f"& {quoted}" if program else quoted


def choose_for_machine(machine: Machine, lang: str = "en", pip: str | None = None) -> TorchChoice:
    """`choose_torch` for a whole Machine snapshot (live probes or a recorded report)."""
    return choose_torch(**machine_facts(machine), lang=lang, pip=pip or pip_for(machine))


@dataclass
class _Context:
    matrix: TorchMatrix
    os: str
    arch: str
    driver: str | None
    ccs: list[tuple[int, int]]
    py: str | None
    lang: str
    pip: str
    macos: str | None = None
    companions: tuple[str, ...] = ()

    @property
    def platform(self) -> str:
        return f"{self.os}-{self.arch}"

    def text(self, key: str, **values: object) -> str:
        return t(f"torch.choice.{key}", self.lang, **values)

    def pip_cmd(self, version: str, index_url: str | None, extra: str = "") -> str:
        """pip's line, with torchvision/torchaudio when the environment has them: from the same
        index, pip picks the ones built for this torch (an old torchvision beside a new torch
        breaks the environment)."""
        return pip_command(version, index_url, self.pip, " ".join(filter(None, (*self.companions, extra))))

    def uv_cmd(self, version: str, backend: str | None, extra: str = "") -> str:
        command = uv_command(version, backend)
        parts = " ".join(filter(None, (*self.companions, extra)))
        return command.replace(f"torch=={version}", f"torch=={version} {parts}", 1) if parts else command

    def python_ok(self) -> tuple[Release, ...]:
        return tuple(r for r in self.matrix.choosable if self.py is None or r.supports_python(self.py))

    def nothing(self, problem: str, reason: str, notes: _Notes, fallback: TorchChoice | None = None) -> TorchChoice:
        texts, ids = list(notes.texts), list(notes.ids)
        if fallback is not None and fallback.command:
            texts.append(self.text("warn-cpu-meanwhile", command=fallback.command))
            ids.append("cpu-meanwhile")
        return TorchChoice(None, None, None, None, reason, tuple(texts), None, problem, tuple(ids),
                           fallback.command if fallback else None)

    def python_problem(self) -> TorchChoice:
        low, high = self.matrix.python_range
        last = self.matrix.python_last.get(self.py or "")
        if self.py and version_tuple(self.py) < version_tuple(low):
            # Older than every release we can recommend: name the last one it had, then the way out.
            key = "none-python-old" if last else "none-python-ancient"
            return self.nothing("python-too-old", self.text(key, python=self.py, last=last or "", low=low),
                                _Notes(self.lang))
        return self.nothing("python-unsupported",
                            self.text("none-python", python=self.py, low=low, high=high), _Notes(self.lang))

    # -- CPU ---------------------------------------------------------------------------------
    def cpu(self, notes: _Notes, reason_key: str, **values: object) -> TorchChoice:
        if self.platform not in self.matrix.cpu_platforms:
            return self.nothing("platform-unsupported", self.text("none-platform", platform=self.platform), notes)
        releases = self.python_ok()
        if not releases:
            return self.python_problem()
        release = releases[0]
        self._python_note(release, notes)
        url = self.matrix.variants["cpu"].index_url
        return TorchChoice(
            command=self.pip_cmd(release.version, url),
            index_url=url, variant="cpu", torch_version=release.version,
            reason=self.text(reason_key, version=release.version, **values),
            warnings=tuple(notes.texts), uv_command=self.uv_cmd(release.version, "cpu"),
            warning_ids=tuple(notes.ids),
        )

    def _macos_at_least(self, floor: str | None) -> bool:
        return not (self.macos and floor and version_tuple(self.macos) < version_tuple(floor))

    def _python_note(self, release: Release, notes: _Notes) -> None:
        newest = self.matrix.choosable[0]
        if release.version != newest.version and self.py and not newest.supports_python(self.py):
            notes.add("python-limits", newest=newest.version, low=newest.python_min,
                      high=newest.python_max, python=self.py)

    # -- macOS -------------------------------------------------------------------------------
    def mac(self) -> TorchChoice:
        notes = _Notes(self.lang)
        if self.ccs or self.driver:
            notes.add("mac-no-cuda")
        if self.arch == "x86_64":
            mac = self.matrix.macos_intel
            if self.py and not (version_tuple(mac.python_min)[:2] <= version_tuple(self.py)[:2]
                                <= version_tuple(mac.python_max)[:2]):
                return self.nothing("python-unsupported", self.text(
                    "none-mac-intel-python", version=mac.last_version, python=self.py,
                    low=mac.python_min, high=mac.python_max), notes)
            notes.add("mac-intel", version=mac.last_version)
            return TorchChoice(
                command=self.pip_cmd(mac.last_version, None, '"numpy<2"'),
                index_url=None, variant="cpu", torch_version=mac.last_version,
                reason=self.text("mac-intel", version=mac.last_version),
                warnings=tuple(notes.texts), uv_command=self.uv_cmd(mac.last_version, None, '"numpy<2"'),
                warning_ids=tuple(notes.ids),
            )
        releases = self.python_ok()
        if not releases:
            return self.python_problem()
        installs = [r for r in releases if self._macos_at_least(r.macos_min)]
        if not installs:
            return self.nothing("macos-too-old", self.text("none-macos", macos=self.macos,
                                                           needed=releases[-1].macos_min), notes)
        # The Apple GPU is the point of PyTorch on a Mac: the newest release that uses it here.
        with_mps = [r for r in installs if self._macos_at_least(r.mps_macos_min)]
        release = (with_mps or installs)[0]
        if release is not releases[0] and with_mps:
            newest = releases[0]
            notes.add("macos-limits", newest=newest.version, needed=newest.mps_macos_min or newest.macos_min,
                      macos=self.macos, version=release.version)
        self._python_note(release, notes)
        variant, reason = ("mps", "mac-mps") if with_mps else ("cpu", "mac-no-mps")
        return TorchChoice(
            command=self.pip_cmd(release.version, None), index_url=None, variant=variant,
            torch_version=release.version, reason=self.text(reason, version=release.version,
                                                            macos=self.macos or t("check.unknown", self.lang)),
            warnings=tuple(notes.texts), uv_command=self.uv_cmd(release.version, None),
            warning_ids=tuple(notes.ids),
        )

    # -- Intel -------------------------------------------------------------------------------
    def xpu(self) -> TorchChoice:
        """Intel Arc and Core Ultra graphics: the xpu build (Linux and Windows, x86_64)."""
        notes = _Notes(self.lang)
        releases = self.python_ok()
        if not releases:
            return self.python_problem()
        for release in releases:
            build = next((b for b in release.builds if b.variant.kind == "xpu" and b.confirmed
                          and self.platform in b.platforms), None)
            if build is None:
                continue
            self._python_note(release, notes)
            notes.add("xpu-driver")
            url = build.variant.index_url
            return TorchChoice(
                command=self.pip_cmd(release.version, url), index_url=url, variant="xpu",
                torch_version=release.version, reason=self.text("xpu", version=release.version),
                warnings=tuple(notes.texts), uv_command=self.uv_cmd(release.version, "xpu"),
                warning_ids=tuple(notes.ids),
            )
        notes.add("no-xpu-here", platform=self.platform)
        return self.cpu(notes, "cpu-no-gpu")

    # -- AMD ---------------------------------------------------------------------------------
    def amd(self, gfx: tuple[str, ...]) -> TorchChoice:
        notes = _Notes(self.lang)
        if self.os != "linux" or self.arch != "x86_64":
            notes.add("amd-no-rocm-here")
            return self.cpu(notes, "cpu-amd-windows" if self.os == "windows" else "cpu-no-gpu")
        releases = self.python_ok()
        if not releases:
            return self.python_problem()
        for release in releases:
            for build in release.builds:
                if build.variant.kind != "rocm" or self.platform not in build.platforms or not build.confirmed:
                    continue
                missing = [g for g in gfx if g not in build.variant.gfx]
                overrides = {g: override_for(g, build.variant.gfx) for g in missing}
                if not all(overrides.values()):
                    continue
                for g, value in overrides.items():
                    assert value is not None  # all() above
                    notes.add("hsa-override", gfx=g, override=value, target=OVERRIDE_TARGET[value])
                self._python_note(release, notes)
                if release.version != self.matrix.choosable[0].version:
                    notes.add("rocm-lags", newest=self.matrix.choosable[0].version, version=release.version)
                if not gfx:
                    notes.add("amd-gfx-unknown", variant=build.variant.name,
                              gfx=", ".join(build.variant.gfx))
                notes.add("rocm-setup")
                url = build.variant.index_url
                return TorchChoice(
                    command=self.pip_cmd(release.version, url), index_url=url,
                    variant=build.variant.name, torch_version=release.version,
                    reason=self.text("rocm", version=release.version, variant=build.variant.name,
                                     gfx=", ".join(gfx) or t("check.unknown", self.lang)),
                    warnings=tuple(notes.texts), uv_command=self.uv_cmd(release.version, build.variant.name),
                    warning_ids=tuple(notes.ids),
                )
        fallback = self.cpu(_Notes(self.lang), "cpu-no-gpu")
        return self.nothing("gpu-unsupported", self.text("none-amd-gfx", gfx=", ".join(gfx)), notes, fallback)

    # -- NVIDIA ------------------------------------------------------------------------------
    def _cuda_builds(self, release: Release) -> list[Build]:
        builds = [b for b in release.builds
                  if b.variant.kind == "cuda" and self.platform in b.platforms and b.confirmed]

        # The build plain PyPI carries is the best-tested one: on Linux aarch64 its own (CUDA 13.0
        # from 2.11); elsewhere Linux x86_64's, also for Windows, where PyPI itself is CPU-only.
        arm = release.pypi_default(self.platform) if self.platform == "linux-aarch64" else None
        preferred = arm if arm and arm != "cpu" else release.pypi_linux_default

        def preference(build: Build) -> tuple:
            default = build.variant.name == preferred
            return (not default, build.experimental, -version_tuple(build.variant.cuda or "0")[0] * 100
                    - version_tuple(build.variant.cuda or "0.0")[1])

        return sorted(builds, key=preference)

    def _covers(self, build: Build) -> bool:
        return all(arch_support(build.arch_list, cc) for cc in self.ccs)

    def _driver_ok(self, build: Build) -> bool:
        floor = build.variant.compat_floor(self.os)
        return self.driver is None or (floor is not None and driver_at_least(self.driver, floor))

    def gpus_text(self) -> str:
        return ", ".join(f"{sm_name(f'{a}.{b}')}" for a, b in self.ccs) or t("check.unknown", self.lang)

    def nvidia(self) -> TorchChoice:
        notes = _Notes(self.lang)
        if self.arch != "x86_64" and self.os == "windows":
            notes.add("no-cuda-here", platform=self.platform)
            return self.cpu(notes, "cpu-no-cuda-here", platform=self.platform)
        releases = self.python_ok()
        low = self.matrix.python_range[0]
        if not releases and self.py and version_tuple(self.py) < version_tuple(low):
            return self.python_problem()  # no build for this Python at all: a newer Python first
        for release in releases:
            for build in self._cuda_builds(release):
                if self._covers(build) and self._driver_ok(build):
                    return self._cuda_choice(release, build, notes)
        return self._cuda_nothing(releases, notes)

    def _cuda_choice(self, release: Release, build: Build, notes: _Notes) -> TorchChoice:
        variant = build.variant
        newest = self.matrix.choosable[0]
        if release.version != newest.version:
            self._explain_older(release, build, newest, notes)
        if self.driver is None:
            notes.add("driver-unknown", floor=variant.compat_floor(self.os), variant=variant.name)
        else:
            toolkit_floor = variant.toolkit_floor(self.os)
            if toolkit_floor and not driver_at_least(self.driver, toolkit_floor):
                notes.add("minor-compat", driver=self.driver, floor=toolkit_floor, toolkit=variant.toolkit,
                          variant=variant.name)
        if not self.ccs:
            legacy = self._legacy_command(release)
            if legacy:
                notes.add("arch-unknown", variant=variant.name, legacy=legacy)
            elif arch_support(build.arch_list, (5, 0)):
                notes.add("arch-unknown-covered", variant=variant.name)
            else:
                # No build here for pre-Turing cards at all (Linux aarch64: sm_80 and newer only).
                sms = sorted(build.arch.sm if build.arch else (), key=lambda s: int(s[3:].rstrip("af")))
                notes.add("arch-unknown-range", variant=variant.name,
                          low=sms[0] if sms else t("check.unknown", self.lang),
                          high=sms[-1] if sms else t("check.unknown", self.lang))
        elif any(arch_support(build.arch_list, cc) == "ptx" for cc in self.ccs):
            notes.add("ptx-only", gpus=self.gpus_text(), variant=variant.name)
        if build.experimental:
            notes.add("experimental", variant=variant.name, version=release.version)
        url = variant.index_url
        reason_key = "cuda" if self.ccs else "cuda-arch-unknown"
        return TorchChoice(
            command=self.pip_cmd(release.version, url), index_url=url, variant=variant.name,
            torch_version=release.version,
            reason=self.text(reason_key, version=release.version, variant=variant.name,
                             gpus=self.gpus_text(), driver=self.driver or t("check.unknown", self.lang),
                             floor=variant.compat_floor(self.os) or t("check.unknown", self.lang)),
            warnings=tuple(notes.texts), uv_command=self.uv_cmd(release.version, variant.name),
            warning_ids=tuple(notes.ids),
        )

    def _legacy_command(self, release: Release) -> str | None:
        """When the GPU is unknown: the build for pre-Turing cards, so the warning can offer it."""
        for candidate in self.python_ok():
            for build in self._cuda_builds(candidate):
                if arch_support(build.arch_list, (6, 1)) and self._driver_ok(build):
                    if candidate.version == release.version and build.variant.name == release.pypi_linux_default:
                        return None  # the choice already covers old GPUs
                    return self.pip_cmd(candidate.version, build.variant.index_url)
        return None

    def _explain_older(self, release: Release, build: Build, newest: Release, notes: _Notes) -> None:
        if self.py and not newest.supports_python(self.py):
            notes.add("python-limits", newest=newest.version, low=newest.python_min,
                      high=newest.python_max, python=self.py)
            return
        newest_builds = self._cuda_builds(newest)
        if not newest_builds:
            # Not "no kernels for your GPU": the table has no confirmed CUDA build of the newest
            # release for this platform at all (Linux aarch64 and 2.15, for one).
            notes.add("cuda-lags", newest=newest.version, platform=self.platform, version=release.version)
            return
        covering = [b for b in newest_builds if self._covers(b)]
        if not covering:
            # The newest build with this GPU's kernels may still be out of reach of this driver:
            # name that build, and the driver update that unlocks it, not the one chosen here.
            best = next(((r, b) for r in self.python_ok() for b in self._cuda_builds(r) if self._covers(b)),
                        (release, build))
            notes.add("gpu-limits", newest=newest.version, gpus=self.gpus_text(), version=best[0].version,
                      variant=best[1].variant.name)
            floor = best[1].variant.compat_floor(self.os)
            if best[0].version != release.version and self.driver and floor:
                notes.add("driver-limits", driver=self.driver, variant=build.variant.name,
                          series=release.series, floor=floor, newest=best[0].version)
            return
        # The matrix's floors are checked driver versions at load: each parses.
        floors = sorted({floor for b in covering if (floor := b.variant.compat_floor(self.os))},
                        key=lambda floor: driver_tuple(floor) or ())
        if floors and self.driver and not driver_at_least(self.driver, floors[0]):
            notes.add("driver-limits", driver=self.driver, variant=build.variant.name,
                      series=release.series, floor=floors[0], newest=newest.version)

    def _cuda_nothing(self, releases: tuple[Release, ...], notes: _Notes) -> TorchChoice:
        fallback = self.cpu(_Notes(self.lang), "cpu-no-gpu")
        every = self.matrix.choosable
        # Ignoring Python: is there any build with this GPU's kernels, and does the driver suffice?
        any_arch = [(r, b) for r in every for b in self._cuda_builds(r) if self._covers(b)]
        if not any_arch:
            if self.platform not in ("linux-x86_64", "windows-x86_64", "linux-aarch64") or not any(
                    self._cuda_builds(r) for r in every):
                return self.nothing("platform-unsupported",
                                    self.text("none-platform", platform=self.platform), notes, fallback)
            lowest = min((sm for r in every for b in self._cuda_builds(r) for sm in (b.arch.sm if b.arch else ())),
                         key=lambda s: int(s[3:].rstrip("af")))
            newer = all(cc > (12, 9) for cc in self.ccs)
            return self.nothing("gpu-too-new" if newer else "gpu-too-old",
                                self.text("none-gpu-new" if newer else "none-gpu-old",
                                          gpus=self.gpus_text(), lowest=lowest), notes, fallback)
        fits_driver = [(r, b) for r, b in any_arch if self._driver_ok(b)]
        if not fits_driver:
            r, b = min(any_arch, key=lambda rb: driver_tuple(rb[1].variant.compat_floor(self.os) or "999") or ())
            current = any_arch[0][1].variant.compat_floor(self.os)
            return self.nothing("driver-too-old", self.text(
                "none-driver", driver=self.driver, gpus=self.gpus_text(), floor=b.variant.compat_floor(self.os),
                variant=b.variant.name, version=r.version, current=current), notes, fallback)
        r, b = fits_driver[0]
        return self.nothing("python-unsupported", self.text(
            "none-python-gpu", python=self.py, gpus=self.gpus_text(), version=r.version,
            variant=b.variant.name, low=r.python_min, high=r.python_max), notes, fallback)
