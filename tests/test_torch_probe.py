"""The torch probe: a child process of the chosen interpreter, bounded in time, never raising.

Fake torch packages on a temporary path stand in for broken installs (ImportError, segfault,
hang); a fake that behaves like a CUDA build exercises the child's real code; and the real CPU
torch that CI installs is checked against what importlib.metadata says independently.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import platform
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from wizard.probe.facts import machine_from_dict, to_dict
from wizard.probe.runner import RunResult
from wizard.pytorch.probe import StaticFacts, assemble, describe_torch, static_torch_facts
from wizard.pytorch.probe.child import child_source, parse_child_output
from wizard.pytorch.probe.job import probe_torch, start_torch_probe
from wizard.pytorch.probe.static import build_of, find_distributions, read_version_py, record_bytes
from wizard.pytorch.wording import torch_message

SHORT = 3.0          # the probe's own timeout in these tests
BOUND = SHORT + 2.0  # "returns within timeout + ~1 s", with room for a slow CI machine


@pytest.fixture(autouse=True)
def _no_inherited_pythonpath(monkeypatch):
    # The child inherits the environment on purpose; keep the developer's PYTHONPATH out of it.
    monkeypatch.delenv("PYTHONPATH", raising=False)


def fake_torch(root: Path, init_source: str, *, dist_version: str | None = None,
               version_py: str | None = None) -> Path:
    pkg = root / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(init_source), encoding="utf-8")
    if version_py is not None:
        (pkg / "version.py").write_text(textwrap.dedent(version_py), encoding="utf-8")
    if dist_version is not None:
        write_dist(root, "torch", dist_version, ["torch/__init__.py"] +
                   (["torch/version.py"] if version_py is not None else []))
    return root


def write_dist(root: Path, name: str, version: str, files: list[str], requires: tuple[str, ...] = (),
               sizes: bool = True) -> Path:
    meta = root / f"{name.replace('-', '_')}-{version}.dist-info"
    meta.mkdir()
    headers = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    headers += [f"Requires-Dist: {r}" for r in requires]
    (meta / "METADATA").write_text("\n".join(headers) + "\n\nA long description.\nRequires-Dist: not-a-header\n")
    rows = []
    for rel in files:
        size = (root / rel).stat().st_size
        rows.append(f"{rel},sha256=x,{size if sizes else ''}")
    rows.append(f"{meta.name}/METADATA,,")
    rows.append(f"{meta.name}/RECORD,,")
    (meta / "RECORD").write_text("\n".join(rows) + "\n")
    return meta


def on_disk(root: Path, files: list[str]) -> int:
    return sum((root / f).stat().st_size for f in files)


# ---------------------------------------------------------------------------------------------
# Broken installs: each answers within the bound


def test_import_error_gives_the_missing_library_line(tmp_path):
    fake_torch(tmp_path, """
        raise ImportError("libcudnn.so.9: cannot open shared object file: No such file or directory")
    """)
    start = time.monotonic()
    info, bench, note = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    assert time.monotonic() - start < BOUND
    assert info.status == "import-error"
    assert "libcudnn.so.9: cannot open shared object file" in info.error_line
    assert info.error_line.startswith("ImportError: ")
    assert note.name == "torch" and note.status == "error"
    assert bench is None
    assert "libcudnn.so.9" in torch_message(info, "en")


def test_loader_error_inside_an_import_error_chain_is_found(tmp_path):
    # torch re-raises the loader's OSError; the library line is in the chained exception.
    fake_torch(tmp_path, """
        try:
            raise OSError("libcublasLt.so.13: cannot open shared object file: No such file or directory")
        except OSError as exc:
            raise ImportError("initialisation failed") from exc
    """)
    info, _, _ = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    assert info.status == "import-error"
    assert info.error_line == ("OSError: libcublasLt.so.13: cannot open shared object file: "
                               "No such file or directory")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_segfault_on_import_is_crashed_with_the_signal(tmp_path):
    fake_torch(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    start = time.monotonic()
    info, _, note = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    assert time.monotonic() - start < BOUND
    assert info.status == "crashed"
    assert info.error_line == "SIGSEGV"
    assert note.status == "error"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_illegal_instruction_says_the_processor_is_the_problem(tmp_path):
    fake_torch(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    info, _, _ = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    assert info.status == "crashed" and info.error_line == "SIGILL"
    assert info.message is None and "illegal instruction" in torch_message(info, "en")


def test_hang_on_import_times_out_within_the_bound(tmp_path):
    fake_torch(tmp_path, "import time\ntime.sleep(3600)\n")
    start = time.monotonic()
    info, _, note = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    elapsed = time.monotonic() - start
    assert SHORT - 0.5 < elapsed < BOUND
    assert info.status == "timeout"
    assert note.status == "timeout"
    assert f"{SHORT:g}" in torch_message(info, "en")


def test_a_timed_out_probe_still_reports_the_no_import_facts(tmp_path):
    fake_torch(tmp_path, "import time\ntime.sleep(3600)\n", dist_version="2.9.1+cu128",
               version_py="__version__ = '2.9.1+cu128'\ncuda = '12.8'\nhip = None\n")
    info, _, _ = probe_torch(timeout=2.0, extra_path=[str(tmp_path)])
    assert info.status == "timeout"
    assert (info.version, info.build, info.cuda_version) == ("2.9.1+cu128", "cuda", "12.8")


def test_a_file_called_torch_py_is_reported_as_not_pytorch(tmp_path):
    (tmp_path / "torch.py").write_text("print('my homework')\n")
    info, _, _ = probe_torch(timeout=SHORT, extra_path=[str(tmp_path)])
    assert info.status == "import-error"
    assert "not PyTorch" in info.error_line and "torch.py" in info.error_line


def test_interpreter_without_torch_is_not_installed(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    info, _, note = probe_torch(str(python), timeout=20)
    assert info.status == "not-installed"
    assert info.interpreter == str(python)
    assert info.python_version == platform.python_version()
    assert note.status == "unavailable"
    assert str(python) in torch_message(info, "en")


def test_missing_interpreter_is_not_installed_with_a_reason():
    start = time.monotonic()
    info, _, note = probe_torch("/no/such/python3", timeout=SHORT)
    assert time.monotonic() - start < 2
    assert info.status == "not-installed"
    assert note.status == "error"
    assert "/no/such/python3" in torch_message(info, "en")


# ---------------------------------------------------------------------------------------------
# A fake CUDA torch: the child's real code path, and the static facts beside it

FAKE_CUDA_TORCH = """
    import warnings
    from types import SimpleNamespace
    __version__ = "2.6.0+cu124"
    version = SimpleNamespace(cuda="12.4", hip=None, xpu=None)

    class _Props:
        name = "NVIDIA GeForce RTX 5090"
        major, minor = 12, 0
        total_memory = 32 * 1024 ** 3

    def _props(index):
        warnings.warn("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
                      "current PyTorch installation.\\nThe current PyTorch install supports CUDA "
                      "capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.")
        return _Props()

    cuda = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 1, get_device_properties=_props,
        get_arch_list=lambda: ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
    )
    backends = SimpleNamespace(mps=SimpleNamespace(is_built=lambda: False, is_available=lambda: False),
                               cpu=SimpleNamespace(get_cpu_capability=lambda: "AVX2"))
    xpu = SimpleNamespace(is_available=lambda: False)
    get_num_threads = lambda: 4
"""


def test_fake_cuda_build_is_described_field_by_field(tmp_path):
    fake_torch(tmp_path, FAKE_CUDA_TORCH, dist_version="2.6.0+cu124",
               version_py="__version__ = '2.6.0+cu124'\ncuda: Optional[str] = '12.4'\nhip = None\n")
    info, bench, note = probe_torch(timeout=20, extra_path=[str(tmp_path)])
    assert info.status == "ok", info
    assert (info.version, info.build, info.cuda_version) == ("2.6.0+cu124", "cuda", "12.4")
    assert info.cuda_available is True and info.device_count == 1
    assert info.devices[0].name == "NVIDIA GeForce RTX 5090"
    assert info.devices[0].capability == "12.0" and info.devices[0].memory_gb == 32.0
    assert info.arch_list == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    assert info.mps_built is False and info.mps_available is False and info.xpu_available is False
    assert info.cpu_capability == "AVX2"
    assert any("sm_120 is not compatible" in w for w in info.torch_warnings)
    assert "\n" not in "".join(info.torch_warnings)
    assert bench is None
    assert note.status == "ok" and "2.6.0+cu124" in note.detail
    assert info.message is None and "RTX 5090" in torch_message(info, "en")


FAKE_BENCH_TORCH = """
    import time
    from types import SimpleNamespace
    __version__ = "2.7.1+cu126"
    version = SimpleNamespace(cuda="12.6", hip=None, xpu=None)
    float32 = "float32"
    GPU_WORKS = {gpu_works}

    def randn(*shape, device="cpu", dtype=None):
        if device == "cuda" and not GPU_WORKS:
            raise RuntimeError("CUDA error: no kernel image is available for execution on the device\\n"
                               "CUDA kernel errors might be asynchronously reported")
        return (device, shape)

    def mm(a, b):
        time.sleep(0.02 if a[0] == "cpu" else 0.001)

    class _Tensor:   # just enough for the GPU test: arange, +, sum(), item()
        def __add__(self, other):
            return self
        def sum(self):
            return self
        def item(self):
            return 1048576.0

    def arange(n, dtype=None, device="cpu"):
        randn(n, device=device.split(":")[0])
        return _Tensor()

    class _Props:
        name, major, minor, total_memory = "NVIDIA GeForce RTX 5080", 12, 0, 16 * 1024 ** 3

    cuda = SimpleNamespace(is_available=lambda: True, device_count=lambda: 1,
                           get_device_properties=lambda i: _Props(), get_arch_list=lambda: ["sm_90"],
                           synchronize=lambda: None)
    get_num_threads = lambda: 8
"""


@pytest.mark.parametrize("gpu_works", [True, False])
def test_benchmark_times_cpu_and_gpu_or_says_why_the_gpu_failed(tmp_path, gpu_works):
    fake_torch(tmp_path, FAKE_BENCH_TORCH.replace("{gpu_works}", str(gpu_works)))
    start = time.monotonic()
    info, bench, _ = probe_torch(timeout=30, benchmark=True, extra_path=[str(tmp_path)])
    assert time.monotonic() - start < 10     # a few seconds at most
    assert info.status == "ok" and bench is not None
    # 1024³ multiply-adds per 20 ms call: about 107 GFLOP/s, less the loop's own time.
    assert bench.matrix_size == 1024 and 40 < bench.cpu_gflops < 110
    assert bench.cpu_threads == 8 and bench.gpu_backend == "cuda" and bench.gpu_name == "NVIDIA GeForce RTX 5080"
    if gpu_works:
        assert bench.gpu_matrix_size == 4096 and bench.gpu_tflops > 1 and bench.gpu_error is None
    else:
        assert bench.gpu_tflops is None and bench.gpu_matrix_size is None
        # The GPU test failed first; the benchmark says why instead of failing again.
        assert bench.gpu_error.startswith("CUDA error: no kernel image is available")
    tests = info.gpu_tests
    assert [(t.device, t.name, t.status) for t in tests] == \
        [("cuda:0", "NVIDIA GeForce RTX 5080", "ok" if gpu_works else "failed")]
    if not gpu_works:
        assert tests[0].error_line == "CUDA error: no kernel image is available for execution on the device"


def test_arch_flags_are_read_when_no_gpu_is_available(tmp_path):
    fake_torch(tmp_path, """
        from types import SimpleNamespace
        __version__ = "2.14.1+cu130"
        version = SimpleNamespace(cuda="13.0", hip=None, xpu=None)
        cuda = SimpleNamespace(is_available=lambda: False, get_arch_list=lambda: [])
        _C = SimpleNamespace(_cuda_getArchFlags=lambda: "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120")
    """)
    info, _, _ = probe_torch(timeout=20, extra_path=[str(tmp_path)])
    assert info.status == "ok" and info.cuda_available is False and info.device_count == 0
    assert info.arch_list == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert info.build == "cuda"


def test_sizes_split_torch_from_the_gpu_libraries_it_brought(tmp_path):
    fake_torch(tmp_path, "__version__ = '2.13.0'\n", version_py="__version__ = '2.13.0'\ncuda = '13.0'\n")
    (tmp_path / "torch" / "lib").mkdir()
    (tmp_path / "torch" / "lib" / "libtorch_cuda.so").write_bytes(b"\0" * 3_000_000)
    torch_files = ["torch/__init__.py", "torch/version.py", "torch/lib/libtorch_cuda.so"]
    write_dist(tmp_path, "torch", "2.13.0", torch_files, requires=(
        'cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"',
        'nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"',
        "sympy>=1.13.3", "filelock",
    ))
    for name, size, requires in (("cuda-toolkit", 10, ('nvidia-cublas==13.1.1.3.*; extra == "cublas"',
                                                        'nvidia-cuda-runtime==13.0.96.*; extra == "cudart"')),
                                 ("nvidia-cublas", 2_000_000, ()), ("nvidia-cudnn-cu13", 5_000_000, ()),
                                 ("sympy", 1_000_000, ())):
        folder = tmp_path / name.replace("-", "_")
        folder.mkdir()
        (folder / "blob.bin").write_bytes(b"\1" * size)
        write_dist(tmp_path, name, "1.0", [f"{folder.name}/blob.bin"], requires=requires)
    facts = static_torch_facts(None, [str(tmp_path)])
    assert facts.installed and facts.version == "2.13.0" and facts.build == "cuda"
    names = [name for name, _ in facts.libraries]
    # cuda-runtime is named by cuda-toolkit's extras but not installed: not counted.
    assert names == ["nvidia-cudnn-cu13", "nvidia-cublas", "cuda-toolkit"]
    meta_sizes = sum(p.stat().st_size for p in tmp_path.glob("torch-*.dist-info/*"))
    assert facts.torch_size_mb == round((on_disk(tmp_path, torch_files) + meta_sizes) / 1e6, 1)
    assert dict(facts.libraries)["nvidia-cudnn-cu13"] == pytest.approx(5.0, abs=0.01)
    assert facts.install_size_mb == pytest.approx(facts.torch_size_mb + facts.libraries_size_mb, abs=0.11)

    info, _, _ = probe_torch(timeout=20, extra_path=[str(tmp_path)])
    assert info.libraries == tuple(names)
    assert info.library_sizes_mb == tuple(size for _, size in facts.libraries)
    assert info.torch_size_mb == facts.torch_size_mb and info.libraries_size_mb == facts.libraries_size_mb


def test_another_interpreter_is_asked_for_its_own_path(tmp_path):
    # A fresh venv cannot see this project's packages; only the path we hand it.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    site = tmp_path / "site"
    fake_torch(site, "__version__ = '2.7.1+rocm6.3'\n", dist_version="2.7.1+rocm6.3",
               version_py="__version__ = '2.7.1+rocm6.3'\ncuda = None\nhip = '6.3.42131'\n")
    facts = static_torch_facts(str(python), [str(site)])
    assert (facts.version, facts.build, facts.hip_version) == ("2.7.1+rocm6.3", "rocm", "6.3.42131")
    assert facts.python_version == platform.python_version()
    bare = static_torch_facts(str(python))
    assert bare.installed is False


def test_record_rows_without_size_are_measured_on_disk(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_bytes(b"x" * 1234)
    meta = write_dist(tmp_path, "pkg", "1.0", ["pkg/a.py"], sizes=False)
    dist = find_distributions([str(tmp_path)])["pkg"]
    expected = 1234 + (meta / "METADATA").stat().st_size + (meta / "RECORD").stat().st_size
    assert record_bytes(dist) == expected


def test_start_runs_in_the_background_and_joins_once(tmp_path):
    fake_torch(tmp_path, "import time\ntime.sleep(1.0)\n__version__ = '2.4.1+cpu'\n")
    start = time.monotonic()
    job = start_torch_probe(timeout=10, extra_path=[str(tmp_path)])
    assert time.monotonic() - start < 0.5  # started, not waited for
    assert job.static(5) is not None       # no-import facts arrive before the import finishes
    first = job.result()
    assert first is job.result()
    assert first[0].status == "ok" and first[0].version == "2.4.1+cpu" and first[0].build == "cpu"


# ---------------------------------------------------------------------------------------------
# Pieces


def test_version_py_is_read_without_importing(tmp_path):
    (tmp_path / "version.py").write_text(textwrap.dedent("""
        from typing import Optional
        __all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
        __version__ = '2.5.1+cu124'
        debug = False
        cuda: Optional[str] = '12.4'
        git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'
        hip: Optional[str] = None
        xpu = compute_something()
    """))
    values = read_version_py(str(tmp_path))
    assert values["__version__"] == "2.5.1+cu124" and values["cuda"] == "12.4" and values["hip"] is None
    assert "xpu" not in values
    assert read_version_py(str(tmp_path / "missing")) == {}


@pytest.mark.parametrize("version, cuda, hip, xpu, mps, apple, expected", [
    ("2.13.0+cpu", None, None, None, None, False, "cpu"),
    ("2.14.1", "13.0", None, None, None, False, "cuda"),       # PyPI Linux default: no local tag
    ("2.7.1+cu128", None, None, None, None, False, "cuda"),
    ("2.6.0+rocm6.2.4", None, "6.2.4", None, None, False, "rocm"),
    ("2.8.0+xpu", None, None, "20250101", None, False, "xpu"),
    ("2.13.0", None, None, None, True, True, "mps"),
    ("2.13.0", None, None, None, None, True, "mps"),            # static guess on an arm64 Mac
    ("2.13.0", None, None, None, False, True, "cpu"),
])
def test_build_of(version, cuda, hip, xpu, mps, apple, expected):
    assert build_of(version, cuda, hip, xpu, mps, apple) == expected


def test_child_output_is_found_among_noise():
    line = describe_torch.MARKER + '{"status": "ok", "version": "2.4.1"}'
    assert parse_child_output(f"banner from C\n{line}\nmore noise\n") == {"status": "ok", "version": "2.4.1"}
    assert parse_child_output("no marker here") is None
    assert parse_child_output(describe_torch.MARKER + "{broken") is None


def test_windows_access_violation_exit_code_is_a_crash():
    run = RunResult("ok", returncode=0xC0000005, stdout="", stderr="")
    info, _, note = assemble(run, StaticFacts(False), "python.exe", 25.0)
    assert info.status == "crashed" and "0xC0000005" in info.error_line
    assert note.status == "error"


def test_broken_record_with_missing_package_is_an_import_error():
    run = RunResult("ok", 0, describe_torch.MARKER + '{"status": "not-installed", '
                    '"error_line": "ModuleNotFoundError: No module named \'torch\'"}\n', "")
    info, _, _ = assemble(run, StaticFacts(True, version="2.9.1"), "python", 25.0)
    assert info.status == "import-error"


def test_key_line_prefers_a_named_library_over_the_outer_message():
    try:
        try:
            raise OSError("[WinError 126] The specified module could not be found. Error loading "
                          '"C:\\torch\\lib\\c10.dll" or one of its dependencies.')
        except OSError as exc:
            raise RuntimeError("torch failed") from exc
    except RuntimeError as exc:
        line = describe_torch.key_line(exc)
    assert line.startswith("OSError: [WinError 126]") and "c10.dll" in line


def test_probe_result_round_trips_through_the_report_schema(tmp_path):
    fake_torch(tmp_path, FAKE_CUDA_TORCH, dist_version="2.6.0+cu124",
               version_py="__version__ = '2.6.0+cu124'\ncuda = '12.4'\n")
    info, _, _ = probe_torch(timeout=20, extra_path=[str(tmp_path)])
    machine = machine_from_dict({
        "os": "Linux", "os_version": "x", "arch": "x86_64", "python_version": "3.11.7", "cpu_model": "x",
        "cpu_cores": 2, "cpu_threads": 4, "ram_gb": 8.0, "disk_free_gb": 10.0, "chassis": "desktop",
        "nvidia": {"status": "ok"}, "torch": to_dict(info),
    })
    assert machine.torch == info


def test_the_child_is_standalone_and_python_3_6_compatible():
    # It runs under the user's interpreter, which has no gpu-wizard and may be old: environments
    # stuck on Python 3.7 and torch 1.13 are exactly the ones that need a diagnosis.
    source = child_source()
    tree = ast.parse(source, feature_version=(3, 6))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"json", "os", "re", "sys", "time", "warnings", "platform", "torch"}


# ---------------------------------------------------------------------------------------------
# The real torch (CI installs the CPU build)

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed in this environment")
def test_real_torch_matches_what_its_metadata_says():
    import importlib.metadata as md

    dist = md.distribution("torch")
    info, bench, note = probe_torch(timeout=60)
    assert info.status == "ok", info
    assert note.status == "ok"
    assert info.version == dist.version
    local = dist.version.partition("+")[2]
    if local == "cpu":
        assert info.build == "cpu"
        assert info.cuda_version is None and info.cuda_available is False and info.device_count == 0
        # A CPU build compiles no GPU code: torch reports an empty arch list, and so do we.
        assert info.arch_list == ()
        assert info.libraries == () and info.libraries_size_mb == 0
    assert info.cpu_capability  # e.g. "AVX2", "AVX512", "DEFAULT"
    assert info.python_version == platform.python_version()
    # Sizes: every file pip recorded, measured on disk through importlib.metadata.
    on_disk_bytes = sum(os.path.getsize(f.locate()) for f in dist.files if os.path.exists(f.locate()))
    assert info.torch_size_mb == pytest.approx(on_disk_bytes / 1e6, abs=0.1)
    assert bench is None


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed in this environment")
def test_real_torch_benchmark_measures_the_cpu():
    info, bench, _ = probe_torch(timeout=90, benchmark=True)
    assert info.status == "ok"
    assert bench is not None
    assert bench.cpu_gflops > 0.1 and bench.matrix_size in (1024, 2048) and bench.dtype == "float32"
    assert bench.seconds is not None and bench.seconds < 30
    if not info.cuda_available and not info.mps_available:
        assert bench.gpu_tflops is None and bench.gpu_backend is None


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed in this environment")
def test_real_torch_static_facts_agree_with_the_live_ones():
    facts = static_torch_facts()
    info, _, _ = probe_torch(timeout=60)
    assert facts.installed and facts.version == info.version and facts.build == info.build
    assert facts.cuda_version == info.cuda_version


def test_message_does_not_call_a_gpu_usable_when_the_build_lacks_its_kernels():
    from wizard.probe.facts import TorchDevice, TorchInfo

    pascal = TorchInfo(status="ok", version="2.8.0+cu128", build="cuda", cuda_available=True,
                       devices=(TorchDevice("NVIDIA GeForce GTX 1080 Ti", "6.1"),),
                       arch_list=("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"))
    assert "not built for this GPU" in torch_message(pascal, "en")
    ampere = TorchInfo(status="ok", version="2.8.0+cu128", build="cuda", cuda_available=True,
                       devices=(TorchDevice("NVIDIA GeForce RTX 3060", "8.6"),), arch_list=pascal.arch_list)
    assert "can use the GPU" in torch_message(ampere, "en")


# ---------------------------------------------------------------------------------------------
# The GPU test: a tiny kernel on every device torch offers, the ground truth of "can it use it"

FAKE_GPU_TORCH = """
    import os, signal, time
    from types import SimpleNamespace
    __version__ = "2.13.0+cu130"
    version = SimpleNamespace(cuda="13.0", hip=None, xpu=None)
    float32 = "float32"
    MODE = "{mode}"
    CALLS = []

    class _Tensor:
        def __add__(self, other):
            return self
        def sum(self):
            return self
        def item(self):
            return 3.0 if MODE == "wrong" else 1048576.0

    def arange(n, dtype=None, device="cpu"):
        CALLS.append(device)
        if MODE == "fail":
            raise RuntimeError("CUDA error: no kernel image is available for execution on the device\\n"
                               "CUDA kernel errors might be asynchronously reported")
        if MODE == "hang" and device == "cuda:1":
            time.sleep(60)
        if MODE == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        return _Tensor()

    class _Props:
        name, major, minor, total_memory = "NVIDIA GeForce RTX 4090", 8, 9, 24 * 1024 ** 3

    cuda = SimpleNamespace(is_available=lambda: True, device_count=lambda: 2,
                           get_device_properties=lambda i: _Props(), get_arch_list=lambda: ["sm_86", "sm_90"],
                           synchronize=lambda: None)
    get_num_threads = lambda: 8
"""


def gpu_torch(tmp_path: Path, mode: str) -> list[str]:
    fake_torch(tmp_path, FAKE_GPU_TORCH.replace("{mode}", mode))
    return [str(tmp_path)]


def test_the_gpu_test_runs_on_every_device(tmp_path):
    info, _, note = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, "ok"))
    assert [(t.device, t.status, t.name) for t in info.gpu_tests] == [
        ("cuda:0", "ok", "NVIDIA GeForce RTX 4090"), ("cuda:1", "ok", "NVIDIA GeForce RTX 4090")]
    assert all(t.seconds is not None and t.seconds >= 0 for t in info.gpu_tests)
    assert note.status == "ok"


@pytest.mark.parametrize("mode, line", [
    ("fail", "CUDA error: no kernel image is available for execution on the device"),
    ("wrong", "wrong result: 3.0 instead of 1048576.0"),
])
def test_a_failing_gpu_test_records_the_key_line(tmp_path, mode, line):
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, mode))
    assert info.status == "ok"
    assert [(t.status, t.error_line) for t in info.gpu_tests] == [("failed", line)] * 2


def test_a_hanging_gpu_test_keeps_what_was_learnt_and_names_the_device(tmp_path):
    start = time.monotonic()
    info, _, note = probe_torch(timeout=6, extra_path=gpu_torch(tmp_path, "hang"))
    assert time.monotonic() - start < 6 + 3
    assert info.status == "ok" and info.version == "2.13.0+cu130" and info.cuda_available
    assert [(t.device, t.status) for t in info.gpu_tests] == [("cuda:0", "ok"), ("cuda:1", "timeout")]
    assert "did not finish within 6 s" in info.gpu_tests[1].error_line
    assert note.status == "timeout"


def test_a_gpu_test_that_kills_python_is_a_failed_test_not_a_broken_torch(tmp_path):
    info, _, note = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, "crash"))
    assert info.status == "ok"
    assert info.gpu_tests[0].status == "failed" and "SIGSEGV" in info.gpu_tests[0].error_line
    assert note.status == "error"


def test_no_gpu_test_when_asked_not_to(tmp_path):
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, "crash"), gpu_test=False)
    assert info.status == "ok" and info.gpu_tests == ()


def test_visible_devices_settings_are_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, "ok"), gpu_test=False)
    assert info.visible_devices_env == ("CUDA_VISIBLE_DEVICES=",)



# --- the user's folder: what `import torch` finds there, without running their code ----------

HIJACK = "import pathlib; pathlib.Path(__file__).with_name('RAN').write_text('x'); raise SystemExit(7)\n"


def users_folder(tmp_path: Path, monkeypatch, *names: str) -> Path:
    """A project folder holding files that shadow the standard library, made the cwd."""
    folder = tmp_path / "homework"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(HIJACK)
    monkeypatch.chdir(folder)
    return folder


def test_modules_in_the_users_folder_do_not_replace_the_standard_library(tmp_path, monkeypatch):
    folder = users_folder(tmp_path, monkeypatch, "json.py", "re.py", "platform.py", "warnings.py")
    info, _, _ = probe_torch(timeout=120)
    assert info.status == "ok", info.error_line
    assert info.version == importlib.metadata.version("torch")
    assert not (folder / "RAN").exists()


def test_another_interpreter_is_asked_its_path_outside_the_users_folder(tmp_path, monkeypatch):
    folder = users_folder(tmp_path, monkeypatch, "json.py", "platform.py")
    other = tmp_path / "bin" / "python3"   # "another" interpreter: asked in a child process
    other.parent.mkdir()
    other.symlink_to(sys.executable)
    facts = static_torch_facts(str(other), timeout=30)
    assert facts.python_version == platform.python_version(), facts.detail
    assert not (folder / "RAN").exists()


@pytest.mark.parametrize("shadow", ["torch.py", "torch/__init__.py"])
def test_a_torch_of_the_users_own_is_reported_without_being_run(tmp_path, monkeypatch, shadow):
    folder = users_folder(tmp_path, monkeypatch)
    (folder / shadow).parent.mkdir(exist_ok=True)
    (folder / shadow).write_text(HIJACK)
    info, _, _ = probe_torch(timeout=120)
    assert info.status == "import-error"
    where = str(folder / shadow.split("/")[0])
    assert info.error_line.endswith(where)
    assert torch_message(info, "en") == f"In this folder, `import torch` loads {where}, which is not PyTorch."
    assert not (folder / "RAN").exists() and not (folder / "torch" / "RAN").exists()


def test_a_deleted_current_folder_does_not_stop_the_check(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    info, _, _ = probe_torch(timeout=120)
    assert info.status == "ok", info.error_line


# --- an interpreter that answers in bad faith ------------------------------------------------

def fake_python(tmp_path: Path, answer: str, exit_code: int = 0) -> str:
    """A "python" that answers the path query honestly and the torch child with `answer`."""
    script = tmp_path / "python3"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, platform, sys\n"
        "code = sys.argv[2] if len(sys.argv) > 2 else ''\n"
        "if 'sys.prefix' in code and 'import torch' not in code:\n"
        "    print(json.dumps([[], platform.python_version(), platform.machine(), sys.prefix]))\n"
        "    sys.exit(0)\n"
        f"sys.stdout.write({answer!r})\n"
        f"sys.exit({exit_code})\n")
    script.chmod(0o755)
    return str(script)


WRONG_TYPES = {
    "status": "ok", "version": 5, "cuda": "abc", "cuda_available": "yes", "device_count": True,
    "devices": [{"name": 7, "capability": "$(x)", "memory_gb": 1e308}, "cuda:0", {"memory_gb": "8"}],
    "arch_list": "sm_90", "warnings": 5, "gpu_tests": {"a": 1}, "visible_devices": [1, 2],
    "python_version": "latest", "machine": ["x86_64"], "benchmark": {"cpu_gflops": "fast", "matrix_size": 1},
    "import_seconds": float("inf"), "location": None,
}


def test_an_answer_with_wrong_types_is_a_plain_status_never_a_crash(tmp_path):
    import json as _json

    line = "\n" + describe_torch.MARKER + _json.dumps(WRONG_TYPES) + "\n"
    python = fake_python(tmp_path, line)
    info, bench, _ = probe_torch(python, timeout=20, benchmark=True)
    assert info.status == "ok"
    assert info.version is None and info.cuda_version is None and info.cuda_available is None
    assert [(d.name, d.capability, d.memory_gb) for d in info.devices] == [("7", None, None), ("GPU", None, None)]
    assert bench is None
    # What it said holds the rules every report is checked against.
    assert machine_from_dict({**to_dict_base(), "torch": to_dict(info)})


def to_dict_base() -> dict:
    return {"os": "Linux", "os_version": "x", "arch": "x86_64", "python_version": "3.11.7", "cpu_model": "c",
            "chassis": "vm", "nvidia": {"status": "no-library"}}


def test_a_program_that_only_looks_like_python_is_named_so(tmp_path):
    python = fake_python(tmp_path, "hello\n")
    info, _, _ = probe_torch(python, timeout=20)
    assert info.status == "not-installed"
    assert "did not answer the way Python does" in torch_message(info, "en")


# --- issue 26: what collect_env reports, and the environment that shadows torch's libraries ---

def _cudnn_torch(root: Path, cudnn: str) -> list[str]:
    source = FAKE_CUDA_TORCH.replace(
        "backends = SimpleNamespace(",
        f"def _cudnn_version():\n        {cudnn}\n\n"
        "    backends = SimpleNamespace(cudnn=SimpleNamespace(version=_cudnn_version), ")
    fake_torch(root, source, dist_version="2.6.0+cu124")
    return [str(root)]


def test_the_cudnn_version_is_read_as_torch_loads_it(tmp_path):
    info, _, _ = probe_torch(timeout=20, extra_path=_cudnn_torch(tmp_path, "return 90100"), gpu_test=False)
    assert info.cudnn_version == "9.1.0"


def test_cudnn_8_numbers_are_read_too(tmp_path):
    info, _, _ = probe_torch(timeout=20, extra_path=_cudnn_torch(tmp_path, "return 8902"), gpu_test=False)
    assert info.cudnn_version == "8.9.2"


def test_a_cudnn_that_does_not_fit_is_what_torch_said(tmp_path):
    # torch/backends/cudnn/__init__.py raises this when the loader found another cuDNN first.
    raise_it = ('raise RuntimeError("cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) '
                'but found runtime version (8, 9, 2). PyTorch already comes bundled with cuDNN. One option to '
                'resolving this error is to ensure PyTorch can find the bundled cuDNN. Looks like your '
                'LD_LIBRARY_PATH contains incompatible version of cudnn.")')
    info, _, _ = probe_torch(timeout=20, extra_path=_cudnn_torch(tmp_path, raise_it), gpu_test=False)
    assert info.cudnn_version is None
    assert any("LD_LIBRARY_PATH contains incompatible version of cudnn" in w for w in info.torch_warnings)


def test_library_variables_are_recorded_by_name_never_by_value(tmp_path, monkeypatch):
    toolkit = tmp_path / "cuda-12.1" / "lib64"
    toolkit.mkdir(parents=True)
    (toolkit / "libnvJitLink.so.12").write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(toolkit))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda-12.1"))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path / "t", "ok"), gpu_test=False)
    assert info.env_vars == ("LD_LIBRARY_PATH", "CUDA_HOME")
    assert info.ld_library_path_cuda is True
    assert "cuda-12.1" not in repr(to_dict(info))


def test_an_ld_library_path_without_cuda_libraries_is_told_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path / "t", "ok"), gpu_test=False)
    assert "LD_LIBRARY_PATH" in info.env_vars and info.ld_library_path_cuda is False


def test_the_variables_are_known_even_when_torch_fails_to_load(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    fake_torch(tmp_path / "t", "raise ImportError('libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1')")
    info, _, _ = probe_torch(timeout=20, extra_path=[str(tmp_path / "t")])
    assert info.status == "import-error" and info.env_vars == ("LD_LIBRARY_PATH",)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc is Linux's")
def test_the_c_library_of_the_python_checked_is_recorded(tmp_path):
    info, _, _ = probe_torch(timeout=20, extra_path=gpu_torch(tmp_path, "ok"), gpu_test=False)
    libc, version = platform.libc_ver()
    assert info.glibc_version == (version if libc == "glibc" else None)


def test_the_packages_a_bug_report_lists_are_read_from_the_environment(tmp_path):
    fake_torch(tmp_path, FAKE_CUDA_TORCH, dist_version="2.6.0+cu124")
    for name, version in (("nvidia-cudnn-cu12", "9.1.0.70"), ("triton", "3.2.0"), ("numpy", "2.2.3"),
                          ("torchvision", "0.21.0+cu124"), ("requests", "2.32.3")):
        folder = tmp_path / name.replace("-", "_")
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        write_dist(tmp_path, name, version, [f"{name.replace('-', '_')}/__init__.py"])
    from wizard.pytorch.probe.static import facts_from_path

    facts = facts_from_path([str(tmp_path)], "3.12.4", "x86_64")
    assert facts.packages == ("numpy==2.2.3", "nvidia-cudnn-cu12==9.1.0.70", "torch==2.6.0+cu124",
                              "torchvision==0.21.0+cu124", "triton==3.2.0")


def test_conda_packages_are_read_from_conda_meta(tmp_path):
    from wizard.pytorch.probe.static import conda_packages

    meta = tmp_path / "conda-meta"
    meta.mkdir()
    for name in ("pytorch-2.5.1-py3.11_cuda12.4_cudnn9.1.0_0.json", "pytorch-cuda-12.4-hc786d27_7.json",
                 "numpy-1.26.4-py311h08b1b3b_0.json", "zlib-1.2.13-h5eee18b_1.json", "history"):
        (meta / name).write_text("{}")
    assert conda_packages(str(tmp_path)) == ("conda:numpy==1.26.4", "conda:pytorch==2.5.1",
                                             "conda:pytorch-cuda==12.4")
    assert conda_packages(str(tmp_path / "nowhere")) == ()
