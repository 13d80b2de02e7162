"""`gpu-wizard check` as users run it: real probes here, recorded machines, and bad input."""

import json
import os
import sys

import psutil
import pytest

from tests.conftest import MACHINES, run_cli
from wizard.probe.chassis import detect_linux

RECORDED = ["vm-no-gpu", "laptop-4060", "desktop-1080ti", "apple-m2", "h200-server", "wsl2",
            "container-no-gpu", "nouveau"]


def test_json_on_this_machine_has_the_report_keys_and_true_facts():
    result = run_cli("check", "--json", "--no-torch")
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"machine", "findings"}
    machine = data["machine"]
    for key in ("os", "os_version", "arch", "python_version", "cpu_model", "cpu_cores", "cpu_threads",
                "ram_gb", "disk_free_gb", "chassis", "nvidia"):
        assert key in machine, key
    assert machine["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert machine["ram_gb"] == pytest.approx(psutil.virtual_memory().total / 2**30, abs=0.2)
    if hasattr(os, "sched_getaffinity"):
        assert machine["cpu_threads"] == len(os.sched_getaffinity(0))
    if sys.platform.startswith("linux"):
        assert machine["chassis"] == detect_linux()[0]
        assert "model name" not in machine["cpu_model"]
    assert "hostname" not in machine, "redacted by default"
    assert machine["nvidia"]["message"]
    for finding in data["findings"]:
        assert set(finding) == {"id", "severity", "title", "detail", "fix"}


def test_no_redact_keeps_the_host_name():
    data = json.loads(run_cli("check", "--json", "--no-torch", "--no-redact").stdout)
    assert data["machine"]["hostname"]


def test_text_output_in_both_languages():
    en = run_cli("check", "--no-torch", "--lang", "en")
    zh = run_cli("check", "--no-torch", "--lang", "zh")
    assert "NVIDIA" in en.stdout and "Findings" in en.stdout
    assert "检查结论" in zh.stdout
    assert "Traceback" not in en.stderr + zh.stderr


def test_c_locale_prints_without_crashing():
    result = run_cli("check", "--no-torch", env={"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"})
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    result.stdout.encode("ascii")


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_machines_replay(name):
    path = MACHINES / f"{name}.toml"
    assert path.exists(), f"recorded machine {path} is missing"
    result = run_cli("check", "--machine", str(path), "--json")
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert data["machine"]["chassis"]
    text = run_cli("check", "--machine", str(path)).stdout
    assert path.name in text


def test_laptop_4060_is_shown_as_that_laptop():
    result = run_cli("check", "--machine", str(MACHINES / "laptop-4060.toml"), "--lang", "en")
    assert "RTX 4060 Laptop GPU" in result.stdout
    assert "laptop" in result.stdout


def test_nouveau_machine_exits_1_with_the_fix():
    result = run_cli("check", "--machine", str(MACHINES / "nouveau.toml"))
    assert result.returncode == 1
    assert "nouveau" in result.stdout and "ubuntu-drivers" in result.stdout


def _one_clear_line(result, needle: str):
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert needle in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"[machine\nos = 'Linux'", "not valid TOML"),
        (b"\xff\xfe[machine]\n", "not UTF-8"),
        (b"[answers]\ngoal = 'kaggle'\n", "no [machine] table"),
        (b"[machine]\nos = 'Linux'\ncpu_cores = 'eight'\n", "machine.cpu_cores"),
        (b"[machine]\nos = 'Linux'\nos_version = ''\narch = 'x86_64'\npython_version = '3.11'\n"
         b"cpu_model = ''\ncpu_cores = 2\ncpu_threads = 2\nram_gb = 1.0\ndisk_free_gb = 1.0\n"
         b"chassis = 'spaceship'\n[machine.nvidia]\nstatus = 'ok'\n", "machine.chassis: 'spaceship'"),
    ],
)
def test_bad_machine_files(tmp_path, content, problem):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    result = run_cli("check", "--machine", str(path))
    _one_clear_line(result, problem)
    assert str(path) in result.stderr


def test_missing_and_huge_machine_files(tmp_path):
    _one_clear_line(run_cli("check", "--machine", str(tmp_path / "nope.toml")), "no such file")
    _one_clear_line(run_cli("check", "--machine", str(tmp_path)), "folder")
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# " + b"x" * (50 * 2**20) + b"\n")
    _one_clear_line(run_cli("check", "--machine", str(huge)), "far bigger")


def test_unknown_option_is_one_line_and_exit_2():
    _one_clear_line(run_cli("check", "--frobnicate"), "--frobnicate")
    _one_clear_line(run_cli("check", "--lang", "fr"), "invalid choice")


def test_options_before_the_subcommand_are_not_lost():
    path = str(MACHINES / "nouveau.toml")
    before = run_cli("--machine", path, "--lang", "zh", "check")
    after = run_cli("check", "--machine", path, "--lang", "zh")
    assert before.returncode == after.returncode == 1
    assert before.stdout == after.stdout
    assert "nouveau" in before.stdout and "检查结论" in before.stdout


@pytest.mark.parametrize("name, lang, label, not_said", [
    # The host's driver is loaded; only the container cannot reach it.
    ("container-no-gpu", "en", "not reachable from this container", "not installed"),
    ("nouveau", "en", "nouveau driver is in use", "installed but not loaded"),
    ("vm-no-gpu", "en", "no NVIDIA card found", "not installed"),
    ("container-no-gpu", "zh", "这个容器访问不到", "未安装"),
])
def test_the_driver_line_says_what_the_reason_says(name, lang, label, not_said):
    result = run_cli("check", "--machine", str(MACHINES / f"{name}.toml"), "--lang", lang)
    driver_line = next(line for line in result.stdout.splitlines()
                       if "NVIDIA" in line and ("driver" in line or "驱动" in line))
    assert label in driver_line and not_said not in driver_line
    assert "CUDA up to unknown" not in result.stdout


def _run_in_a_terminal(args, env):
    """The CLI with its output on a pseudo-terminal, as when a user types the command."""
    import pty
    import subprocess

    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "wizard", *args], stdout=secondary,
                            stderr=secondary, env=dict(os.environ, **env))
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closes when the command exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(primary)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")


def test_lang_c_terminal_gets_ascii_marks_and_a_pipe_keeps_the_text():
    machine = str(MACHINES / "laptop-4060.toml")
    code, shown = _run_in_a_terminal(["check", "--machine", machine], {"LANG": "C", "LC_ALL": ""})
    assert code == 1
    assert "[ok]" in shown and "[x]" in shown
    assert not any(ch in shown for ch in "✓⚠✗—•")
    piped = run_cli("check", "--machine", machine, env={"LANG": "C", "LC_ALL": ""})
    assert "—" in piped.stdout  # redirected to a file: the text as written, not asciified


@pytest.mark.parametrize(("machine", "loaded"), [("rtx4090-cu128-healthy.toml", False), ("vm-no-gpu.toml", False),
                                                  ("amd-rx6700xt-rocm-gfx1031.toml", True),
                                                  ("intel-arc-a770-cpu-torch.toml", True)])
def test_check_reads_the_amd_and_intel_tables_only_for_such_a_gpu(machine, loaded, tmp_path):
    """Most machines have neither; loading the tables costs `check --no-torch` ~5 ms for
    nothing. (Without torch: its diagnosis reads them for any GPU.)"""
    import subprocess
    import tomllib

    import tomli_w

    with (MACHINES / machine).open("rb") as fh:
        data = tomllib.load(fh)
    data["machine"].pop("torch", None)
    file = tmp_path / machine
    file.write_text(tomli_w.dumps(data), encoding="utf-8")
    code = ("import sys\nfrom wizard.cli import main\nstatus = main(['check', '--json', '--machine', sys.argv[1]])\n"
            "print(status, 'wizard.pytorch.vendor_gpus' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, str(file)], capture_output=True, text=True, timeout=60)
    status, seen = done.stderr.strip().splitlines()[-1].split()
    assert status in ("0", "1") and seen == str(loaded), done.stderr
    findings = {f["id"] for f in json.loads(done.stdout)["findings"]}
    assert any(f.startswith(("amd-", "intel-")) for f in findings) == loaded


# --- issue 26: what collect_env reports, and a block to paste into a GitHub issue ------------

def test_markdown_is_one_block_with_collect_envs_facts_and_the_findings():
    result = run_cli("check", "--markdown", "--machine", str(MACHINES / "ld-library-path-cuda121.toml"))
    assert result.returncode == 1, result.stderr
    text = result.stdout
    assert text.startswith("<details><summary>gpu-wizard ") and text.rstrip().endswith("</details>")
    assert text.count("```") == 2
    for fact in ("OS: Ubuntu 22.04.5 LTS", "C library: glibc 2.35", "GPU 0: NVIDIA GeForce RTX 4070",
                 "PyTorch: 2.5.1 (cuda 12.4), import-error", "undefined symbol: __nvJitLinkAddData_12_1",
                 "Library variables: LD_LIBRARY_PATH set (LD_LIBRARY_PATH holds CUDA libraries)",
                 "[pip3] nvidia-cusparse-cu12==12.3.1.170", "[pip3] torch==2.5.1",
                 "✗ torch-library-path-shadow: LD_LIBRARY_PATH makes PyTorch load another CUDA's libraries"):
        assert fact in text, fact


def test_markdown_is_in_english_whatever_the_language():
    zh = run_cli("check", "--markdown", "--lang", "zh", "--machine", str(MACHINES / "a100-mig-no-slice-selected.toml"))
    assert "torch-mig-not-selected: NVIDIA A100-SXM4-80GB is split into MIG instances" in zh.stdout
    assert "MIG on, 4 instances" in zh.stdout
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in zh.stdout)


def test_markdown_on_this_machine_names_library_variables_but_never_their_values(tmp_path):
    secret = tmp_path / "student-ana" / "cuda-11.8" / "lib64"
    secret.mkdir(parents=True)
    (secret / "libcudart.so.11.0").write_bytes(b"")
    env = {"LD_LIBRARY_PATH": str(secret), "CUDA_HOME": str(secret.parent)}
    for args in (("--markdown",), ("--json",), ()):
        result = run_cli("check", *args, "--no-gpu-test", "--no-discover", env=env, timeout=120)
        assert result.returncode in (0, 1), result.stderr
        assert "student-ana" not in result.stdout and "cuda-11.8" not in result.stdout
        assert "LD_LIBRARY_PATH" in result.stdout and "CUDA_HOME" in result.stdout


def test_json_carries_the_new_facts_beside_the_old_keys():
    data = json.loads(run_cli("check", "--json", "--machine", str(MACHINES / "ld-library-path-cuda121.toml")).stdout)
    torch = data["machine"]["torch"]
    assert torch["env_vars"] == ["LD_LIBRARY_PATH"] and torch["ld_library_path_cuda"] is True
    assert torch["glibc_version"] == "2.35" and "torch==2.5.1" in torch["packages"]
    assert {"status", "version", "build", "error_line"} <= set(torch)


def test_text_shows_cudnn_packages_and_variables_by_name():
    text = run_cli("check", "--machine", str(MACHINES / "ld-library-path-cuda121.toml")).stdout
    assert "Set in its environment: LD_LIBRARY_PATH" in text and "Packages: " in text
    zh = run_cli("check", "--lang", "zh", "--machine", str(MACHINES / "ld-library-path-cuda121.toml")).stdout
    assert "它的环境里设置了：LD_LIBRARY_PATH" in zh
