"""`gpu-wizard torch-command`: the exact PyTorch install line for this machine or a described one.

Live by default (NVIDIA driver and GPUs from the probes, the Python of `--python`); any of
`--os/--driver/--compute-capability/--python-version/--gpu-vendor/--arch` describes another
machine instead, an omitted flag meaning "unknown / none" (the OS defaults to this one's).
Exit 0 with a command, 1 when nothing fits (the reason says why), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import platform
import re
import shutil
import sys
from dataclasses import replace

from wizard.probe.discover import discover
from wizard.probe.facts import TorchInfo, to_dict
from wizard.text.i18n import language_from_env, t
from wizard.text.output import json_text, mark, safe, wrap

HELP = "print the PyTorch install command that fits this machine (or a described one)"

_PYTHON = re.compile(r"^3\.\d{1,2}(\.\d{1,2})?$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--os", help="describe a machine: linux, windows or macos (default: this one's)")
    parser.add_argument("--driver", metavar="VERSION", help="NVIDIA driver version, e.g. 550.54.14")
    parser.add_argument("--compute-capability", metavar="X.Y", action="append", default=[],
                        help="an NVIDIA GPU's compute capability, e.g. 8.6 (repeat for several GPUs)")
    parser.add_argument("--python-version", metavar="X.Y", help="the Python version torch is for, e.g. 3.12")
    parser.add_argument("--gpu-vendor", choices=("nvidia", "amd", "intel", "apple", "none"),
                        help="the GPU's maker when there is no driver/capability to say so")
    parser.add_argument("--amd-gfx", metavar="GFX", action="append", default=[],
                        help="an AMD GPU's architecture, e.g. gfx1100 (repeatable)")
    parser.add_argument("--arch", metavar="ARCH", help="CPU architecture: x86_64 or aarch64/arm64")
    parser.add_argument("--macos-version", metavar="X.Y",
                        help="the Mac's macOS version, e.g. 13.6 (torch 2.12 and newer need macOS 14)")
    parser.add_argument("--python", metavar="PATH", help="live mode: the interpreter torch is for")
    parser.add_argument("--no-discover", action="store_true",
                        help="run no Python to look for PyTorch but --python (or gpu-wizard's own)")
    parser.add_argument("--machine", metavar="FILE", help="use a recorded machine (a saved report) instead of probing")
    parser.add_argument("--json", action="store_true",
                        help='print {"command", "index_url", "variant", "torch_version", "reason", "warnings"}')
    parser.add_argument("--lang", choices=("en", "zh"), help="language (default: from the locale)")


def _described(args: argparse.Namespace) -> bool:
    return any([args.os, args.driver, args.compute_capability, args.python_version, args.gpu_vendor,
                args.arch, args.amd_gfx, args.macos_version])


def _bad(message: str) -> int:
    # The message may quote the user's arguments or a --machine file's own words.
    print(safe(f"gpu-wizard torch-command: error: {message}", sys.stderr), file=sys.stderr)
    return 2


def _validate(args: argparse.Namespace, lang: str) -> str | None:
    # `--help` imports every command's module: the build choice and the torch matrix cost
    # +30-55 ms there at the top (measured 2026-12-04).
    from wizard.pytorch.choose import normalize_os
    from wizard.pytorch.matrix import driver_tuple, parse_cc

    if args.os and normalize_os(args.os) is None:
        return t("torch.command.bad-os", lang, value=args.os)
    for value in args.compute_capability:
        cc = parse_cc(value)
        # NVIDIA's compute capabilities run from 1.0 (2006) to 12.x (Blackwell, 2025): "99.9" is a typo.
        if cc is None or not 1 <= cc[0] <= 15:
            return t("torch.command.bad-cc", lang, value=value)
    if args.driver is not None and (driver_tuple(args.driver) is None
                                    or not re.fullmatch(r"\d{2,4}(\.\d{1,3}){0,2}", args.driver.strip())):
        return t("torch.command.bad-driver", lang, value=args.driver)
    if args.python_version is not None and not _PYTHON.match(args.python_version.strip()):
        return t("torch.command.bad-python", lang, value=args.python_version)
    if args.macos_version is not None and not re.fullmatch(r"1[0-9]|2[0-9]|(1[0-9]|2[0-9])\.\d{1,2}(\.\d{1,2})?",
                                                           args.macos_version.strip()):
        return t("torch.command.bad-macos", lang, value=args.macos_version)
    if args.macos_version and args.os and normalize_os(args.os) != "macos":
        return t("torch.command.macos-not-mac", lang, os=args.os)
    for value in args.amd_gfx:
        if not re.fullmatch(r"gfx[0-9a-fA-F]{3,4}", value):
            return f"{value!r} is not an AMD GPU architecture like gfx1100"
    return None


def run(args: argparse.Namespace) -> int:
    from wizard.pytorch.choose import choose_torch  # +30-55 ms on --help at the top: see _validate

    lang = args.lang or language_from_env()
    problem = _validate(args, lang)
    if problem:
        return _bad(problem)

    if _described(args):
        facts = {
            "os": args.os or platform.system(),
            "driver": args.driver.strip() if args.driver else None,
            "compute_capabilities": [c.strip() for c in args.compute_capability],
            "python_version": args.python_version.strip() if args.python_version else None,
            "gpu_vendor": None if args.gpu_vendor in (None, "none") else args.gpu_vendor,
            "arch": args.arch,
        }
        if args.macos_version:
            facts["os"] = "macos"
            parts = args.macos_version.strip().split(".")
            facts["macos_version"] = f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"
        if args.gpu_vendor == "none" and (facts["driver"] or facts["compute_capabilities"]):
            return _bad("--gpu-vendor none contradicts --driver/--compute-capability")
        source = "described"
    else:
        live = _live_facts(args, lang)
        if isinstance(live, int):
            return live
        facts = live
        source = "recorded" if args.machine else "live"

    # The install must land in the interpreter it was chosen for, whatever `pip` means on PATH.
    pip = facts.pop("_pip", "pip")
    ran = facts.pop("_ran", None)  # the Python run to learn its version, and those not run
    installed = facts.pop("_installed", None)   # (version, runs on the GPU: True/False/unknown)
    if args.amd_gfx:
        facts["amd_gfx"] = tuple(args.amd_gfx)
    try:
        choice = choose_torch(**facts, lang=lang, pip=pip)
    except ValueError as exc:  # the checks above should have caught it; never a traceback
        return _bad(str(exc))

    if args.json:
        payload = choice.to_json()
        if ran is not None:
            payload.update(_ran_json(ran))

        # The interpreter's path as it is (json_text escapes what a terminal must not get, and
        # mends a byte that is not UTF-8, in the printed copy only).
        sys.stdout.write(json_text(payload) + "\n")
    else:
        sys.stdout.write(render_text(choice, facts, source, lang, ran, installed))
    return 0 if choice.command else 1


def _live_facts(args: argparse.Namespace, lang: str) -> dict | int:
    from wizard.pytorch.choose import machine_facts, pip_for  # see _validate

    if args.machine:
        # With --machine only: +16-23 ms for a live or described machine (measured 2026-12-04).
        from wizard.machine.recorded import MachineFileError, load_machine

        try:
            machine = load_machine(args.machine)
        except MachineFileError as exc:
            return _bad(t("torch.command.bad-machine", lang, file=args.machine, error=exc))
        facts = machine_facts(machine)
        facts["_pip"] = pip_for(machine)
        torch = machine.torch
        if torch is not None and torch.status == "ok" and torch.version:
            # A recorded torch only: the diagnosis and its words, +8-17 ms on `--help` at the top
            # (measured 2026-12-04).
            from wizard.diagnosis import judgement
            from wizard.presentation import findings_for

            facts["_installed"] = (torch.version, judgement.torch_uses_gpu(torch, findings_for(machine, lang)))
        return facts

    facts, _machine, _chosen, static = live_facts(args.python, lang, for_install=True, no_discover=args.no_discover)
    if static.installed and static.version:
        facts["_installed"] = (static.version, None)   # not imported here: whether it works is check's
    return facts


def _ran_json(ran) -> dict:
    """Which Python the command is for (it was run for its version), and the ones not run."""
    return {"interpreter": ran.interpreter, "interpreter_source": ran.interpreter_source,
            "not_run": to_dict(ran.not_run)}


def live_facts(python: str | None, lang: str, for_install: bool = False, no_discover: bool = False,
               consent=None):
    """(choose_torch's facts, the machine, the chosen interpreter, its static torch facts) for
    this computer and the Python that will use torch: `python`, else the one discovery finds.

    Its version is all the choice needs from that Python: no torch import. The facts carry
    `_pip`, how the command must call pip to install into it. `for_install`: the Python to install
    into (wizard.probe.discover.Discovery.install_target), which is never gpu-wizard's own while
    an environment of the user's runs. The facts' `_ran` is a TorchInfo naming that Python and
    the ones found and not run (wizard.probe.discover.Gate); `consent` may ask the user about a
    folder's own environment (install-torch in a terminal)."""
    # This computer's probes (psutil with them): +9-15 ms that a described machine never needs
    # (measured 2026-12-04).
    from wizard.machine.live import probe_this_machine
    from wizard.pytorch.choose import machine_facts, pip_for  # see _validate
    from wizard.pytorch.probe.static import static_torch_facts

    found = discover(python, consent=consent, no_discover=no_discover)
    chosen = found.install_target() if for_install else found.chosen
    python_facts = static_torch_facts(chosen.path)
    machine = probe_this_machine(lang, python=python, with_torch=False)
    facts = machine_facts(machine)
    if python_facts.companions:
        facts["companions"] = python_facts.companions
    if python_facts.python_version:
        facts["python_version"] = python_facts.python_version
        # On a Mac the hardware decides (an Intel Python on Apple Silicon is the thing to fix).
        if python_facts.python_arch and machine.os != "Darwin":
            facts["arch"] = python_facts.python_arch
    torch = TorchInfo(status="not-installed", interpreter=chosen.path, interpreter_source=chosen.source)
    facts["_pip"] = pip_for(replace(machine, torch=torch))
    facts["_ran"] = replace(torch, not_run=tuple(found.not_run()))
    return facts, machine, chosen, python_facts


def _describe_machine(facts: dict, lang: str = "en") -> str:
    parts = [str(facts.get("os") or t("torch.command.os-unknown", lang))]
    if facts.get("arch"):
        parts.append(str(facts["arch"]))
    if facts.get("python_version"):
        parts.append(f"Python {facts['python_version']}")
    if facts.get("driver"):
        parts.append(t("torch.command.driver", lang, driver=facts["driver"]))
    if facts.get("macos_version"):
        parts.append(f"macOS {facts['macos_version']}")
    ccs = facts.get("compute_capabilities") or []
    if ccs:
        parts.append(t("torch.command.cc", lang, cc=", ".join(ccs)))
    elif facts.get("gpu_vendor"):
        parts.append(t("torch.command.vendor-gpu", lang, vendor=facts["gpu_vendor"]))
    return t("torch.command.joiner", lang).join(parts)


def render_text(choice, facts: dict, source: str, lang: str, ran=None, installed=None) -> str:
    # What only the text needs, here for `--help` (see _validate): the mirrors (the installer
    # with them), the torch sentences and the screens' words, +70-90 ms there (measured 2026-12-04).
    from wizard.presentation import device_of, verify_lines
    from wizard.pytorch.matrix import load_matrix
    from wizard.pytorch.mirrors import china_lines, platform_of
    from wizard.pytorch.wording import interpreter_line, not_run_lines

    width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns)) - 2
    out: list[str] = []

    def line(text: str = "", indent: int = 0, hang: int = 0) -> None:
        out.extend(wrap(text, width, indent, hang) if text else [""])

    where = {"described": t("torch.command.described", lang), "live": t("torch.command.live", lang)}.get(
        source, source)
    line(f"{t('torch.command.heading', lang)} ({where}: {_describe_machine(facts, lang)})")
    if ran is not None:
        line(interpreter_line(ran, lang), 2)
        for text in not_run_lines(ran, lang):
            line(text, 4 if text.startswith("- ") else 2, 2)
    line()
    if installed is not None:
        # Asked for a command, told first when there is a PyTorch to keep: installing is not
        # the answer to everything.
        version, works = installed
        key = "torch.command.keep-works" if works else \
            "torch.command.installed-unknown" if works is None else "torch.command.installed-not-gpu"
        line(t(key, lang, version=version))
        line()
    if choice.command:
        line(f"{mark('ok')} {t('torch.command.command', lang)}:")
        out.append("    " + choice.command)  # never wrapped: it must stay copy-pasteable
        if choice.uv_command:
            line(f"{t('torch.command.uv', lang)}:", 2)
            out.append("    " + choice.uv_command)
        china = china_lines(choice.command, lang, platform=platform_of(facts.get("os"), facts.get("arch")))
        if china:
            line()
            for item in china:
                if item.kind == "command":
                    out.append("    " + item.text)  # unwrapped, like the command above
                else:
                    line(item.text, 0 if item is china[0] else 2, 2)
        line()
        line(f"{t('torch.command.why', lang)}: {choice.reason}", 0, 2)

        verify = verify_lines(choice.command, device_of(choice.variant), None, lang)
        if verify:
            line()
            line(verify[0])
            out.append("    " + verify[1])   # unwrapped, like the command
            for text in verify[2:]:
                line(text, 2, 0)
    else:
        line(f"{mark('error')} {t('torch.command.nothing', lang)}")
        line(choice.reason, 2)
    if choice.warnings:
        line()
        line(f"{t('torch.command.notes', lang)}:")
        for warning in choice.warnings:
            line(f"- {warning}", 2, 2)
    matrix = load_matrix()
    cpu, cuda = matrix.size("cpu"), matrix.size("cuda")
    if cpu and cuda and choice.variant not in ("mps", None) and not str(choice.variant).startswith("rocm"):
        line()
        line(t("torch.command.size-cpu", lang, cpu=f"{cpu.download_mb:.0f}", cuda=f"{cuda.download_mb:.0f}",
               cuda_installed=f"{cuda.installed_mb:.0f}"))
    return safe("\n".join(out) + "\n")
