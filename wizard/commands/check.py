"""`gpu-wizard check [--json] [--machine FILE] [--lang en|zh]`: one-shot diagnosis."""

from __future__ import annotations

import argparse
import sys

HELP = "diagnose this machine once: facts, findings and fixes (exit 1 if a problem was found)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object (the report's machine + findings)")
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
        from wizard.probe.nvml_job import NvmlJob

        nvml_job = NvmlJob()
    from dataclasses import asdict, replace

    from wizard.i18n import language_from_env

    lang = args.lang or language_from_env()
    if args.machine:
        from wizard.identify import localize
        from wizard.machine_file import MachineFileError, load_machine

        try:
            machine = localize(load_machine(args.machine, lang), lang)
        except MachineFileError as exc:
            from wizard.textout import safe

            print(safe(f"gpu-wizard: {exc}", sys.stderr), file=sys.stderr)
            return 2
    else:
        from wizard.live import probe_this_machine

        machine = probe_this_machine(lang, python=args.python, with_torch=not args.no_torch,
                                     benchmark=args.benchmark, gpu_test=not args.no_gpu_test,
                                     others_early=True, nvml_job=nvml_job,
                                     no_discover=args.no_discover)
    from wizard.evaluate import evaluate
    from wizard.findings import Finding, worst
    from wizard.probe.model import machine_from_dict, to_dict
    from wizard.report import redact_report
    from wizard.textout import clean_strings

    # Diagnose the machine as it is: a fix must name the real interpreter (`~/proj/.venv/bin/python
    # -m pip`), not the bare name redaction leaves. Then one redaction, the report's, over the
    # machine and the findings' text alike, for JSON (made to be saved and shared). The text is
    # for this terminal: its facts are redacted the same way, but a command to paste stays
    # exact, as in torch-command and the wizard (wizard.presentation).
    findings = list(evaluate(machine, None, None, lang).findings)
    exact, own_torch = findings, machine.torch
    if not args.no_redact:
        redacted = redact_report({"machine": to_dict(machine), "findings": [asdict(f) for f in findings]})
        machine = machine_from_dict(redacted["machine"])
        findings = [Finding(**f) for f in redacted["findings"]]
    if args.json:
        import json

        payload = clean_strings({"machine": to_dict(machine), "findings": [asdict(f) for f in findings]})
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        # The Python's path as it is: the fixes name it, and the user runs them here.
        shown = [replace(f, fix=mine.fix) for f, mine in zip(findings, exact)]
        sys.stdout.write(render_text(replace(machine, torch=own_torch), shown, lang, recorded=args.machine))
    return 1 if worst(findings) == "error" else 0


def render_text(machine, findings, lang: str, recorded: str | None = None) -> str:
    import shutil

    from wizard import nvidia_explain
    from wizard.evidence import chassis_evidence_text, probe_status_text, run_text
    from wizard.i18n import has, t
    from wizard.presentation import present
    from wizard.textout import gb_text, mark, safe, wrap
    from wizard.torch_lines import gpu_test_line, interpreter_line, not_run_lines

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
    reason = nvidia_explain.reason_of(machine)
    severity = shown.nvidia
    label_key = f"check.nvidia-reason.{reason}"
    label = t(label_key, lang) if reason and has(label_key, lang) \
        else t(f"check.nvidia-status.{nv.status}", lang)
    line(f"{mark(severity)} {t('check.nvidia', lang)}{t('check.sep', lang)}{label}")
    if nv.driver_version and nv.cuda_driver_version:
        line(t("check.driver", lang, driver=nv.driver_version, cuda=nv.cuda_driver_version), 4)
    elif nv.driver_version:  # read from the kernel module's files, without NVML
        line(t("check.driver_only", lang, driver=nv.driver_version), 4)
    if nv.message and nv.status != "ok":
        line(nv.message, 4)
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
        if torch.message:
            line(torch.message, 4)
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
