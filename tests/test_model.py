"""The Machine snapshot: round trips and clear errors for bad `[machine]` tables."""

import tomllib

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.probe.facts import (
    CHASSIS,
    GPU_SOURCES,
    GPU_VENDORS,
    NVIDIA_STATUSES,
    Gpu,
    Machine,
    MachineFormatError,
    NvidiaInfo,
    machine_from_dict,
    to_dict,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
maybe_float = st.none() | st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 2))
gpus = st.builds(Gpu, vendor=st.sampled_from(GPU_VENDORS), name=text, source=st.sampled_from(GPU_SOURCES),
                 vram_gb=maybe_float, compute_capability=st.none() | st.sampled_from(["6.1", "8.9", "12.0"]),
                 laptop=st.none() | st.booleans())
machines = st.builds(
    Machine, os=st.sampled_from(["Linux", "Windows", "Darwin"]), os_version=text, arch=text,
    python_version=text, cpu_model=text, cpu_cores=st.none() | st.integers(1, 512),
    cpu_threads=st.none() | st.integers(1, 1024), ram_gb=maybe_float, disk_free_gb=maybe_float,
    chassis=st.sampled_from(CHASSIS),
    nvidia=st.builds(NvidiaInfo, status=st.sampled_from(NVIDIA_STATUSES),
                     driver_version=st.none() | st.sampled_from(["550.54.14", "555.99", "470.256.02"])),
    gpus=st.lists(gpus, max_size=3).map(tuple),
)


@settings(max_examples=60)
@given(machines)
def test_round_trip_through_toml(machine):
    data = tomllib.loads(tomli_w.dumps({"machine": to_dict(machine)}))
    assert machine_from_dict(data["machine"]) == machine


def base() -> dict:
    return {"os": "Linux", "os_version": "x", "arch": "x86_64", "python_version": "3.11.7",
            "cpu_model": "c", "cpu_cores": 2, "cpu_threads": 4, "ram_gb": 8.0, "disk_free_gb": 10.0,
            "chassis": "vm", "nvidia": {"status": "no-library"}}


def problems(data) -> list[str]:
    with pytest.raises(MachineFormatError) as info:
        machine_from_dict(data)
    return info.value.problems


def test_minimal_machine_loads_and_optional_facts_may_be_absent():
    data = base()
    del data["ram_gb"]
    machine = machine_from_dict(data)
    assert machine.ram_gb is None and machine.gpus == ()


def test_every_problem_is_named_with_its_key_path():
    data = base() | {"cpu_cores": "eight", "chassis": "spaceship"}
    data["nvidia"] = {"status": "sleepy"}
    data["gpus"] = [{"vendor": "nvidia", "name": 5, "source": "pci"}]
    del data["os"]
    found = problems(data)
    assert "machine.os: missing" in found
    assert any(p.startswith("machine.cpu_cores: expected a whole number") for p in found)
    assert any(p.startswith("machine.chassis: 'spaceship' is not one of") for p in found)
    assert any(p.startswith("machine.nvidia.status: 'sleepy'") for p in found)
    assert any(p.startswith("machine.gpus[0].name: expected text") for p in found)


@pytest.mark.parametrize("field, value", [("ram_gb", 1e300), ("cpu_cores", 10**30), ("ram_gb", True),
                                          ("os_version", "x" * 20000), ("gpus", {"a": 1})])
def test_hostile_values_are_refused(field, value):
    assert any(p.startswith(f"machine.{field}") for p in problems(base() | {field: value}))


def test_not_a_table():
    assert problems([1, 2]) == ["machine: expected a table, got a list"]


def test_one_problem_per_value_and_no_negative_sizes():
    from tests.conftest import MACHINES
    from wizard.machine.recorded import load_machine
    from wizard.probe.facts import MachineFormatError, machine_from_dict, to_dict

    data = to_dict(load_machine(MACHINES / "laptop-4060.toml"))
    data["gpus"][0]["vendor"] = 7
    data["gpus"][0]["vram_gb"] = -8.0
    data["ram_gb"] = -1
    with pytest.raises(MachineFormatError) as caught:
        machine_from_dict(data)
    problems = caught.value.problems
    assert [p for p in problems if "vendor" in p] == ["machine.gpus[0].vendor: expected text, got a whole number"]
    assert any("machine.gpus[0].vram_gb" in p and "negative" in p for p in problems)
    assert any("machine.ram_gb" in p and "negative" in p for p in problems)


def test_sizes_in_a_list_are_never_negative_either():
    data = base() | {"torch": {"status": "ok", "libraries": ["nvidia-cudnn-cu12"], "library_sizes_mb": [-1.0]}}
    assert problems(data) == ["machine.torch.library_sizes_mb[0]: -1.0 is negative"]


def test_a_form_is_checked_wherever_the_field_is():
    data = base()
    data["torch"] = {"status": "ok", "devices": [{"name": "x", "capability": "banana"}]}
    data["gpus"] = [{"vendor": "nvidia", "name": "x", "source": "nvml", "compute_capability": "banana"}]
    assert problems(data) == ["machine.gpus[0].compute_capability: 'banana' is not like '8.6'",
                              "machine.torch.devices[0].capability: 'banana' is not like '8.6'"]
