"""`check`, `torch-command` and the headless run probe this computer through wizard.live, as the
wizard does: every probe at once, and one that raises is "unknown", never a traceback."""

from __future__ import annotations

import pytest

from tests.recorded import machine
from wizard.live import Probes, failure, from_machine, settle


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
    got = settle(probes_of("laptop-4060"), "en")
    recorded = machine("laptop-4060")
    assert (got.gpus, got.torch.version, got.nvidia.status) == \
        (recorded.gpus, recorded.torch.version, recorded.nvidia.status)


@pytest.mark.parametrize("slot", ["system", "hardware", "nvidia", "torch"])
def test_a_probe_that_raises_is_unknown_with_what_it_said(slot):
    got = settle(probes_of("laptop-4060", **{slot: RuntimeError("sysfs went away\nsecond line")}), "en")
    note = next(n for n in got.probes if n.status == "error" and "sysfs went away" in (n.detail or ""))
    assert note.detail == "sysfs went away" and "RuntimeError" not in note.detail


def test_a_probe_that_raises_without_a_message_still_says_something():
    assert failure(KeyError()) == "it stopped without saying why"
    assert failure(OSError("\x1b[31mred")) == "\ufffd[31mred"   # never an escape sequence


def test_ctrl_c_in_a_probe_is_not_swallowed():
    with pytest.raises(KeyboardInterrupt):
        settle(probes_of("laptop-4060", hardware=KeyboardInterrupt()), "en")


def test_without_a_torch_probe_the_machine_says_torch_was_skipped():
    probes = probes_of("vm-no-gpu")
    got = settle(Probes(system=probes.system, nvidia=probes.nvidia, hardware=probes.hardware), "en")
    assert got.torch is None and any(n.name == "torch" and n.status == "skipped" for n in got.probes)
