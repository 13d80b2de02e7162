"""`check`, `torch-command` and the headless run probe this computer through wizard.machine.live, as the
wizard does: every probe at once, and one that raises is "unknown", never a traceback."""

from __future__ import annotations

import pytest

from tests.recorded import machine
from wizard.machine.live import Probes, failure, from_machine, settle


def probes_of(name: str, **raising: BaseException) -> Probes:
    live = from_machine(machine(name))

    def answer(slot: str):
        def probe():
            if slot in raising:
                raise raising[slot]
            return getattr(live, slot)
        return probe

    return Probes(system=answer("system"), nvidia=answer("nvidia"), hardware=answer("hardware"),
                  torch=answer("torch"))


def test_every_probe_answering_gives_the_recorded_machine():
    got = settle(probes_of("laptop-4060"))
    recorded = machine("laptop-4060")
    assert (got.gpus, got.torch.version, got.nvidia.status) == \
        (recorded.gpus, recorded.torch.version, recorded.nvidia.status)


@pytest.mark.parametrize("slot", ["system", "hardware", "nvidia", "torch"])
def test_a_probe_that_raises_is_unknown_with_what_it_said(slot):
    got = settle(probes_of("laptop-4060", **{slot: RuntimeError("sysfs went away\nsecond line")}))
    note = next(n for n in got.probes if n.status == "error" and "sysfs went away" in (n.detail or ""))
    assert note.detail == "sysfs went away" and "RuntimeError" not in note.detail


def test_a_probe_that_raises_without_a_message_still_says_something():
    assert failure(KeyError()) == "it stopped without saying why"
    assert failure(OSError("\x1b[31mred")) == "\ufffd[31mred"   # never an escape sequence


def test_ctrl_c_in_a_probe_is_not_swallowed():
    with pytest.raises(KeyboardInterrupt):
        settle(probes_of("laptop-4060", hardware=KeyboardInterrupt()))


def test_without_a_torch_probe_the_machine_says_torch_was_skipped():
    probes = probes_of("vm-no-gpu")
    got = settle(Probes(system=probes.system, nvidia=probes.nvidia, hardware=probes.hardware))
    assert got.torch is None and any(n.name == "torch" and n.status == "skipped" for n in got.probes)


def test_the_torch_probe_loads_its_wording_in_its_own_thread(monkeypatch):
    """In the wizard the torch result is worded on the event loop: the probe's thread has
    read its strings (in the session's language) and the matrix of builds before, or the
    event loop stopped ~100 ms for them the moment torch answered."""
    import wizard.machine.live as live
    import wizard.pytorch.probe.job as torch_probe

    answer = from_machine(machine("laptop-4060")).torch

    class Job:
        def result(self):
            return answer

    loaded: list[str] = []
    monkeypatch.setattr(torch_probe, "start_torch_probe", lambda *a, **k: Job())
    monkeypatch.setattr(torch_probe, "probe_torch", lambda *a, **k: answer)
    monkeypatch.setattr(live, "load_torch_advice", loaded.append)
    probes = live.this_machine_probes(lang="zh")
    assert probes.torch() == answer and loaded == ["zh"]
    assert probes.torch_for("/usr/bin/python3") == answer and loaded == ["zh", "zh"]


def test_the_torch_wording_is_ready_once_loaded():
    import subprocess
    import sys

    code = ("from wizard.machine.live import load_torch_advice\n"
            "load_torch_advice('zh')\n"
            "from wizard.text.i18n import _area, t\n"
            "from wizard.pytorch.matrix.parse import _default_matrix\n"
            "misses = _area.cache_info().misses\n"
            "t('torch.findings.version-unknown', 'zh'); t('evidence.message.none', 'zh')\n"
            "print(_area.cache_info().misses - misses, _default_matrix.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "1"]   # no strings file read after; the matrix read once
