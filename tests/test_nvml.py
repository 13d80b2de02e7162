"""NVML: every error class mapped to a status, fallbacks on old drivers, and the child process
that survives hangs, crashes and banners."""

import ctypes
import time

import pytest

from tests.fake_nvml import fake_module, real, write_fake_module
from wizard.probe import nvml
from wizard.probe.gather import probe_nvidia

H200 = {"name": "NVIDIA H200", "total": 143771 * 2**20, "free": 143000 * 2**20, "cc": (9, 0),
        "pci": 0x233510DE, "bus": "00000000:1B:00.0"}
LAPTOP_4060 = {"name": "NVIDIA GeForce RTX 4060 Laptop GPU", "total": 8 * 2**30, "free": 7 * 2**30,
               "cc": (8, 9), "pci": 0x28E010DE, "bus": "00000000:01:00.0"}


@pytest.mark.parametrize(
    "error, status, reason",
    [
        (real.NVMLError_LibraryNotFound, "no-library", "no-library"),
        (real.NVMLError_DriverNotLoaded, "no-driver", "driver-not-loaded"),
        (real.NVMLError_LibRmVersionMismatch, "version-mismatch", "version-mismatch"),
        (real.NVMLError_NoPermission, "no-permission", "no-permission"),
        (real.NVMLError_GpuIsLost, "error", "gpu-lost"),
        (real.NVMLError_ResetRequired, "error", "reset-required"),
        (real.NVMLError_Unknown, "error", "nvml-unknown"),
        (real.NVMLError_Timeout, "timeout", "nvml-timeout"),
        (real.NVMLError_FunctionNotFound, "error", "driver-too-old"),
        (real.NVMLError_Uninitialized, "error", "nvml-error"),
    ],
)
def test_each_init_error_class_maps_to_a_status(error, status, reason):
    data = nvml.collect(fake_module(init_error=error))
    assert (data["status"], data["reason"]) == (status, reason)
    assert data["error_code"] == error().value


def test_driver_without_init_with_flags_falls_back_to_init_v2():
    module = fake_module(init_error=real.NVMLError_FunctionNotFound, gpus=[LAPTOP_4060])
    module._nvmlGetFunctionPointer = lambda name: (lambda: module.calls.append(name) or 0)
    module._nvmlCheckReturn = real._nvmlCheckReturn
    data = nvml.collect(module)
    assert data["status"] == "ok"
    assert "nvmlInit_v2" in module.calls


def test_healthy_driver_reports_every_field():
    module = fake_module(gpus=[H200, H200], driver="580.95.05", cuda=13000)
    data = nvml.collect(module)
    assert data["status"] == "ok"
    assert data["driver_version"] == "580.95.05"
    assert data["cuda_driver_version"] == "13.0"
    info, gpus = nvml.to_model(data)
    assert info.status == "ok" and len(gpus) == 2
    assert gpus[0].name == "NVIDIA H200"
    assert gpus[0].vram_gb == pytest.approx(140.4, abs=0.1)
    assert gpus[0].compute_capability == "9.0"
    assert gpus[0].pci_id == "10de:2335"
    assert gpus[0].bus_id == "00000000:1b:00.0"
    assert module.calls[-1] == "shutdown"


def test_cuda_version_decoding_keeps_the_minor():
    data = nvml.collect(fake_module(gpus=[LAPTOP_4060], cuda=12080))
    assert data["cuda_driver_version"] == "12.8"


def test_old_driver_falls_back_to_memory_v1_and_unsupported_cc_is_unknown():
    gpu = dict(LAPTOP_4060, cc=None)
    data = nvml.collect(fake_module(gpus=[gpu], memory_v2_missing=True))
    assert data["status"] == "ok"
    _, gpus = nvml.to_model(data)
    assert gpus[0].vram_gb == 8.0
    assert gpus[0].compute_capability is None
    assert gpus[0].laptop is True


def test_old_bindings_return_bytes():
    gpu = dict(LAPTOP_4060, name=b"GeForce GTX 1060 with Max-Q Design")
    data = nvml.collect(fake_module(gpus=[gpu], driver=b"470.256.02"))
    assert data["driver_version"] == "470.256.02"
    assert data["gpus"][0]["name"] == "GeForce GTX 1060 with Max-Q Design"


def test_no_gpus_is_no_device():
    data = nvml.collect(fake_module(gpus=[]))
    assert (data["status"], data["reason"]) == ("no-device", "no-device")


def test_one_lost_gpu_keeps_the_others():
    lost = dict(H200, error=real.NVMLError_GpuIsLost)
    data = nvml.collect(fake_module(gpus=[H200, lost]))
    assert data["status"] == "ok"
    assert len(data["gpus"]) == 1
    assert data["gpu_errors"][0]["reason"] == "gpu-lost"


def test_every_gpu_refused_is_no_permission():
    refused = dict(H200, error=real.NVMLError_NoPermission)
    data = nvml.collect(fake_module(gpus=[refused, refused]))
    assert (data["status"], data["reason"]) == ("no-permission", "no-permission")


def test_a_shadowing_module_is_not_mistaken_for_nvml():
    import types

    data = nvml.collect(types.SimpleNamespace(__file__="/site-packages/pynvml/__init__.py"))
    assert data["reason"] == "bindings-broken"


def test_wsl_library_path_is_tried_when_the_loader_cannot_find_nvml(tmp_path, monkeypatch):
    module = fake_module(init_error=real.NVMLError_LibraryNotFound)
    lib = tmp_path / "libnvidia-ml.so.1"
    lib.write_bytes(b"")
    loaded = []
    monkeypatch.setattr(ctypes, "CDLL", lambda path: loaded.append(path) or object())
    data = nvml.collect(module, wsl_library=str(lib))
    assert loaded == [str(lib)]
    assert data["status"] == "no-library"  # the fake still refuses: we tried, and say so honestly
    assert module.calls.count("init") == 2


# --- the child process -------------------------------------------------------------------


def test_child_reports_a_driver_that_is_not_loaded(tmp_path):
    write_fake_module(tmp_path, """
        def nvmlInit():
            raise NVMLError_DriverNotLoaded()
        def nvmlShutdown():
            pass
    """)
    result = probe_nvidia(timeout=20, extra_path=[str(tmp_path)])
    assert (result.info.status, result.info.reason) == ("no-driver", "driver-not-loaded")
    assert result.note.status == "error"


def test_child_that_hangs_is_abandoned_within_the_bound(tmp_path):
    write_fake_module(tmp_path, """
        import time
        def nvmlInit():
            time.sleep(3600)
    """)
    start = time.monotonic()
    result = probe_nvidia(timeout=2, extra_path=[str(tmp_path)])
    assert time.monotonic() - start < 6
    assert result.info.status == "timeout"
    assert result.note.status == "timeout"


def test_child_that_segfaults_is_an_error_not_a_crash_of_ours(tmp_path):
    write_fake_module(tmp_path, """
        import os, signal
        def nvmlInit():
            os.kill(os.getpid(), signal.SIGSEGV)
    """)
    result = probe_nvidia(timeout=20, extra_path=[str(tmp_path)])
    assert (result.info.status, result.info.reason) == ("error", "crashed")
    assert "SIGSEGV" in result.detail


def test_stub_library_banner_on_stdout_does_not_break_parsing(tmp_path):
    write_fake_module(tmp_path, """
        import os
        def nvmlInit():
            os.write(1, b"WARNING: You should always run with libnvidia-ml.so that is installed with "
                        b"your NVIDIA Display Driver.\\n")
            raise NVMLError_Unknown()
        def nvmlShutdown():
            pass
    """)
    result = probe_nvidia(timeout=20, extra_path=[str(tmp_path)])
    assert (result.info.status, result.info.reason) == ("error", "nvml-unknown")


def test_missing_bindings_are_reported(tmp_path):
    (tmp_path / "pynvml.py").write_text("raise ImportError('No module named pynvml')\n")
    result = probe_nvidia(timeout=20, extra_path=[str(tmp_path)])
    assert result.info.reason == "bindings-missing"


def _nvml_loadable() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def test_real_nvml_on_this_machine_agrees_with_the_loader():
    """The real path: no fake. Where the loader cannot find libnvidia-ml, NVML must say so."""
    result = probe_nvidia()
    if _nvml_loadable():
        assert result.info.status != "no-library"
    else:
        assert result.info.status == "no-library"
        assert result.info.error_code == 12
    assert result.note.seconds is not None and result.note.seconds < 8


def test_the_child_loads_no_more_than_pynvml_needs(tmp_path):
    """`check` waits for the NVML child, a second Python: it loads pynvml, json and its own
    module, not `typing` or `dataclasses` (our record declarations), which cost it milliseconds
    each on every run."""
    import subprocess
    import sys

    from wizard.probe.nvml_job import CHILD_SOURCE, PACKAGE_ROOT

    source = CHILD_SOURCE.replace("sys.exit(main())", "main()\nprint(sorted(sys.modules))")
    assert source != CHILD_SOURCE
    out = subprocess.run([sys.executable, "-c", source, PACKAGE_ROOT], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    loaded = out.stdout.strip().splitlines()[-1]
    assert "'wizard.probe.nvml'" in loaded and "'json'" in loaded
    assert "'typing'" not in loaded and "'dataclasses'" not in loaded, loaded


def test_the_child_ignores_modules_in_the_users_folder(tmp_path, monkeypatch):
    """A json.py or re.py where the user runs gpu-wizard must not replace the standard library
    inside the NVML child (`python -c` puts that folder first on the child's path)."""
    from wizard.probe.nvml_job import run_nvml_child

    for name in ("json", "re", "warnings"):
        (tmp_path / f"{name}.py").write_text("raise SystemExit('the user\\'s own module was imported')\n",
                                             encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_nvml_child(timeout=30)
    assert result.status == "ok" and "own module" not in result.stderr, result.stderr
    assert nvml.parse_child_output(result.stdout) is not None


# --- MIG (issue 26): the mode and the instances' UUIDs, as nvidia-smi -L lists them -----------

A100_MIG = {"name": "NVIDIA A100-SXM4-80GB", "total": 81920 * 2**20, "free": 81000 * 2**20, "cc": (8, 0),
            "pci": 0x20B210DE, "bus": "00000000:01:00.0", "mig": (1, 1),
            "mig_devices": ["MIG-00000000-0000-0000-0000-000000000000",
                            "MIG-00000001-0000-0000-0000-000000000001"]}


def test_mig_mode_and_its_instances_are_read():
    info, gpus = nvml.to_model(nvml.collect(fake_module(gpus=[A100_MIG])))
    assert info.status == "ok"
    assert gpus[0].mig_mode is True
    assert gpus[0].mig_devices == ("MIG-00000000-0000-0000-0000-000000000000",
                                   "MIG-00000001-0000-0000-0000-000000000001")


def test_mig_on_without_instances_is_an_empty_list():
    _, gpus = nvml.to_model(nvml.collect(fake_module(gpus=[{**A100_MIG, "mig_devices": []}])))
    assert gpus[0].mig_mode is True and gpus[0].mig_devices == ()


def test_mig_off_and_geforce_say_nothing_of_mig():
    _, gpus = nvml.to_model(nvml.collect(fake_module(gpus=[{**A100_MIG, "mig": (0, 0)}, LAPTOP_4060])))
    assert gpus[0].mig_mode is False and gpus[0].mig_devices == ()
    assert gpus[1].mig_mode is None   # NotSupported on GeForce: unknown, not "off"


def test_bindings_without_the_mig_calls_still_answer():
    module = fake_module(gpus=[A100_MIG])
    del module.nvmlDeviceGetMigMode
    data = nvml.collect(module)
    assert data["status"] == "ok" and "mig_mode" not in data["gpus"][0]
