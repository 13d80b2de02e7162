"""The install lines that work from mainland China, under the install command, in Chinese only.

download.pytorch.org is slow from many networks in mainland China. PyPI has a fast public mirror
there, and universities mirror PyTorch's wheel index (content/torch_mirrors.toml). Given the
command gpu-wizard chose, this says which of them serve that build and gives the same command
pointed at them: the same torch version and the same torchvision/torchaudio, all from one index,
so the companions stay built for that torch. Where no mirror has the build, it says so plainly.

`gpu-wizard torch-command --lang zh` and the result page both use `china_lines`. Pure: reads the
content files, no network, no Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wizard.knowledge.content import ContentError
from wizard.knowledge.damaged import KnowledgeError
from wizard.pytorch import installer
from wizard.pytorch.choose import normalize_arch, normalize_os
from wizard.pytorch.matrix import INDEX_BASE, load_matrix
from wizard.text.i18n import t

# `{pip} install torch==X [companions, extras] [--index-url URL]`, as wizard.pytorch.choose writes it.
_INDEX_TAIL = re.compile(r" --index-url (\S+)$")
_INSTALL = re.compile(r"^(?P<pip>.+?) install (?P<packages>torch==(?P<version>[0-9][^\s]*)(?: \S+)*)$")


@dataclass(frozen=True)
class ChinaLine:
    kind: str                   # "text": a sentence to wrap; "command": to show as it is, unwrapped
    text: str


@dataclass(frozen=True)
class _Command:
    pip: str                    # "pip", or "/path/python -m pip"
    packages: str               # "torch==2.14.1 torchvision", kept exactly as written
    version: str                # "2.14.1"
    variant: str | None         # "cu130", "cpu", ...; None: plain PyPI (no --index-url)

    @property
    def only_torch(self) -> bool:
        return self.packages == f"torch=={self.version}"


def _parse(command: str) -> _Command | None:
    index = _INDEX_TAIL.search(command)
    head = command[:index.start()] if index else command
    match = _INSTALL.match(head)
    if match is None:
        return None
    variant = None
    if index:
        url = index.group(1)
        if not url.startswith(INDEX_BASE):
            return None  # someone's own index: nothing to say about mirrors of it
        variant = url[len(INDEX_BASE):].strip("/")
        if not variant or "/" in variant:
            return None
    return _Command(match["pip"], match["packages"], match["version"], variant)


def platform_of(os_name: str | None, arch: str | None) -> str | None:
    """ "Linux", "aarch64" → "linux-aarch64": the matrix's platform names."""
    name = normalize_os(os_name) if os_name else None
    return f"{name}-{normalize_arch(arch, name)}" if name else None


def _size_note(variant: str, lang: str) -> str:
    """ " (about 3.0 GB to download, measured on Linux on 2026-11-30)": one dated size per kind."""
    kind = "cpu" if variant == "cpu" else "cuda" if variant.startswith("cu") else None
    if kind is None:
        return ""
    try:
        matrix = load_matrix()
    except ContentError:
        return ""
    fact = matrix.size(kind)
    if fact is None:
        return ""
    source = matrix.sources.get(fact.source[0]) if fact.source else None
    date = source.checked if source else ""
    return t("torch.china.size", lang, gb=f"{fact.download_mb / 1000:.1f}", date=date)


def _pypi_has_it(parsed: _Command, platform: str | None) -> bool:
    """Is PyPI's own torch of this version the chosen build on this platform (so a PyPI mirror
    serves it)? Macs always; elsewhere the matrix says which build plain PyPI carries."""
    if parsed.variant is None:
        return True
    if platform is None:
        return False
    try:
        release = load_matrix().release(parsed.version)
    except ContentError:
        return False
    return release is not None and release.version == parsed.version \
        and release.pypi_default(platform) == parsed.variant


def china_lines(command: str | None, lang: str, *, platform: str | None = None) -> tuple[ChinaLine, ...]:
    """The lines to show under `command` for a reader in mainland China; none in English.

    `platform` ("linux-x86_64", "windows-x86_64", "macos-arm64", ...) lets it offer the PyPI
    mirror alone when PyPI's own torch is the chosen build; without it, only the wheel mirrors."""
    if lang != "zh" or not command:
        return ()
    parsed = _parse(command)
    if parsed is None:
        return ()
    try:
        mirrors = list(installer.load_mirrors().values())
        pypi = installer.load_pypi_mirror()
    except (KnowledgeError, ContentError):
        return ()  # a damaged mirror table: the command above still stands on its own
    size = _size_note(parsed.variant, lang) if parsed.variant else ""
    heading = ChinaLine("text", t("torch.china.heading", lang, size=size))
    out = [heading]

    if _pypi_has_it(parsed, platform):
        key = "via-pypi" if parsed.variant else "via-pypi-mac"
        out.append(ChinaLine("text", t(f"torch.china.{key}", lang, pypi=pypi.title_zh, version=parsed.version,
                                       variant=parsed.variant or "")))
        out.append(ChinaLine("command", f"{parsed.pip} install {parsed.packages} -i {pypi.url}"))
    if parsed.variant is None:
        return tuple(out)

    index = next((m for m in mirrors if m.kind == "index" and parsed.variant in m.variants), None)
    flat = next((m for m in mirrors if m.kind == "find-links" and parsed.variant in m.variants), None)
    if index is not None:
        # The mirror copies the whole per-variant index: torch, torchvision/torchaudio and the
        # dependencies all come from it, exactly as from download.pytorch.org.
        out.append(ChinaLine("text", t("torch.china.via-mirror", lang, mirror=index.title_zh)))
        out.append(ChinaLine("command", f"{parsed.pip} install {parsed.packages} --index-url "
                                        f"{index.url_for(parsed.variant)}"))
    elif flat is not None and parsed.only_torch:
        # A flat folder beside PyPI: only the local version tag keeps pip off PyPI's own build.
        out.append(ChinaLine("text", t("torch.china.via-find-links", lang, mirror=flat.title_zh,
                                       pypi=pypi.title_zh)))
        out.append(ChinaLine("command", f"{parsed.pip} install torch=={parsed.version}+{parsed.variant} "
                                        f"-f {flat.url_for(parsed.variant)} -i {pypi.url}"))
    elif out == [heading]:
        # Nothing in mainland China serves this build: say so plainly, and keep the command above.
        names = "、".join(m.title_zh for m in mirrors)
        return (ChinaLine("text", t("torch.china.no-mirror", lang, variant=parsed.variant,
                                    version=parsed.version, mirrors=names, size=size)),)
    out.append(ChinaLine("text", t("torch.china.fallback", lang)))
    return tuple(out)


def china_lines_for_machine(command: str | None, machine: object, lang: str) -> tuple[ChinaLine, ...]:
    """`china_lines` for the wizard's result page: the platform from a Machine snapshot."""
    torch = getattr(machine, "torch", None)
    arch = (getattr(torch, "python_arch", None) if torch is not None else None) or getattr(machine, "arch", None)
    return china_lines(command, lang, platform=platform_of(getattr(machine, "os", None), arch))
