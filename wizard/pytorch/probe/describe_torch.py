"""Import torch and describe it; runs inside the *user's* interpreter, not gpu-wizard's.

This file is sent as `python -c <source>` to the interpreter being checked, which does not have
gpu-wizard installed. So it imports nothing but the standard library and torch, keeps to syntax
that Python 3.6 understands (old environments are the ones that need diagnosing), and prints
marked JSON lines: the parent keeps the last one. Everything torch prints itself (C-level
banners, warnings) goes around them. Running it as `-c` also keeps gpu-wizard's own folders off
this interpreter's `sys.path`.

With `--gpu-test` it runs a tiny kernel on every visible device (allocate, add, synchronize):
the only proof that this torch can really use that GPU. A line is emitted before each test with
that test marked "running", so if a driver hangs or crashes the process, the parent still has
everything learnt so far and knows which device it was.
"""

import sys

if __name__ == "__main__":
    # Run as `python -c`, the folder it starts in comes first on the path: a json.py or re.py
    # there would replace the standard library in this check. (A torch.py there is the
    # parent's to report: it reads the folders without importing anything.)
    sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

MARKER = "GPU-WIZARD-TORCH:"
_LIBRARY_LINE = re.compile(r"lib\S+\.so[\d.]*|\S+\.dll|cannot open shared object|DLL load failed", re.I)
_MAX_WARNINGS = 8


def emit(data):
    # After torch: every millisecond before the import is on the user's clock (platform: +2 ms,
    # measured 2026-12-04).
    import platform

    data["machine"] = safe(platform.machine, None)
    if "glibc" not in data and sys.platform.startswith("linux"):
        libc = safe(platform.libc_ver, None)
        data["glibc"] = str(libc[1]) if libc and libc[0] == "glibc" and libc[1] else None
    sys.stdout.write("\n" + MARKER + json.dumps(data) + "\n")
    sys.stdout.flush()


def one_line(text, limit=400):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def key_line(exc):
    """The line a helper would search for: the missing library if one is named, else the error."""
    chain = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    for item in chain:  # outermost first: torch re-raises the loader error with context
        for line in str(item).splitlines():
            if _LIBRARY_LINE.search(line):
                return one_line("%s: %s" % (type(item).__name__, line.strip()))
    first = chain[0]
    lines = [line.strip() for line in str(first).splitlines() if line.strip()]
    return one_line("%s: %s" % (type(first).__name__, lines[0] if lines else ""))


def warning_lines(caught):
    lines = []
    for item in caught:
        text = one_line(item.message, 500)
        if text and text not in lines:
            lines.append(text)
    return lines[:_MAX_WARNINGS]


def safe(call, default=None):
    try:
        return call()
    except Exception:
        return default


def describe(torch, data):
    data["version"] = str(getattr(torch, "__version__", "") or "") or None
    version = getattr(torch, "version", None)
    for key in ("cuda", "hip", "xpu"):
        value = getattr(version, key, None)
        data[key] = str(value) if value else None
    data["location"] = os.path.dirname(getattr(torch, "__file__", "") or "") or None

    cuda = getattr(torch, "cuda", None)
    data["cuda_available"] = bool(safe(cuda.is_available, False)) if cuda else False
    data["device_count"] = 0
    data["devices"] = []
    if data["cuda_available"]:
        data["device_count"] = int(safe(cuda.device_count, 0) or 0)
        for index in range(data["device_count"]):
            data["devices"].append(cuda_device(torch, index, bool(data["hip"])))
        data["arch_list"] = list(safe(cuda.get_arch_list, []) or [])
    if not data.get("arch_list"):
        # Without a usable GPU get_arch_list() is empty; the compiled-in flags are not.
        flags = safe(lambda: torch._C._cuda_getArchFlags(), None)
        data["arch_list"] = str(flags).split() if flags else []

    mps = getattr(getattr(torch, "backends", None), "mps", None)
    data["mps_built"] = bool(safe(mps.is_built, False)) if mps else False
    data["mps_available"] = bool(safe(mps.is_available, False)) if mps else False
    xpu = getattr(torch, "xpu", None)
    data["xpu_available"] = bool(safe(xpu.is_available, False)) if xpu else False
    if data["xpu_available"] and not data["cuda_available"]:
        data["device_count"] = int(safe(xpu.device_count, 0) or 0)
        for index in range(data["device_count"]):
            name = safe(lambda i=index: xpu.get_device_name(i), "Intel GPU")
            data["devices"].append({"name": str(name)})
    cpu_backend = getattr(getattr(torch, "backends", None), "cpu", None)
    capability = safe(cpu_backend.get_cpu_capability, None) if cpu_backend else None
    data["cpu_capability"] = str(capability) if capability else None
    data["threads"] = safe(torch.get_num_threads, None)
    # Set to "" or "-1" it hides every GPU from CUDA (and ROCm reads it too).
    for name in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        if name in os.environ:
            data.setdefault("visible_devices", {})[name] = os.environ[name][:200]
    cudnn_version(torch, data)


# Variables that change which CUDA libraries load: only whether each is set is reported.
LIBRARY_ENV_VARS = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "LD_PRELOAD")
_CUDA_LIBRARY = re.compile(r"^lib(cudart|cudnn|nvJitLink|cublas|cusparse|cufft|curand|nccl)\w*\.so")


def library_env(data):
    """Which LIBRARY_ENV_VARS are set, and whether LD_LIBRARY_PATH holds CUDA libraries."""
    data["env_vars"] = [name for name in LIBRARY_ENV_VARS if os.environ.get(name)]
    found = False
    for folder in (os.environ.get("LD_LIBRARY_PATH") or "").split(os.pathsep)[:32]:
        try:
            names = os.listdir(folder) if folder else []
        except OSError:
            continue
        if any(_CUDA_LIBRARY.match(name) for name in names):
            found = True
            break
    if "LD_LIBRARY_PATH" in data["env_vars"]:
        data["ld_library_path_cuda"] = found


def cudnn_version(torch, data):
    """cuDNN's version as torch loads it; torch's own words when the one found does not fit."""
    cudnn = getattr(getattr(torch, "backends", None), "cudnn", None)
    if cudnn is None or not data.get("cuda_available"):
        return
    try:
        version = cudnn.version()
    except Exception as exc:  # "cuDNN version incompatibility: ... LD_LIBRARY_PATH ..."
        data["cudnn_error"] = one_line(exc, 500)
        return
    if version:
        number = int(version)  # 8902 is 8.9.2; from cuDNN 9 on, 90100 is 9.1.0
        scale = 10000 if number >= 10000 else 1000
        major, rest = divmod(number, scale)
        data["cudnn"] = "%d.%d.%d" % (major, rest // 100, rest % 100)


# sum(2*i + 1 for i in range(1024)): a wrong answer means the device computes garbage.
_TEST_SIZE = 1024
_TEST_EXPECTED = float(_TEST_SIZE * _TEST_SIZE)


def test_targets(torch, data):
    """(device string, name, synchronize) for every device torch says it can use."""
    targets = []
    if data.get("cuda_available"):
        for index, device in enumerate(data.get("devices") or []):
            targets.append(("cuda:%d" % index, device.get("name"), torch.cuda.synchronize))
    elif data.get("xpu_available"):
        for index, device in enumerate(data.get("devices") or []):
            targets.append(("xpu:%d" % index, device.get("name"), torch.xpu.synchronize))
    if data.get("mps_available"):
        targets.append(("mps", "Apple GPU (MPS)", torch.mps.synchronize))
    return targets


def error_text(exc):
    """The key line of a device error, without the exception's class name."""
    line = key_line(exc)
    name = type(exc).__name__ + ": "
    return line[len(name):] if line.startswith(name) else line


def gpu_tests(torch, data):
    data["gpu_tests"] = []
    for device, name, sync in test_targets(torch, data):
        test = {"device": device, "name": name, "status": "running"}
        data["gpu_tests"].append(test)
        emit(data)  # if the next lines never return, the parent knows where it stopped
        started = time.perf_counter()
        try:
            values = torch.arange(_TEST_SIZE, dtype=torch.float32, device=device)
            total = float((values + values + 1.0).sum().item())
            sync()
            if abs(total - _TEST_EXPECTED) > 0.5:
                raise ValueError("wrong result: %r instead of %r" % (total, _TEST_EXPECTED))
            test["status"] = "ok"
        except Exception as exc:
            test["status"] = "failed"
            test["error_line"] = error_text(exc)
        test["seconds"] = round(time.perf_counter() - started, 3)


def cuda_device(torch, index, rocm):
    props = safe(lambda: torch.cuda.get_device_properties(index), None)
    device = {"name": str(getattr(props, "name", "") or safe(lambda: torch.cuda.get_device_name(index), "?"))}
    if props is not None:
        if rocm and getattr(props, "gcnArchName", None):
            device["capability"] = str(props.gcnArchName).split(":")[0]
        else:
            device["capability"] = "%d.%d" % (props.major, props.minor)
        total = getattr(props, "total_memory", None)
        if total:
            device["memory_gb"] = round(total / 1024.0 ** 3, 2)
    return device


def matmul_rate(torch, device, size, budget, sync):
    a = torch.randn(size, size, device=device, dtype=torch.float32)
    b = torch.randn(size, size, device=device, dtype=torch.float32)
    for _ in range(2 if device == "cpu" else 3):  # warm-up: thread pools, kernels, clocks
        torch.mm(a, b)
    sync()
    reps = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < budget and reps < 400:
        for _ in range(1 if device == "cpu" else 5):
            torch.mm(a, b)
            reps += 1
        sync()
        elapsed = time.perf_counter() - start
    return 2.0 * size ** 3 * reps / elapsed


def benchmark(torch, data):
    start = time.perf_counter()
    result = {"dtype": "float32", "threads": safe(torch.get_num_threads, None)}
    size = 1024
    probe = torch.randn(size, size)
    t0 = time.perf_counter()
    torch.mm(probe, probe)
    if time.perf_counter() - t0 < 0.01:
        size = 2048  # a fast CPU finishes 1024² too quickly to time well
    result["matrix_size"] = size
    result["cpu_gflops"] = round(matmul_rate(torch, "cpu", size, 0.6, lambda: None) / 1e9, 2)

    backend = None
    failed = [t for t in data.get("gpu_tests") or [] if t.get("status") != "ok"]
    if failed:
        # The device already failed a tiny kernel: a big one would only fail again.
        result["gpu_backend"] = failed[0]["device"].split(":")[0]
        result["gpu_name"] = failed[0].get("name")
        result["gpu_error"] = failed[0].get("error_line") or failed[0]["status"]
    elif data.get("cuda_available"):
        backend, sync = "cuda", torch.cuda.synchronize
        result["gpu_name"] = (data.get("devices") or [{}])[0].get("name")
    elif data.get("mps_available"):
        backend, sync = "mps", torch.mps.synchronize
        result["gpu_name"] = "Apple GPU (MPS)"
    elif data.get("xpu_available"):
        backend, sync = "xpu", torch.xpu.synchronize
        result["gpu_name"] = (data.get("devices") or [{}])[0].get("name")
    if backend:
        result["gpu_backend"] = backend
        for gpu_size in (4096, 2048):
            try:
                rate = matmul_rate(torch, backend, gpu_size, 0.6, sync)
            except Exception as exc:  # out of memory, or "no kernel image is available"
                result["gpu_error"] = error_text(exc)
                continue
            result.pop("gpu_error", None)
            result["gpu_tflops"] = round(rate / 1e12, 3)
            result["gpu_matrix_size"] = gpu_size
            break
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def main(argv):
    data = {
        "python": sys.executable,
        "python_version": "%d.%d.%d" % tuple(sys.version_info[:3]),
    }
    library_env(data)
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import torch  # what this child is for: timed, with its warnings recorded
        except ImportError as exc:
            if getattr(exc, "name", None) == "torch" and "torch" not in sys.modules:
                data["status"] = "not-installed"
            else:
                data["status"] = "import-error"
            data["error_line"] = key_line(exc)
            data["warnings"] = warning_lines(caught)
            emit(data)
            return 0
        except BaseException as exc:  # torch's import can raise anything, even SystemExit
            data["status"] = "import-error"
            data["error_line"] = key_line(exc)
            data["warnings"] = warning_lines(caught)
            emit(data)
            return 0
        data["import_seconds"] = round(time.perf_counter() - started, 3)
        if getattr(torch, "__version__", None) is None:
            # A folder or file called "torch" in the current directory hides the real one.
            where = getattr(torch, "__file__", None) or list(getattr(torch, "__path__", []) or [])
            data["status"] = "import-error"
            data["error_line"] = one_line("'torch' here is not PyTorch: %s" % (where,))
            emit(data)
            return 0
        data["status"] = "ok"
        try:
            describe(torch, data)
            data["warnings"] = warning_lines(caught)
            if "--gpu-test" in argv:
                gpu_tests(torch, data)
            data["warnings"] = warning_lines(caught)
            if "--benchmark" in argv:
                emit(data)  # the tests stand even if the benchmark never ends
                data["benchmark"] = benchmark(torch, data)
        except Exception as exc:  # keep what was learnt so far
            data["describe_error"] = key_line(exc)
        data["warnings"] = warning_lines(caught)
    emit(data)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip the interpreter's teardown: with torch loaded, freeing every module and unloading
    # its libraries takes a third of a second, and nothing is left to save.
    os._exit(code)
