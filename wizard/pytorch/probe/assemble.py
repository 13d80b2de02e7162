"""The child's answer and the static facts, turned into the model: a `TorchInfo` with a
status (ok, not-installed, import-error, crashed, timeout), the benchmark, and the probe note."""

from __future__ import annotations

import math
import os
import sys
from dataclasses import replace
from typing import Any

from wizard.probe.facts import Benchmark, GpuTest, ProbeNote, TorchDevice, TorchInfo
from wizard.probe.runner import RunResult
from wizard.pytorch.probe.child import last_line, parse_child_output
from wizard.pytorch.probe.static import StaticFacts, build_of, facts_from_path
from wizard.schema import fits

# Windows reports a crash as an exit code, not a signal.
_WINDOWS_CRASHES = {
    0xC0000005: "access violation (0xC0000005)",
    0xC000001D: "illegal instruction (0xC000001D)",
    0xC0000409: "stack buffer overrun (0xC0000409)",
    0xC0000374: "heap corruption (0xC0000374)",
}


def assemble(run: RunResult, static: StaticFacts | None, interpreter: str,
             timeout: float) -> tuple[TorchInfo, Benchmark | None, ProbeNote]:
    """The child's answer and the static facts as one `TorchInfo` (its `message` left unset:
    wizard.pytorch.wording words it), the benchmark if one ran, and the probe's note."""
    static = static or StaticFacts(False)
    data = parse_child_output(run.stdout) if run.status in ("ok", "timeout", "crashed") else None
    seconds = round(run.seconds, 3)
    error_line = None
    bench = None
    if data is not None and run.status != "ok":
        if data.get("status") == "ok":
            # torch loaded and answered; what hung or died was a GPU test or the benchmark.
            data = _stopped_during_tests(data, run, timeout)
        else:
            data = None
    if data is not None and data.get("status") == "ok":
        status = "ok"
    elif run.status == "timeout":
        status = "timeout"
        error_line = f"no answer within {timeout:g} s"
    elif run.status in ("not-found", "error"):
        status = "not-installed"
        error_line = run.detail
    elif run.status == "crashed":
        status = "crashed"
        error_line = run.detail.removeprefix("killed by ") or "crashed"
    elif data is None and run.returncode == 0:
        # Python running our child always answers or fails; a clean exit without an answer is
        # a program that only looks like Python (a wrapper, a stub, something else entirely).
        status = "not-installed"
        error_line = NOT_PYTHON
        static = replace(static, installed=False, python_version=None)
    elif data is None:
        code = run.returncode if run.returncode is not None else -1
        crash = _WINDOWS_CRASHES.get(code & 0xFFFFFFFF)
        status = "crashed" if crash or code not in (0, 1) else "import-error"
        error_line = crash or last_line(run.stderr) or f"exit status {code}"
    else:
        status = data.get("status", "import-error")
        error_line = data.get("error_line")
        if status == "not-installed" and static.installed:
            # pip's record says torch is there, Python cannot find it: a broken install.
            status = "import-error"
    if static.shadow and status in ("ok", "not-installed", "import-error"):
        # The check ran in a neutral folder; in the user's, their torch.py is what imports.
        status, error_line = "import-error", f"'torch' here{SHADOW_MARK}{static.shadow}"
        data = {k: v for k, v in (data or {}).items() if k in ("python_version", "machine")}
    if data and data.get("location") and static.location and \
            os.path.normcase(data["location"]) != os.path.normcase(static.location):
        # The static scan looked at another copy than the one that imported: measure that one.
        site = os.path.dirname(data["location"])
        static = replace(facts_from_path([site], static.python_version, static.python_arch),
                         python_version=static.python_version or data.get("python_version"))

    info = _torch_info(status, data or {}, static, interpreter, error_line)
    if data and isinstance(data.get("benchmark"), dict):
        bench = _benchmark(data["benchmark"])
    note_status = "error" if run.status in ("not-found", "error") else _NOTE_STATUS[status]
    if status == "ok" and run.status != "ok":
        note_status = "timeout" if run.status == "timeout" else "error"
    note = ProbeNote("torch", note_status, seconds, _note_detail(info, data))
    return info, bench, note


def _stopped_during_tests(data: dict, run: RunResult, timeout: float) -> dict:
    """The child's last line, with the test it was running marked as what happened to it."""
    if run.status == "timeout":
        status, why = "timeout", f"did not finish within {timeout:g} s"
    else:
        status, why = "failed", f"the process was {run.detail or 'killed'} while testing this device"
    tests = []
    for test in data.get("gpu_tests") or []:
        if isinstance(test, dict) and test.get("status") == "running":
            test = {**test, "status": status, "error_line": why}
        tests.append(test)
    return {**data, "gpu_tests": tests, "stopped": why}


NOT_PYTHON = "it ran but did not answer like Python"

# How the child (and the static scan) word a torch that is not PyTorch; findings key on it.
SHADOW_MARK = " is not PyTorch: "

_NOTE_STATUS = {"ok": "ok", "not-installed": "unavailable", "import-error": "error",
                "crashed": "error", "timeout": "timeout"}


def _torch_info(status: str, data: dict, static: StaticFacts, interpreter: str,
                error_line: str | None) -> TorchInfo:
    live = status == "ok"
    version = data.get("version") if live else None
    version = version or static.version
    cuda = data.get("cuda") if live else static.cuda_version
    hip = data.get("hip") if live else static.hip_version
    xpu = data.get("xpu") if live else static.xpu_version
    mps_built = data.get("mps_built") if live else None
    apple_silicon = sys.platform == "darwin" and (static.python_arch or data.get("machine")) == "arm64"
    build: str | None
    if live:
        build = build_of(version, cuda, hip, xpu, mps_built, apple_silicon)
    else:
        build = static.build if static.installed else None
    devices = tuple(
        TorchDevice(name=str(d.get("name") or "GPU")[:200],
                    capability=d.get("capability") if fits(TorchDevice, "capability", d.get("capability"))
                    else None,
                    memory_gb=_number(d.get("memory_gb")))
        for d in data.get("devices", []) if isinstance(d, dict)
    ) if live else ()
    has_sizes = static.installed and static.torch_size_mb is not None
    return TorchInfo(
        status=status,
        interpreter=interpreter,
        version=version if (live or static.installed) else None,
        build=build,
        cuda_version=cuda,
        hip_version=hip,
        xpu_version=xpu,
        cuda_available=data.get("cuda_available") if live else None,
        mps_available=data.get("mps_available") if live else None,
        device_count=data.get("device_count") if live else None,
        devices=devices,
        arch_list=tuple(str(a) for a in data.get("arch_list", [])) if live else (),
        install_size_mb=static.install_size_mb if has_sizes else None,
        torch_size_mb=static.torch_size_mb if has_sizes else None,
        libraries_size_mb=static.libraries_size_mb if has_sizes else None,
        python_version=data.get("python_version") or static.python_version,
        python_arch=data.get("machine") or static.python_arch,
        mps_built=mps_built,
        xpu_available=data.get("xpu_available") if live else None,
        cpu_capability=data.get("cpu_capability") if live else None,
        error_line=error_line,
        torch_warnings=_warnings(data, live),
        libraries=tuple(name for name, _ in static.libraries) if has_sizes else (),
        companions=static.companions if static.installed else (),
        library_sizes_mb=tuple(size for _, size in static.libraries) if has_sizes else (),
        gpu_tests=_gpu_tests(data.get("gpu_tests")) if live else (),
        visible_devices_env=tuple(f"{k}={v}" for k, v in sorted((data.get("visible_devices") or {}).items())
                                  if isinstance(k, str) and isinstance(v, str)) if live else (),
        env_vars=tuple(data.get("env_vars") or ()),
        ld_library_path_cuda=data.get("ld_library_path_cuda"),
        glibc_version=data.get("glibc"),
        cudnn_version=data.get("cudnn") if live else None,
        packages=static.packages if static.installed else (),
    )


def _warnings(data: dict, live: bool) -> tuple[str, ...]:
    """What torch warned while loading; and cuDNN's refusal, which torch raises only when asked."""
    said = [str(w) for w in data.get("warnings", [])]
    if live and data.get("cudnn_error"):
        said.append(str(data["cudnn_error"]))
    return tuple(said)[:8]


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and 0 <= value < 1e6
    return float(value) if ok else None


def _gpu_tests(raw: object) -> tuple[GpuTest, ...]:
    tests = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or item.get("status") not in ("ok", "failed", "timeout"):
            continue  # "running" never survives _stopped_during_tests; anything else is garbage
        seconds = item.get("seconds")
        tests.append(GpuTest(
            device=str(item.get("device") or "gpu")[:40], status=item["status"],
            name=str(item["name"])[:200] if item.get("name") else None,
            error_line=str(item["error_line"])[:400] if item.get("error_line") else None,
            seconds=_number(seconds),
        ))
    return tuple(tests)


def _benchmark(raw: dict) -> Benchmark | None:
    def whole(value: Any) -> int | None:
        number = _number(value)
        return int(number) if number is not None and number == int(number) else None

    def text(value: Any) -> str | None:
        return value[:400] if isinstance(value, str) else None

    cpu, size = _number(raw.get("cpu_gflops")), whole(raw.get("matrix_size"))
    if cpu is None or size is None:
        return None
    return Benchmark(
        cpu_gflops=cpu, matrix_size=size, dtype=text(raw.get("dtype")) or "float32",
        gpu_tflops=_number(raw.get("gpu_tflops")), gpu_matrix_size=whole(raw.get("gpu_matrix_size")),
        gpu_backend=text(raw.get("gpu_backend")), gpu_name=text(raw.get("gpu_name")),
        gpu_error=text(raw.get("gpu_error")), cpu_threads=whole(raw.get("threads")),
        seconds=_number(raw.get("seconds")),
    )


def _note_detail(info: TorchInfo, data: dict | None) -> str | None:
    if info.status == "ok":
        took = (data or {}).get("import_seconds")
        return f"torch {info.version} ({info.build})" + (f", import {took:g} s" if took else "")
    return info.error_line

