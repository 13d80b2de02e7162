"""`gpu-wizard check [--json] [--machine FILE] [--lang en|zh]`: one-shot diagnosis."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import asdict, replace

from wizard import __version__
from wizard.diagnosis import nvidia_cause
from wizard.probe.nvml_job import NvmlJob
from wizard.text.i18n import has, language_from_env, t
from wizard.text.output import clean_strings, gb_text, mark, safe, wrap

HELP = "diagnose this machine once: facts, findings and fixes (exit 1 if a problem was found)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object (the report's machine + findings)")
    parser.add_argument("--markdown", action="store_true",
                        help="print a block to paste into a GitHub issue (what `python -m torch.utils.collect_env`"
                             " gives, and the findings)")
    parser.add_argument("--machine", metavar="FILE", help="use a recorded machine instead of probing")
    parser.add_argument("--lang", choices=("en", "zh"), help="language (default: from the locale)")
    parser.add_argument("--python", metavar="PATH", help="the interpreter whose torch is checked")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch check")
    parser.add_argument("--no-discover", action="store_true",
                        help="run no Python to look for PyTorch but --python (or gpu-wizard's own)")
    parser.add_argument("--no-gpu-test", action="store_true",
                        help="do not run a tiny kernel on each visible GPU")
    parser.add_argument("--benchmark", action="store_true", help="also time a matrix multiply (a few seconds)")
    parser.add_argument("--no-redact", action="store_true", help="keep host name and GPU UUIDs in the output")


def run(args: argparse.Namespace) -> int:
    nvml_job = None
    if not args.machine:
        # The NVML child first, before anything else loads: it runs while the rest of the probes
        # and the diagnosis load.
        nvml_job = NvmlJob()

    lang = args.lang or language_from_env()
    if args.machine:
        # A recorded machine: +14 ms that the live check never needs (measured 2026-12-04).
        from wizard.machine.recorded import MachineFileError, load_machine

        try:
            machine = load_machine(args.machine, lang)
        except MachineFileError as exc:
            print(safe(f"gpu-wizard: {exc}", sys.stderr), file=sys.stderr)
            return 2
    else:
        # The probes and the diagnosis below load after the NVML child has started, and while it
        # runs: at the top they would start it +35-40 ms later (measured 2026-12-04).
        from wizard.machine.live import probe_this_machine

        machine = probe_this_machine(lang, python=args.python, with_torch=not args.no_torch,
                                     benchmark=args.benchmark, gpu_test=not args.no_gpu_test,
                                     others_early=True, nvml_job=nvml_job,
                                     no_discover=args.no_discover)
    # After the NVML child has started: see above.
    from wizard.diagnosis.findings import worst
    from wizard.evaluate import evaluate

    # Diagnose the machine as it is: a fix must name the real interpreter (`~/proj/.venv/bin/python
    # -m pip`), not the bare name redaction leaves. What is made to be saved or pasted (JSON, the
    # Markdown block) is then redacted in one pass, the report's: the JSON as the report's table
    # is written (worded, then redacted), the block from the redacted Machine; the text is for
    # this terminal: the machine's identifiers redacted the same way, the Python and the findings
    # as they are, as in torch-command and the wizard (wizard.presentation).
    findings = list(evaluate(machine, None, None, lang).findings)
    if args.markdown:
        # Pasted in public: in English, like the bug trackers it goes to.
        english = findings if lang == "en" else list(evaluate(machine, None, None, "en").findings)
        sys.stdout.write(render_markdown(*_shared(machine, english, args.no_redact)))
    elif args.json:
        # After the NVML child has started: see above.
        from wizard.report.building import machine_table
        from wizard.report.redaction import redact_report

        payload = {"machine": machine_table(machine, lang), "findings": [asdict(f) for f in findings]}
        if not args.no_redact:
            payload = redact_report(payload)
            del payload["redacted"]   # the report's mark: `check --json` has machine and findings only
        json.dump(clean_strings(payload), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        shared, _ = _shared(machine, [], args.no_redact)
        sys.stdout.write(render_text(replace(shared, torch=machine.torch), findings, lang, recorded=args.machine))
    return 1 if worst(findings) == "error" else 0


def _shared(machine, findings, no_redact: bool):
    """(machine, findings) as they may be saved or pasted: one redaction over both, the report's."""
    if no_redact:
        return machine, findings
    from wizard.report.redaction import redact_machine  # after the NVML child has started (run)

    return redact_machine(machine, findings)


def render_text(machine, findings, lang: str, recorded: str | None = None) -> str:
    # The words of the text output: +35 ms that `--json` never needs (measured 2026-12-04).
    from wizard.presentation import present
    from wizard.pytorch.wording import gpu_test_line, interpreter_line, not_run_lines, torch_message
    from wizard.text.evidence import chassis_evidence_text, probe_status_text, run_text

    width = max(40, min(100, shutil.get_terminal_size((80, 24)).columns)) - 2
    out: list[str] = []
    shown = present(machine, findings, None, lang)

    def line(text: str = "", indent: int = 0) -> None:
        if not text:
            out.append("")
            return
        hang = 2 if text.startswith(("- ", "• ")) or text[:1] in "✓⚠✗•[" else 0
        out.extend(wrap(text, width, indent, hang))

    def row(label: str, value: str) -> None:
        line(f"{label}{t('check.sep', lang)}{value}", 2)

    def unknown(value, fmt=str) -> str:
        return fmt(value) if value is not None else t("check.unknown", lang)

    line(t("check.heading-recorded", lang, file=recorded) if recorded else t("check.heading", lang))
    line()
    line(t("check.system", lang))
    row(t("check.os", lang), f"{machine.os_version} ({machine.arch}), Python {machine.python_version}")
    cores = t("check.cores", lang, cores=unknown(machine.cpu_cores), threads=unknown(machine.cpu_threads))
    row(t("check.cpu", lang), f"{machine.cpu_model} — {cores}")
    row(t("check.ram", lang), unknown(machine.ram_gb, lambda v: t("check.gb", lang, value=gb_text(v))))
    row(t("check.disk", lang), unknown(machine.disk_free_gb, lambda v: t("check.gb", lang, value=gb_text(v))))
    row(t("check.chassis", lang), t(f"check.chassis-kind.{machine.chassis}", lang))
    for evidence in machine.chassis_evidence[:3]:
        line(f"- {chassis_evidence_text(evidence, lang)}", 6)
    line()

    nv = machine.nvidia
    reason = nvidia_cause.reason_of(machine)
    severity = shown.nvidia
    label_key = f"check.nvidia-reason.{reason}"
    label = t(label_key, lang) if reason and has(label_key, lang) \
        else t(f"check.nvidia-status.{nv.status}", lang)
    line(f"{mark(severity)} {t('check.nvidia', lang)}{t('check.sep', lang)}{label}")
    if reason == "jetson" and nv.driver_version:
        line(t("check.l4t", lang, version=nv.driver_version), 4)
    elif nv.driver_version and nv.cuda_driver_version:
        line(t("check.driver", lang, driver=nv.driver_version, cuda=nv.cuda_driver_version), 4)
    elif nv.driver_version:  # read from the kernel module's files, without NVML
        line(t("check.driver_only", lang, driver=nv.driver_version), 4)
    if nv.status != "ok":
        line(nvidia_cause.nvidia_message(machine, lang), 4)
    line()

    line(t("check.gpus", lang))
    if not machine.gpus:
        unread = nv.reason == "gpus-unreadable"
        line(t("check.gpus-unknown" if unread else "check.no-gpus", lang), 2)
    for gpu in machine.gpus:
        parts = []
        if gpu.vram_gb is not None:
            parts.append(t("check.vram", lang, vram=gb_text(gpu.vram_gb)))
        if gpu.unified_memory:
            parts.append(t("check.shared-memory", lang))
        if gpu.compute_capability:
            parts.append(t("check.cc", lang, cc=gpu.compute_capability))
        if gpu.kernel_driver is not None and gpu.source == "pci":
            parts.append(t("check.driver-bound", lang, driver=gpu.kernel_driver) if gpu.kernel_driver
                         else t("check.no-driver-bound", lang))
        if gpu.pci_id:
            parts.append(gpu.pci_id)
        line(f"- {gpu.name} ({', '.join(parts)}) [{gpu.source}]", 2)
    line()

    line(t("check.torch", lang))
    torch = machine.torch
    if torch is None:
        line(t("check.torch-not-checked", lang), 2)
    else:
        summary = t(f"report.torch-status.{torch.status}", lang)
        if torch.version:
            summary += f"{t('check.comma', lang)}{torch.version}"
        if torch.build:
            summary += f" ({torch.build})"
        if torch.cuda_available is not None:
            summary += f"{t('check.comma', lang)}cuda.is_available() = {torch.cuda_available}"
        line(f"{mark(shown.torch or 'info')} {summary}", 2)
        if torch.interpreter:
            line(interpreter_line(torch, lang), 4)
        for device in torch.devices:
            capability = device.capability or ""
            if capability and not capability.startswith("gfx"):
                capability = t("check.cc", lang, cc=capability)
            line(f"- {device.name}" + (f" ({capability})" if capability else ""), 4)
        for test in torch.gpu_tests:
            line(gpu_test_line(test, lang), 4)
        line(torch_message(torch, lang), 4)
        for text in environment_lines(torch, lang):
            line(text, 4)
        if torch.other_pythons:
            line(t("check.other-pythons", lang), 4)
            for other in torch.other_pythons:
                line(f"- {other.interpreter} ({t(f'check.source.{other.source}', lang)}"
                     + (f", torch {other.torch_version}" if other.torch_version else "") + ")", 6)
        for text in not_run_lines(torch, lang):
            line(text, 6 if text.startswith("- ") else 4)
    if machine.benchmark is not None:
        bench = machine.benchmark
        text = t("evidence.benchmark.cpu", lang, size=bench.matrix_size, dtype=bench.dtype,
                 gflops=f"{bench.cpu_gflops:g}")
        if bench.gpu_tflops is not None:
            text += t("evidence.benchmark.gpu", lang, tflops=f"{bench.gpu_tflops:g}")
        line(text, 2)
    line()

    trouble = [p for p in machine.probes if p.status in ("timeout", "error")]
    if trouble:
        line(t("check.probe-trouble", lang))
        for probe in trouble:
            line(f"- {probe.name}{t('check.sep', lang)}{probe_status_text(probe.status, lang)}"
                 + (f" — {run_text(probe.detail, lang)}" if probe.detail else ""), 2)
        line()

    line(t("check.findings", lang))
    if not findings:
        line(t("check.no-findings", lang), 2)
    for finding in findings:
        line(f"{mark(finding.severity)} {finding.title}", 2)
        line(finding.detail, 6)
        if finding.fix:
            line(f"{t('check.fix', lang)}{t('check.sep', lang)}{finding.fix}", 6)
    errors = sum(f.severity == "error" for f in findings)
    warnings = sum(f.severity == "warning" for f in findings)
    line()
    line(t("check.summary-problems", lang, errors=errors, warnings=warnings) if errors or warnings
         else t("check.summary-ok", lang))
    line()
    line(f"{t('present.action.heading', lang)}{t('check.sep', lang)}{shown.action_text}")
    return safe("\n".join(out) + "\n")


def environment_lines(torch, lang: str) -> list[str]:
    """What a bug report asks about the Python checked besides torch itself (collect_env's
    facts): cuDNN, the C library, the library variables that are set (by name) and the packages."""
    lines = []
    if torch.cudnn_version:
        lines.append(t("check.torch-cudnn", lang, version=torch.cudnn_version))
    if torch.glibc_version:
        lines.append(t("check.torch-glibc", lang, version=torch.glibc_version))
    if torch.env_vars:
        lines.append(t("check.torch-env", lang, names=", ".join(torch.env_vars))
                     + (t("check.torch-env-cuda", lang) if torch.ld_library_path_cuda else ""))
    if torch.packages:
        lines.append(t("check.torch-packages", lang, packages=", ".join(torch.packages)))
    return lines


_MARKS = {"error": "✗", "warning": "⚠", "info": "•", "ok": "✓"}
NO_LIBRARY_VARIABLES = "none of LD_LIBRARY_PATH, CUDA_HOME, CUDA_PATH, LD_PRELOAD"


def render_markdown(machine, findings) -> str:
    """The block to paste into a GitHub issue: the facts `python -m torch.utils.collect_env`
    gives (and the GPU tests, the NVIDIA driver's own status, the findings), in English, from
    the machine as given (check passes the redacted one). Library variables by name only."""
    out: list[str] = []

    def row(label: str, value: object) -> None:
        if value is not None and value != "":
            out.append(f"{label}: {value}")

    torch = machine.torch
    row("OS", f"{machine.os_version} ({machine.arch})")
    row("C library", f"glibc {torch.glibc_version}" if torch is not None and torch.glibc_version else None)
    row("Python", torch.python_version if torch is not None and torch.python_version else machine.python_version)
    if torch is not None and torch.interpreter:
        source = f" ({torch.interpreter_source})" if torch.interpreter_source else ""
        row("Python checked", torch.interpreter + source)
    cores = ", ".join(f"{n} {what}" for n, what in ((machine.cpu_cores, "cores"), (machine.cpu_threads, "threads"))
                      if n is not None)
    row("CPU", machine.cpu_model + (f" ({cores})" if cores else ""))
    row("RAM", f"{machine.ram_gb:g} GB" if machine.ram_gb is not None else None)
    row("Kind of computer", machine.chassis)
    nv = machine.nvidia
    status = nv.status if nv.status == "ok" else f"{nv.status} ({nvidia_cause.reason_of(machine)})"
    cuda = f"(CUDA {nv.cuda_driver_version})" if nv.cuda_driver_version else None
    version = " ".join(filter(None, (nv.driver_version, cuda)))
    row("NVIDIA driver", f"{version}, {status}" if version else status)
    for index, gpu in enumerate(machine.gpus):
        parts = [gpu.name]
        if gpu.vram_gb is not None:
            parts.append(f"{gpu.vram_gb:g} GB")
        parts += [f"cc {gpu.compute_capability}"] if gpu.compute_capability else []
        parts += [gpu.gfx_target] if gpu.gfx_target else []
        parts += [gpu.pci_id] if gpu.pci_id else []
        parts += [f"driver {gpu.kernel_driver}"] if gpu.kernel_driver else []
        parts += [f"Device Manager code {gpu.config_error}"] if gpu.config_error else []
        if gpu.mig_mode is not None:
            parts.append(f"MIG on, {len(gpu.mig_devices)} instances" if gpu.mig_mode else "MIG off")
        row(f"GPU {index}", ", ".join(parts) + f" [{gpu.source}]")
    if torch is None:
        row("PyTorch", "not checked")
    else:
        build = " ".join(filter(None, (torch.build, torch.cuda_version, torch.hip_version)))
        row("PyTorch", f"{torch.version} ({build}), {torch.status}" if torch.version else torch.status)
        row("Import error", torch.error_line)
        row("torch.cuda.is_available()", torch.cuda_available)
        row("Devices", ", ".join(f"{d.name} ({d.capability})" if d.capability else d.name for d in torch.devices))
        row("Arch list", " ".join(torch.arch_list))
        row("cuDNN", torch.cudnn_version)
        for test in torch.gpu_tests:
            row(f"GPU test {test.device}", test.status + (f": {test.error_line}" if test.error_line else ""))
        for warning in torch.torch_warnings:
            row("Warning", warning)
        row("Visible devices", ", ".join(torch.visible_devices_env))
        variables = ", ".join(f"{name} set" for name in torch.env_vars) or f"{NO_LIBRARY_VARIABLES} set"
        if torch.ld_library_path_cuda:
            variables += " (LD_LIBRARY_PATH holds CUDA libraries)"
        row("Library variables", variables)
        pip = [p for p in torch.packages if not p.startswith("conda:")]
        conda = [p.removeprefix("conda:") for p in torch.packages if p.startswith("conda:")]
        if pip or conda:
            out.append("Versions of relevant libraries:")
            out += [f"[pip3] {p}" for p in pip] + [f"[conda] {p}" for p in conda]
    out.append("Findings:" if findings else "Findings: none")
    out += [f"{_MARKS.get(f.severity, '•')} {f.id}: {f.title}" for f in findings]
    fence = "```"
    body = "\n".join(text.replace(fence, "'''") for text in out)
    return safe(f"<details><summary>gpu-wizard {__version__} check</summary>\n\n{fence}text\n{body}\n{fence}\n\n"
                f"</details>\n")
