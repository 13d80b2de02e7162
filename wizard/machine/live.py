"""What the wizard knows about this machine so far, while the probes are still running.

The probes finish one by one and in any order, so the screens never see a half-built
`Machine`: they see a `Live` with one slot per probe, each pending, done or failed. A probe
that raised gets a stand-in result that says "unknown — why", so the `Machine` can always be
assembled once every probe has settled, and the advice never waits forever.

A recorded machine (`--machine FILE`) is split into the same slots, so every panel reads the
live and the recorded case through one code path. No Textual here: this is plain data.
`this_machine_probes` is what runs on this computer: the wizard starts each probe in its own
thread and fills a Live as they answer; `check`, `torch-command` and the headless run call
`probe_this_machine`, which runs the same probes at once and waits for all (`settle`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from wizard.background import Background
from wizard.machine.identify import assemble, name_hardware
from wizard.probe.facts import NvidiaInfo, ProbeNote
from wizard.probe.gather import HardwareResult, NvidiaResult, merge_gpus, probe_hardware, probe_nvidia, report_dir
from wizard.probe.runner import kill_running
from wizard.text.i18n import preload
from wizard.text.output import clean_arrived, clean_strings

if TYPE_CHECKING:
    from wizard.probe.discover import Consent
    from wizard.probe.facts import Benchmark, Gpu, Machine, TorchInfo
    from wizard.probe.nvml_job import NvmlJob
    from wizard.probe.system import SystemFacts

# The App imports this module before its first screen, and loads the probes after it, in a
# thread (screens.app): psutil (wizard.probe.system) and the torch probe load in the functions
# that use them.

PROBES = ("system", "hardware", "nvidia", "torch")
QUICK = PROBES[:3]   # what answers in a second; torch can take a minute
TorchResult = tuple  # (TorchInfo, Benchmark | None, ProbeNote)


class Probes(NamedTuple):
    """The probes the wizard starts at launch; tests and demos pass their own.

    Each is called once, in its own thread, and may be slow; `torch` may be None to skip it.
    """

    system: Callable[[], SystemFacts]
    nvidia: Callable[[], NvidiaResult]
    hardware: Callable[[], HardwareResult]
    torch: Callable[[], TorchResult] | None = None
    # The torch probe again, for an interpreter the user picked (the welcome step's "Change").
    torch_for: Callable[[str], TorchResult] | None = None


@dataclass(frozen=True)
class Live:
    system: SystemFacts | None = None
    nvidia: NvidiaResult | None = None
    hardware: HardwareResult | None = None
    torch: TorchResult | None = None
    failed: dict[str, str] = field(default_factory=dict)  # probe → why it failed
    skipped: frozenset[str] = frozenset()                 # probes that will not run
    recorded: Machine | None = None

    # ------------------------------------------------------------------ progress ---

    def state(self, name: str) -> str:
        """"pending" | "done" | "failed" | "skipped" for one probe."""
        if name in self.skipped:
            return "skipped"
        if name in self.failed:
            return "failed"
        return "done" if getattr(self, name) is not None else "pending"

    def settled(self, name: str) -> bool:
        return self.state(name) != "pending"

    @property
    def all_settled(self) -> bool:
        return all(self.settled(name) for name in PROBES)

    @property
    def quick_settled(self) -> bool:
        return all(self.settled(name) for name in QUICK)

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(name for name in PROBES if not self.settled(name))

    def with_result(self, name: str, result: Any) -> Live:
        return replace(self, **{name: result})

    def with_failure(self, name: str, reason: str) -> Live:
        return replace(self, failed={**self.failed, name: reason})

    # ---------------------------------------------------------------- partial facts ---

    def gpus(self) -> tuple[Gpu, ...]:
        """Every GPU seen so far, NVML's view first (as the assembled machine will have it)."""
        if self.recorded is not None:
            return self.recorded.gpus

        nvml = self.nvidia.gpus if self.nvidia else ()
        other = self.hardware.gpus if self.hardware else ()
        return merge_gpus(nvml, other)

    def torch_info(self) -> TorchInfo | None:
        return self.torch[0] if self.torch else None

    def benchmark(self) -> Benchmark | None:
        return self.torch[1] if self.torch else None

    def machine(self, need_torch: bool = True) -> Machine | None:
        """The whole snapshot once the probes have settled (stand-ins for failures): facts only,
        the same in every language (a language switch words it again, never rebuilds it).

        With `need_torch=False` it is ready as soon as the quick probes are, so the NVIDIA
        step can explain the driver while PyTorch is still loading.
        """
        if self.recorded is not None:
            return self.recorded
        if not self.quick_settled:
            return None
        if need_torch and not self.settled("torch"):
            return None
        system = self.system or _unknown_system()
        nvidia = self.nvidia or _failed_nvidia(self.failed.get("nvidia", "skipped"))
        hardware = self.hardware or _failed_hardware(self.failed.get("hardware", "skipped"))
        torch_info, bench = None, None
        notes: tuple[ProbeNote, ...] = ()
        if "system" in self.failed:   # its stand-in says "unknown"; the note says why
            notes = (ProbeNote("system", "error", None, self.failed["system"][:300]),)
        if self.torch is not None:
            torch_info, bench, note = self.torch
            notes += (note,)
        elif "torch" in self.failed:
            notes += (ProbeNote("torch", "error", None, self.failed["torch"][:300]),)
        elif "torch" in self.skipped:
            notes += (ProbeNote("torch", "skipped"),)
        return assemble(system, nvidia, hardware, torch_info, bench, notes)


def from_machine(machine: Machine) -> Live:
    """A recorded machine, split into the slots the live probes fill."""
    # psutil comes with it: +10-20 ms before the wizard's first screen (measured 2026-12-04).
    from wizard.probe.system import SystemFacts

    notes = {note.name: note for note in machine.probes}
    system = SystemFacts(
        os=machine.os, os_version=machine.os_version, arch=machine.arch,
        python_version=machine.python_version, cpu_model=machine.cpu_model,
        cpu_cores=machine.cpu_cores, cpu_threads=machine.cpu_threads, ram_gb=machine.ram_gb,
        disk_free_gb=machine.disk_free_gb, hostname=machine.hostname,
    )
    nvml_gpus = tuple(g for g in machine.gpus if g.source == "nvml")
    nvidia = NvidiaResult(machine.nvidia, nvml_gpus, notes.get("nvml", ProbeNote("nvml", "ok")))
    hardware = HardwareResult(
        tuple(g for g in machine.gpus if g.source != "nvml"), machine.chassis,
        machine.chassis_evidence, tuple(n for k, n in notes.items() if k not in ("nvml", "torch")),
    )
    torch = None
    skipped: frozenset[str] = frozenset()
    if machine.torch is not None:
        torch = (machine.torch, machine.benchmark, notes.get("torch", ProbeNote("torch", "ok")))
    else:
        skipped = frozenset({"torch"})
    return Live(system=system, nvidia=nvidia, hardware=hardware, torch=torch, skipped=skipped,
                recorded=machine)


def _unknown_system() -> SystemFacts:
    from wizard.probe.system import SystemFacts, os_name  # psutil: see from_machine

    return SystemFacts(os=os_name(), os_version="unknown", arch="unknown", python_version="unknown",
                       cpu_model="unknown", cpu_cores=None, cpu_threads=None, ram_gb=None,
                       disk_free_gb=None, hostname=None)


def _failed_nvidia(reason: str) -> NvidiaResult:
    info = NvidiaInfo(status="error", reason="nvml-error")
    return NvidiaResult(info, (), ProbeNote("nvml", "error", None, reason[:300]), reason[:300])


def _failed_hardware(reason: str) -> HardwareResult:
    return HardwareResult((), "unknown", (), (ProbeNote("hardware", "error", None, reason[:300]),))


def this_machine_probes(python: str | None = None, report_path: Path | None = None,
                        benchmark: bool = True, gpu_test: bool = True, *, with_torch: bool = True,
                        others_early: bool = False, nvml_job: NvmlJob | None = None,
                        lang: str = "en", consent: Consent | None = None,
                        no_discover: bool = False) -> Probes:
    """The real probes of this computer, each bounded in time by the probe itself.

    `others_early`: ask every other Python for its torch at once (no screen to keep smooth);
    `nvml_job`: the NVML child, already started by a command that wanted it first; `lang`:
    the language its results will be worded in (loaded in the probes' threads); `consent`:
    asks the user before a folder's own Python runs (the wizard); `no_discover`: run no Python
    but `python` or gpu-wizard's own."""
    def system_probe() -> SystemFacts:
        # psutil loads in the probe's thread, while the children start (settle), and after the
        # wizard's first screen: +10-20 ms there (measured 2026-12-04).
        from wizard.probe.system import probe_system

        return probe_system(report_dir(report_path))

    def nvidia_probe() -> NvidiaResult:
        return probe_nvidia(job=nvml_job)

    def hardware_probe() -> HardwareResult:
        return name_hardware(probe_hardware())

    def torch_probe() -> TorchResult:
        # The torch probe: +20 ms before the wizard's first screen, +5 ms on `check --no-torch`
        # (measured 2026-12-04).
        from wizard.pytorch.probe.job import start_torch_probe

        result = start_torch_probe(python, benchmark=benchmark, discover=True, gpu_test=gpu_test,
                                   others_early=others_early, consent=consent,
                                   no_discover=no_discover).result()
        load_torch_advice(lang)
        return result

    def torch_for(picked: str) -> TorchResult:
        from wizard.pytorch.probe.job import probe_torch  # the torch probe: see torch_probe

        result = probe_torch(picked, benchmark=benchmark, discover=True, gpu_test=gpu_test,
                             source="picked", no_discover=no_discover)
        load_torch_advice(lang)
        return result

    return Probes(system=system_probe, nvidia=nvidia_probe, hardware=hardware_probe,
                  torch=torch_probe if with_torch else None, torch_for=torch_for)


def load_torch_advice(lang: str) -> None:
    """Load what a torch result is worded and judged with (its strings, the matrix of builds)
    in the probe's own thread: in the wizard the event loop then only words it, instead of
    stopping ~100 ms to import and parse them the moment torch answers."""
    try:
        # Loading them here, in the probe's thread, is the point: +35-50 ms at the import of
        # this module, before the wizard's first screen (measured 2026-12-04).
        from wizard.pytorch import causes, wording  # noqa: F401
        from wizard.pytorch.matrix import load_matrix

        preload(lang, "torch", "evidence")
        load_matrix()
    except Exception:  # only loading ahead: the data check reports a damaged file by name
        pass


def failure(exc: BaseException) -> str:
    """A probe that raised, in the one line its "unknown" panel and the report's note show:
    what the exception says, not its class (a user reads it)."""
    said = str(exc).strip()
    return clean_strings(said.splitlines()[0][:300] if said else "it stopped without saying why")


def settle(probes: Probes) -> Machine:
    """Every probe at once, each in its own thread, and the machine once all have answered:
    what `check`, `torch-command` and the headless run see. The wizard runs the same probes
    and fills a Live as each answers; a probe that raises is "unknown" in both."""
    live = Live() if probes.torch is not None else Live(skipped=frozenset({"torch"}))
    # torch is the slowest (seconds of import): started first. The system facts are read here
    # meanwhile: psutil loads while the children start, not before them.
    threads = {name: Background(probe, name=f"probe-{name}")
               for name, probe in (("torch", probes.torch), ("nvidia", probes.nvidia),
                                   ("hardware", probes.hardware)) if probe is not None}
    # The system probe runs here, first; then each thread's answer is waited for.
    answers: dict[str, Callable[[], Any]] = {
        "system": probes.system, **{name: job.result for name, job in threads.items()}}
    try:
        for name, answer in answers.items():
            try:
                live = live.with_result(name, clean_arrived(answer()))
            except Exception as exc:
                live = live.with_failure(name, failure(exc))
    except BaseException:
        # Ctrl+C: end the children now, or the exit waits out their timeouts.
        kill_running()
        raise
    machine = live.machine()
    assert machine is not None  # every probe has answered or failed
    return machine


def probe_this_machine(lang: str, **options: Any) -> Machine:
    """This computer, every probe at once (this_machine_probes' `options`, then settle)."""
    options.setdefault("benchmark", False)
    return settle(this_machine_probes(lang=lang, **options))
