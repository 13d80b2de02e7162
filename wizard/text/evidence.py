"""The probes' evidence lines in the reader's language.

The chassis probes (probe/chassis.py, probe/windows.py, probe/macos.py) record why they chose
"laptop" or "container" as short English lines, and those lines are data: reports and recorded
machines keep them as they were read. Shown to a reader, each known line is matched here and
told again from `evidence.chassis.*` in the reader's language; what the probe read (a model id,
a file system, a quoted kernel release) goes in unchanged. A line no pattern knows (one from a
newer or older gpu-wizard) is shown as it is. Pure; no I/O beyond the strings.
"""

from __future__ import annotations

import re

from wizard.text.i18n import t

# (key in evidence.chassis, the line as the probes write it). Order matters where one pattern
# is a prefix of another: the longer comes first.
CHASSIS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (key, re.compile(pattern)) for key, pattern in (
        ("dmi-type", r"DMI chassis type (?P<code>\d+) \((?P<name>.*)\)"),
        ("smbios-type", r"SMBIOS chassis type (?P<code>\d+) \((?P<name>.*)\)"),
        ("chassis-types", r"ChassisTypes (?P<code>\d+) \((?P<name>.*)\)"),
        ("model-name", r"model name: (?P<value>.+)"),
        ("model-identifier", r"model identifier: (?P<value>.+)"),
        ("model", r"model (?P<value>.+)"),
        ("battery", r"a battery is present"),
        ("built-in-battery", r"a built-in battery is present"),
        ("no-built-in-battery", r"no built-in battery"),
        ("mac-vm", r"kern\.hv_vmm_present is 1"),
        ("podman", r"/run/\.containerenv exists \(Podman\)"),
        ("container-manager", r"container manager (?P<value>.+)"),
        ("pid1", r"PID 1 has (?P<value>.+)"),
        ("cgroup", r"the process's control group belongs to a container runtime"),
        ("dockerenv-fs", r"/\.dockerenv exists and / is (?P<value>.+)"),
        ("dockerenv", r"/\.dockerenv exists"),
        ("hypervisor-flag", r"the CPU reports the 'hypervisor' flag \(running under a hypervisor\)"),
        ("hypervisor-type", r"/sys/hypervisor/type is (?P<value>.+)"),
        ("dmi-field", r"DMI (?P<field>\w+) is (?P<value>.+)"),
        ("system-battery", r"system battery (?P<value>.+) in /sys/class/power_supply"),
        ("acpi-profile", r"ACPI preferred power-management profile (?P<value>.+)"),
        ("wsl-kernel", r"kernel release (?P<value>.+) is a WSL kernel"),
        ("nothing-read", r"no chassis type, battery or power profile could be read"),
    )
)


# Lines whose own wording names firmware tables ("DMI", "ChassisTypes"): a reader is told
# what they mean instead, in English too.
PLAIN_KEYS = ("dmi-type", "smbios-type", "chassis-types", "dmi-field")


def chassis_evidence_text(line: str, lang: str) -> str:
    """One chassis evidence line, framed in `lang`; unknown lines as they are."""
    for key, pattern in CHASSIS_PATTERNS:
        match = pattern.fullmatch(line)
        if match:
            if key in PLAIN_KEYS:
                return t(f"evidence.plain.{key}", lang, **match.groupdict())
            return line if lang == "en" else t(f"evidence.chassis.{key}", lang, **match.groupdict())
    return line


def probe_status_text(status: str, lang: str) -> str:
    """A probe's status word ("timeout", "error") in `lang`."""
    key = f"evidence.probe-status.{status}"
    text = t(key, lang)
    return status if text == key else text


# How a probe's run ended, as wizard/probe/runner.py and wizard/pytorch/probe/ word it.
RUN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (key, re.compile(pattern)) for key, pattern in (
        ("no-answer", r"no answer within (?P<seconds>[\d.]+) s"),
        ("not-finished", r"did not finish within (?P<seconds>[\d.]+) s"),
        ("stopped-testing", r"the process was (?P<how>.+) while testing this device"),
        ("killed-by", r"killed by (?P<signal>\S+)"),
        ("killed", r"killed"),
        ("crashed", r"crashed"),
        ("exit-status", r"exit status (?P<code>-?\d+)"),
        ("not-found", r"(?P<program>.+) was not found"),
        ("cannot-start", r"(?P<program>.+?) could not start: (?P<why>.+)"),
        ("access-violation", r"access violation \((?P<code>0x[0-9A-Fa-f]+)\)"),
        ("illegal-instruction", r"illegal instruction \((?P<code>0x[0-9A-Fa-f]+)\)"),
        ("stack-overrun", r"stack buffer overrun \((?P<code>0x[0-9A-Fa-f]+)\)"),
        ("heap-corruption", r"heap corruption \((?P<code>0x[0-9A-Fa-f]+)\)"),
    )
)


_NVML_CLASS = re.compile(r"^NVMLError_\w+:\s*")


def run_text(line: str, lang: str) -> str:
    """A line the runner or the torch probe wrote about how a run ended ("no answer within
    25 s", "killed by SIGSEGV"), framed in `lang`. What the program itself said (a CUDA error,
    a traceback's last line) matches no pattern and is quoted as it is."""
    # NVML's errors read "NVMLError_DriverNotLoaded: Driver Not Loaded": the class name is the
    # library's internals, the sentence after it is what a reader needs.
    line = _NVML_CLASS.sub("", line or "")
    if lang == "en" or not line:
        return line
    for key, pattern in RUN_PATTERNS:
        match = pattern.fullmatch(line)
        if match:
            values = match.groupdict()
            if "how" in values:
                values["how"] = run_text(values["how"], lang)
            return t(f"evidence.run.{key}", lang, **values)
    return line
