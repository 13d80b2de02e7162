"""Shared reports keep no folders (issue 23, item 4): every table is redacted by the one scrubber
that knows the interpreter paths; the current folder and every other folder of the user go,
and so do numeric logins and the user's names inside folder names. What is no folder of
anyone's (URLs, versions, system paths, fractions, relative paths) stays as it was."""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from typing import Any

import pytest

from tests.recorded import MACHINE_NAMES, machine
from wizard.advise import advise
from wizard.answers import Answers
from wizard.diagnosis.diagnose import diagnose
from wizard.diagnosis.findings import Finding
from wizard.knowledge.load import load_knowledge
from wizard.machine.live import from_machine
from wizard.probe.facts import NotRunPython, OtherPython
from wizard.pytorch.choose import TorchChoice
from wizard.pytorch.installer import Plan, record
from wizard.pytorch.probe import SHADOW_MARK
from wizard.report import redaction
from wizard.report.building import build_report
from wizard.report.redaction import redact_report
from wizard.report.saving import dumps_report
from wizard.report.validate import validate_report
from wizard.state import WizardState

ANSWERS = Answers("yes", "yes", "laptop", 5000, "CNY", "learning")
# The student of the issue: login 20231234, GECOS "Ana Lopez", working in their course folder.
LOGIN = "20231234"
FULL_NAME = "Ana Lopez,Room 4,,"
CWD = "/data/20231234/cs231n-ana-lopez"
VENV_PYTHON = f"{CWD}/.venv/bin/python"
INSTALL_COMMAND = (f"{VENV_PYTHON} -m pip install torch==2.14.1 "
                   "--index-url https://download.pytorch.org/whl/cu126")
IDENTITY: dict[str, Any] = {"identifiers": [LOGIN], "folders": [CWD], "full_name": FULL_NAME}


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def student_machine(name: str = "laptop-4060"):
    """A recorded machine whose PyTorch is in the course folder's .venv, as a live probe sees it."""
    m = machine(name)
    torch = dataclasses.replace(m.torch, interpreter=VENV_PYTHON, interpreter_source="project-venv")
    return dataclasses.replace(m, torch=torch)


def redacted_text(text: str, **identity: Any) -> str:
    """One free text (a probe's detail) through the report's redaction."""
    identity = {**IDENTITY, **identity}
    out = redact_report({"machine": {"probes": [{"name": "x", "status": "ok", "detail": text}]}}, **identity)
    return out["machine"]["probes"][0]["detail"]


def strings(obj: Any):
    if isinstance(obj, dict):
        for value in obj.values():
            yield from strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from strings(value)
    elif isinstance(obj, str):
        yield obj


# ------------------------------------------------------- [install] and the other tables ---

def test_the_wizards_install_table_names_the_interpreter_by_name(monkeypatch):
    # The wizard redacts with this user's identity: make it the student's.
    monkeypatch.setattr(redaction, "local_identifiers", lambda: [LOGIN])
    monkeypatch.setattr(redaction, "current_folders", lambda: [])
    monkeypatch.setattr(redaction, "local_full_name", lambda: FULL_NAME)
    state = WizardState("en", from_machine(student_machine()))
    # What "Install it for me" records: the command names the interpreter, no key holds it alone.
    choice = TorchChoice(INSTALL_COMMAND, "https://download.pytorch.org/whl/cu126", "cu126", "2.14.1", "fits")
    plan = Plan(VENV_PYTHON, "project-venv", None, choice, tuple(INSTALL_COMMAND.split()), (), None, "pip")
    state.install_record = record(plan, 0, "gpu-ok")
    report = state.build_report()
    install = report["install"]
    assert install["command"] == "python -m pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126"
    assert install["interpreter_source"] == "project-venv" and install["verified"] is True
    assert report["machine"]["torch"]["interpreter"] == "python"
    text = dumps_report(report)
    assert "/data" not in text and LOGIN not in text and "lopez" not in text.lower()


def test_build_report_redacts_the_tables_it_is_given(knowledge):
    m = student_machine()
    findings = diagnose(m, "en")
    report = build_report(ANSWERS, m, findings, advise(ANSWERS, m, knowledge, "en", findings), "en",
                          tables={"install": {"command": INSTALL_COMMAND, "python": VENV_PYTHON},
                                  "replay": {"of_report": True, "recorded": "2026-11-30 12:00 UTC"},
                                  "later": {"note": f"made in {CWD}/hw1"}},
                          **IDENTITY)
    assert list(report)[-3:] == ["install", "replay", "later"]
    assert report["install"] == {"command": "python -m pip install torch==2.14.1 --index-url "
                                            "https://download.pytorch.org/whl/cu126", "python": "python"}
    assert report["replay"] == {"of_report": True, "recorded": "2026-11-30 12:00 UTC"}
    assert report["later"] == {"note": "made in <folder>/hw1"}
    assert validate_report(report, knowledge) == []
    plain = build_report(ANSWERS, m, findings, advise(ANSWERS, m, knowledge, "en", findings), "en",
                         redact=False, tables={"install": {"command": INSTALL_COMMAND}}, **IDENTITY)
    assert plain["install"]["command"] == INSTALL_COMMAND and plain["redacted"] is False


def test_every_interpreter_the_probe_names_is_kept_by_name():
    torch = {"interpreter": VENV_PYTHON, "status": "ok",
             "other_pythons": [{"interpreter": "/srv/lab/ana/env/bin/python3.11", "source": "path"}],
             "not_run": [{"interpreter": "/scratch/20231234/conda/envs/dl/bin/python", "source": "conda-env",
                          "reason": "ask-first", "torch_version": "2.8.0"}],
             "asked": ["/work/alopez/tools/venv/bin/python3"],
             "message": ("ran /work/alopez/tools/venv/bin/python3 and /srv/lab/ana/env/bin/python3.11; "
                         "not /scratch/20231234/conda/envs/dl/bin/python (its torch in "
                         "/scratch/20231234/conda/envs/dl/lib/python3.12/site-packages/torch)")}
    out = redact_report({"machine": {"torch": torch}}, identifiers=[], folders=[], full_name="")
    torch = out["machine"]["torch"]
    assert torch["asked"] == ["python3"]
    assert torch["not_run"][0]["interpreter"] == "python"
    assert torch["other_pythons"][0]["interpreter"] == "python3.11"
    assert torch["message"] == ("ran python3 and python3.11; not python (its torch in "
                                "<env>/lib/python3.12/site-packages/torch)")


# ----------------------------------------------------------------- the current folder ---

def test_the_current_folder_goes_from_every_table(knowledge):
    m = student_machine()
    # A torch.py in the course folder hides PyTorch: the probe's line and the report's sentence name it.
    m = dataclasses.replace(m, torch=dataclasses.replace(m.torch, status="import-error",
                                                         error_line=f"torch{SHADOW_MARK}{CWD}/torch.py"))
    findings = [Finding("torch-shadowed", "error", "A file hides PyTorch",
                        f"import torch loads {CWD}/torch.py", f"rename {CWD}/torch.py")]
    rec = dataclasses.replace(advise(ANSWERS, m, knowledge, "en", findings),
                              torch_command=f"cd {CWD} && {INSTALL_COMMAND}")
    report = build_report(ANSWERS, m, findings, rec, "en",
                          tables={"install": {"command": f"(in {CWD}) {INSTALL_COMMAND}"}}, **IDENTITY)
    assert report["machine"]["torch"]["error_line"] == f"torch{SHADOW_MARK}<folder>/torch.py"
    assert report["machine"]["torch"]["message"] == \
        "In this folder, `import torch` loads <folder>/torch.py, which is not PyTorch."
    assert report["findings"][0]["detail"] == "import torch loads <folder>/torch.py"
    assert report["findings"][0]["fix"] == "rename <folder>/torch.py"
    assert report["recommendation"]["torch_command"] == (
        "cd <folder> && python -m pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126")
    assert report["install"]["command"].startswith("(in <folder>) python -m pip install")
    assert CWD not in dumps_report(report)


@pytest.mark.parametrize("text, expected", [
    (f"{CWD}/torch.py", "<folder>/torch.py"),
    (f"{CWD}/hw1/train.py:12: warning", "<folder>/hw1/train.py:12: warning"),
    (f"cd {CWD}.", "cd <folder>."),
    (f"'{CWD}/data set/x.npy'", "'<folder>/data set/x.npy'"),
    # Another folder that merely starts the same is not the current one (the general rule takes it).
    (f"{CWD}-old/torch.py", "<folder>/torch.py"),
])
def test_the_current_folder_becomes_a_placeholder(text, expected):
    assert redacted_text(text) == expected


def test_a_windows_current_folder_goes_whatever_its_case_and_separators():
    folders = [r"D:\Courses\ana-lopez"]
    assert redacted_text(r"d:\courses\Ana-Lopez\hw1\x.py", folders=folders) == r"<folder>\hw1\x.py"
    assert redacted_text("D:/Courses/ana-lopez/hw1", folders=folders) == "<folder>/hw1"


def test_home_the_root_and_system_folders_are_never_the_current_folder():
    home = os.path.expanduser("~")
    for folders in (["/"], [home], [os.path.dirname(home)], ["/usr/src/app"], ["/workspace"]):
        assert redacted_text("/usr/bin/python3 and /usr/src/app/x.py", folders=folders) \
            == "/usr/bin/python3 and /usr/src/app/x.py", folders
    assert redacted_text(f"{home}/proj/x.py", folders=[home]) == "~/proj/x.py"
    # Right under the root: the general rule keeps the last name.
    assert redacted_text("/workspace/hw1/x.py", folders=["/workspace"]) == "<folder>/x.py"


def test_current_folders_as_given_and_resolved(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(link)
    monkeypatch.setenv("PWD", str(link))
    assert sorted(redaction.current_folders()) == sorted({str(link), os.getcwd(), os.path.realpath(real)})
    monkeypatch.setenv("PWD", str(tmp_path))  # a stale PWD names another folder
    assert str(tmp_path) not in redaction.current_folders()


def test_a_deleted_current_folder_is_no_error(monkeypatch):
    def gone() -> str:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", gone)
    assert redaction.current_folders() == []
    out = redact_report({"machine": {"probes": [{"detail": "/data/x/y"}]}}, identifiers=[], full_name="")
    assert out["machine"]["probes"][0]["detail"] == "<folder>/y"


# ------------------------------------------------------------------- other folders ---

@pytest.mark.parametrize("text, expected", [
    ("/data/20231234/cs231n-ana-lopez/torch.py", "<folder>/torch.py"),
    ("/scratch/ana/proj/run.py failed", "<folder>/run.py failed"),
    ("in (/srv/lab/alopez/notes.txt)", "in (<folder>/notes.txt)"),
    ("PYTHONPATH=/srv/lab/x:/scratch/ana/lib", "PYTHONPATH=<folder>/x:<folder>/lib"),
    ("file:///data/ana/report.html", "file://<folder>/report.html"),
    ("/data/ana/", "<folder>/ana/"),
    ("（/data/bob/x.py）：无法读取", "（<folder>/x.py）：无法读取"),
    (r"D:\courses\ana-lopez\hw1", r"<folder>\hw1"),
    (r"E:\My Courses\Deep Learning\hw1\train.py", r"<folder>\train.py"),
    (r"C:\\courses\\ana\\x.py", r"<folder>\\x.py"),
    (r"\\fileserver\students\ana\hw1.ipynb", r"<folder>\hw1.ipynb"),
    (r"C:\Users\ana\Documents\cs231n\hw2.ipynb", r"~\Documents\cs231n\hw2.ipynb"),
    ("/Volumes/ANA USB/cs231n/x.py", "<folder>/x.py"),
])
def test_a_folder_of_the_user_keeps_only_its_last_name(text, expected):
    assert redacted_text(text, identifiers=[], folders=[], full_name="") == expected


@pytest.mark.parametrize("text", [
    "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126",
    "see http://www.nvidia.com/Download/index.aspx and https://mirror.sjtu.edu.cn/pytorch-wheels/cu130",
    "torch 2.13.0+cu126, CUDA 12.8, driver 550.54.14, sm_86, compute 8.6, PCI 10de:2684",
    "8/16 threads, 1/2 of the memory, CPU/GPU, and/or, 24 GB / 32 GB",
    "run ./train.py or ../hw1/run.py or data/hw1/x.npy or .venv/bin/python",
    "/usr/bin/python3 /usr/local/cuda/lib64/libcudart.so /opt/conda/bin/python /opt/homebrew/bin/python3",
    "/dev/nvidia0 /proc/driver/nvidia/version /sys/bus/pci/devices /etc/os-release /usr/lib/wsl/lib",
    "/var/lib/dkms/nvidia /run/nvidia-persistenced /nix/store/abc-python3/bin/python /snap/bin/x",
    "/Library/Frameworks/Python.framework/Versions/3.12/bin/python3 /System/Library/x /Applications/X.app",
    r"C:\Windows\System32\nvcuda.dll C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe",
    r"C:\Program Files (x86)\x\y.dll C:\ProgramData\Anaconda3\python.exe C:\Python312\python.exe",
    "/mnt/c/Windows/System32/lxss/lib/libcuda.so and /tmp and ~/proj/x.py and <env>/lib/x",
    "(Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.) …/whl/rocm7.2",
])
def test_what_is_no_folder_of_the_user_stays(text):
    assert redacted_text(text) == text


# ------------------------------------------------------------- names and numeric logins ---

@pytest.mark.parametrize("text, expected", [
    ("login 20231234: permission denied", "login <redacted>: permission denied"),
    ("~/20231234/hw1 and hw_20231234.py", "~/<redacted>/hw1 and hw_<redacted>.py"),
    ("~/cs231n-ana-lopez/hw1", "~/cs231n-<redacted>-<redacted>/hw1"),
    ("conda env cs231n-ana-lopez", "conda env cs231n-<redacted>-<redacted>"),
    ("data/Lopez_Ana.hw1/x", "data/<redacted>_<redacted>.hw1/x"),
    # Not the login: inside a longer number, or a piece of a version.
    ("120231234 and 202312345 bytes", "120231234 and 202312345 bytes"),
    ("torch 1.20231234 and 20231234.5", "torch 1.20231234 and 20231234.5"),
])
def test_a_numeric_login_and_the_users_name_in_folder_names(text, expected):
    assert redacted_text(text) == expected


def test_the_login_in_folder_names_and_words():
    identity = {"identifiers": ["alopez"], "folders": [], "full_name": ""}
    assert redacted_text("~/alopez_hw1/x.py", **identity) == "~/<redacted>_hw1/x.py"
    assert redacted_text("alopez_hw1 and alopez's env, not alopezx", **identity) \
        == "<redacted>_hw1 and <redacted>'s env, not alopezx"


def test_the_full_name_is_scrubbed_in_folder_names_but_not_in_prose():
    identity = {"identifiers": [], "folders": [], "full_name": "Will Turner"}
    assert redacted_text("this will install torch; Turner was here", **identity) \
        == "this will install torch; Turner was here"
    assert redacted_text("~/will-turner/hw1 and turner_lab.py", **identity) \
        == "~/<redacted>-<redacted>/hw1 and <redacted>_lab.py"


def test_spared_words_stay_spared_in_folder_names():
    # A user called "Cuda Nvidia" or "Rtx": words of the hardware and generic names are no names.
    identity = {"identifiers": ["nvidia"], "folders": [], "full_name": "Cuda Nvidia"}
    assert redacted_text("~/nvidia-cuda/x and libnvidia-ml", **identity) == "~/nvidia-cuda/x and libnvidia-ml"


def test_short_numbers_are_no_logins():
    assert redacted_text("123 MiB in /dev/nvidia0", identifiers=["123"]) == "123 MiB in /dev/nvidia0"


def test_a_numeric_login_stays_in_versions_and_numbers():
    report = {"machine": {"ram_gb": 20231234, "torch": {"status": "ok", "version": "2.1.0+20231234"}},
              "install": {"torch_version": "20231234", "exit_status": 20231234, "note": "20231234"}}
    out = redact_report(report, **IDENTITY)
    assert out["machine"]["ram_gb"] == 20231234 and out["machine"]["torch"]["version"] == "2.1.0+20231234"
    assert out["install"] == {"torch_version": "20231234", "exit_status": 20231234, "note": "<redacted>"}


def test_this_users_identity_is_the_default(monkeypatch):
    monkeypatch.setattr(redaction, "local_identifiers", lambda: [LOGIN])
    monkeypatch.setattr(redaction, "current_folders", lambda: [CWD])
    monkeypatch.setattr(redaction, "local_full_name", lambda: FULL_NAME)
    out = redact_report({"machine": {"probes": [{"detail": f"~/20231234/cs231n-ana-lopez/x and cd {CWD}"}]}})
    assert out["machine"]["probes"][0]["detail"] == "~/<redacted>/cs231n-<redacted>-<redacted>/x and cd <folder>"


def test_gecos_and_its_words(monkeypatch):
    assert redaction.name_words("Ana María de la Lopez,Room 4,555-1234,") == ["Ana", "María", "Lopez"]
    assert redaction.name_words("") == []
    import pwd

    def no_entry(uid: int):
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    assert redaction.local_full_name() == ""


# ----------------------------------------------------------- the whole of a report ---

PLANTED = (
    CWD,
    f"{CWD}/hw1/torch.py",
    f"{VENV_PYTHON} -m pip install torch",
    "/scratch/20231234/ana-lopez-proj/run.py",
    "/data/20231234/cs231n-ana-lopez/",
    r"D:\dl-courses\ana-lopez\hw1",
    r"C:\Users\alopez\Documents\cs231n-ana-lopez\hw2.ipynb",
    "/home/alopez/cs231n-ana-lopez/x.py",
    "file:///data/20231234/ana/report.html",
    "(/srv/lab/20231234/Lopez_Ana/x.npy)",
    r"\\fileserver\cs-share\20231234\hw1.ipynb",
)
# What must not be left of them: the folders, the login, the name.
LEFT = re.compile(r"(?i)/data|/scratch|/srv|dl-courses|fileserver|cs-share|alopez|20231234"
                  r"|(?<![^\W_])(?:ana|lopez)(?![^\W_])")


def planted(obj: Any, count: list[int]) -> Any:
    """`obj` with a hostile path added to every string, keys aside (a different one each time)."""
    if isinstance(obj, dict):
        return {k: planted(v, count) for k, v in obj.items()}
    if isinstance(obj, list):
        return [planted(v, count) for v in obj]
    if isinstance(obj, str):
        count[0] += 1
        return f"{obj} {PLANTED[count[0] % len(PLANTED)]}"
    return obj


@pytest.mark.parametrize("name", MACHINE_NAMES)
def test_no_folder_of_the_user_survives_anywhere_in_a_report(knowledge, name):
    m = student_machine(name) if machine(name).torch else machine(name)
    if m.torch is not None:
        m = dataclasses.replace(m, torch=dataclasses.replace(
            m.torch, other_pythons=(OtherPython("/srv/lab/20231234/env/bin/python", "path", "2.8.0"),),
            not_run=(NotRunPython("/data/20231234/cs231n-ana-lopez/other/bin/python", "project-venv",
                                  "ask-first"),),
            asked=("/scratch/20231234/ana/bin/python3",)))
    findings = diagnose(m, "en")
    plain = build_report(ANSWERS, m, findings, advise(ANSWERS, m, knowledge, "en", findings), "en",
                         redact=False, tables={"install": {"command": INSTALL_COMMAND, "python": VENV_PYTHON},
                                               "replay": {"of_report": True, "recorded": "2026-11-30"}})
    count = [0]
    hostile = planted(plain, count)
    assert count[0] > 20
    identity = {"identifiers": [LOGIN, "alopez"], "folders": [CWD], "full_name": FULL_NAME}
    out = redact_report(hostile, **identity)
    left = [s for s in strings(out) if LEFT.search(s)]
    assert left == []
    # Without the planted paths, the same redaction leaves a report that validates.
    out = redact_report(plain, **identity)
    assert validate_report(out, knowledge) == []
    assert validate_report(tomllib.loads(dumps_report(out)), knowledge) == []
