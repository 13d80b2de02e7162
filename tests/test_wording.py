"""One term per concept, no notes to ourselves in what users read, and Chinese frames around
what the probes quote.

* Every page and every string value (comments are not user text) keeps the canonical terms:
  zh 计算能力 for compute capability (never 算力版本/算力等级/CC 版本), "为你的显卡编译" for
  GPU kernels (内核 only for the operating system's kernel: 内核模块, 内核驱动, Linux 内核 …);
  en "compute capability" (never "CC" or "SM version").
* No user text, and no sentence the program shows, says "not verified", names our own files
  (shared/, reference/) or carries a TODO.
* `gpu-wizard check --lang zh` on every recorded machine: each evidence line (why the wizard
  calls it a laptop, a container …), each finding and each line about how a probe ended has a
  Chinese frame; only what the probes read is quoted as it was.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.recorded import MACHINE_FILES, machine_path
from wizard.knowledge.content import content_dir
from wizard.text.i18n import strings, t

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.stem for p in (content_dir() / "en").glob("*.md"))
CJK = re.compile(r"[\u4e00-\u9fff]")

# Variants that must not come back, per language.
BANNED = {
    "zh": re.compile(r"算力版本|算力等级|CC ?版本|SM ?版本|计算能力版本|编译内核|的内核|内核了|显卡内核|"
                     r"带有.{0,12}内核|包含.{0,12}内核"),
    "en": re.compile(r"\bCCs?\b|\bSM version|\bsm version|\biGPU\b"),
}
# 内核 is the operating system's kernel, and only where it reads so.
KERNEL_OK = re.compile(r"内核模块|内核驱动|内核版本|内核里|当前内核|新内核|Linux 内核")
INTERNAL = re.compile(r"shared/|reference/|\bnot verified\b|\bunverified\b|we have no checked|\bTODO\b|"
                      r"\bFIXME\b|未经核实|未核实|待核实")


def _user_texts(lang: str):
    """(where, text) for every page and every string value of `lang`."""
    for name in PAGES:
        yield f"{lang}/{name}.md", (content_dir() / lang / f"{name}.md").read_text(encoding="utf-8")
    for key, value in strings(lang).items():
        yield f"{lang} string {key}", value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_term_per_concept(lang):
    found = [(where, match.group(0)) for where, text in _user_texts(lang)
             for match in [BANNED[lang].search(text)] if match]
    assert not found, found[:5]


def test_chinese_kernel_means_the_operating_systems_kernel():
    found = []
    for where, text in _user_texts("zh"):
        for match in re.finditer("内核", text):
            window = text[max(0, match.start() - 6):match.end() + 3]
            if not KERNEL_OK.search(window):
                found.append((where, window))
    assert not found, found[:5]


def test_compute_capability_is_named_the_same_in_both_languages():
    assert "计算能力" in t("ui.check.gpu_cc", "zh", cc="8.6") and "计算能力" in t("check.cc", "zh", cc="8.6")
    assert t("ui.check.gpu_cc", "en", cc="8.6") == t("check.cc", "en", cc="8.6") == "compute capability 8.6"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_user_text_carries_internal_notes(lang):
    found = [where for where, text in _user_texts(lang) if INTERNAL.search(text)]
    assert not found, found[:5]


def _program_sentences():
    """String constants the program may show (docstrings left out), outside the data-file
    validator, whose messages are written for whoever edits content/*.toml."""
    for path in sorted([*(ROOT / "wizard").rglob("*.py"), *(ROOT / "screens").rglob("*.py")]):
        if path.relative_to(ROOT).as_posix() in ("wizard/knowledge/load.py", "wizard/knowledge/entries.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node.value


def test_no_sentence_in_the_program_carries_internal_notes():
    found = [where for where, text in _program_sentences() if INTERNAL.search(text)]
    assert not found, found[:5]


# --- evidence lines in Chinese --------------------------------------------------------------

def _chinese(text: str) -> bool:
    return bool(CJK.search(text))


def _machine(path: Path, lang: str):
    from wizard.machine.recorded import load_machine

    return load_machine(str(path), lang)


@pytest.mark.parametrize("path", MACHINE_FILES, ids=lambda p: p.stem)
def test_every_evidence_line_of_a_recorded_machine_has_a_chinese_frame(path):
    from wizard.commands.check import render_text
    from wizard.diagnosis.diagnose import diagnose

    machine = _machine(path, "zh")
    findings = diagnose(machine, "zh")
    text = render_text(machine, findings, "zh", recorded=path.name)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  电脑类型"))
    evidence = [line for line in lines[start + 1:] if line.startswith("      - ")]
    assert len(evidence) == len(machine.chassis_evidence[:3])
    assert all(_chinese(line) for line in evidence), evidence
    for finding in findings:
        assert _chinese(finding.title) and _chinese(finding.detail), finding
        assert not finding.fix or _chinese(finding.fix) or finding.fix.lstrip().startswith(
            ("pip ", "python", "uv ")), finding
    trouble = [line for line in lines if re.match(r"  - \S+：", line)]
    assert all(_chinese(line) for line in trouble), trouble
    assert "Apple GPU (MPS)" not in text and "Intel GPU (XPU)" not in text


def _probe_evidence(tmp_path: Path) -> list[str]:
    """Every evidence line the chassis probes write, from the probes themselves."""
    from wizard.probe.chassis import detect_linux
    from wizard.probe.macos import chassis_from_facts
    from wizard.probe.windows import parse_chassis_types

    trees = [
        {"proc/sys/kernel/osrelease": "5.15.146.1-microsoft-standard-WSL2\n"},
        {"run/.containerenv": "", "run/systemd/container": "podman\n", "proc/1/environ": "container=podman\0",
         "proc/self/cgroup": "0::/system.slice/docker-3f2a.scope\n", ".dockerenv": "",
         "proc/self/mountinfo": "500 400 0:52 / / rw - overlay overlay rw\n"},
        {"proc/cpuinfo": "flags\t\t: fpu hypervisor\n", "sys/hypervisor/type": "xen\n",
         "sys/class/dmi/id/sys_vendor": "QEMU\n"},
        {"sys/class/dmi/id/chassis_type": "10\n"},
        {"sys/class/power_supply/BAT0/type": "Battery\n"},
        {"sys/firmware/acpi/pm_profile": "2\n"},
        {},
    ]
    lines: list[str] = []
    for number, files in enumerate(trees):
        root = tmp_path / str(number)
        root.mkdir()
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        lines += detect_linux(root)[1]
    lines += parse_chassis_types([3, 10])[1]
    for facts in (("Mac14,2", "MacBook Air", None, False), ("Mac14,3", None, True, False),
                  ("Mac14,3", None, False, False), ("VMware7,1", None, None, True),
                  ("MacBookPro17,1", None, None, False)):
        lines += chassis_from_facts(*facts)[1]
    return lines


def test_every_evidence_line_the_probes_write_is_told_in_chinese(tmp_path):
    from wizard.text.evidence import chassis_evidence_text

    lines = _probe_evidence(tmp_path)
    assert len(lines) >= 20, lines
    untold = [line for line in lines if not _chinese(chassis_evidence_text(line, "zh"))]
    assert not untold
    from wizard.text.evidence import CHASSIS_PATTERNS, PLAIN_KEYS

    plain = [p for k, p in CHASSIS_PATTERNS if k in PLAIN_KEYS]
    for line in lines:
        shown = chassis_evidence_text(line, "en")
        if any(p.fullmatch(line) for p in plain):
            # Firmware table names are explained, not shown (issue 12: no "DMI", no "ChassisTypes").
            assert "DMI" not in shown and "ChassisTypes" not in shown and "SMBIOS" not in shown, shown
        else:
            assert shown == line


def test_the_english_templates_are_the_lines_the_patterns_read():
    """en strings are the probes' own wording: a template and its pattern cannot drift apart."""
    from wizard.text.evidence import CHASSIS_PATTERNS, RUN_PATTERNS

    for area, patterns in (("chassis", CHASSIS_PATTERNS), ("run", RUN_PATTERNS)):
        for key, pattern in patterns:
            sample = {name: "12" if name in ("code", "seconds") else f"x{name}" for name in pattern.groupindex}
            if key.endswith(("violation", "instruction", "overrun", "corruption")):
                sample["code"] = "0xC0000005"
            line = t(f"evidence.{area}.{key}", "en", **sample)
            match = next((k for k, p in patterns if p.fullmatch(line)), None)
            assert match == key, (area, key, line)
            assert _chinese(t(f"evidence.{area}.{key}", "zh", **sample)), key


@pytest.mark.parametrize("line, shown", [
    ("no answer within 25 s", "25 秒内没有回应"),
    ("did not finish within 6 s", "6 秒内没有结束"),
    ("the process was killed by SIGKILL while testing this device", "测试这块 GPU 时进程被 SIGKILL 终止"),
    ("exit status 3", "退出码 3"),
    ("access violation (0xC0000005)", "访问冲突（0xC0000005）"),
    ("CUDA error: no kernel image is available for execution on the device",
     "CUDA error: no kernel image is available for execution on the device"),
])
def test_how_a_run_ended_is_told_in_chinese_and_what_a_program_said_is_quoted(line, shown):
    from wizard.text.evidence import run_text

    assert run_text(line, "zh") == shown
    assert run_text(line, "en") == line


def test_a_timed_out_torch_and_gpu_test_read_in_chinese():
    import dataclasses

    from wizard.probe.facts import GpuTest, TorchInfo
    from wizard.pytorch.causes import torch_findings
    from wizard.pytorch.wording import torch_message

    hung = TorchInfo(status="timeout", error_line="no answer within 25 s")
    machine = dataclasses.replace(_machine(machine_path("vm-no-gpu"), "zh"), torch=hung)
    assert "25 秒内没有回应" in torch_findings(machine, "zh")[0].detail
    assert "25 秒" in torch_message(hung, "zh")  # a recorded timeout keeps its seconds in the line
    stuck = TorchInfo(status="ok", version="2.8.0", build="cuda", cuda_available=True,
                      gpu_tests=(GpuTest("cuda:0", "timeout", error_line="did not finish within 6 s"),))
    assert "没有结束" in torch_message(stuck, "zh") and "did not" not in torch_message(stuck, "zh")


def test_sizes_in_gb_have_one_decimal_or_none():
    from wizard.text.output import gb_text

    assert [gb_text(v) for v in (3.94, 7.98, 10.92, 11.99, 140.4, 16.0, 0.5)] == \
        ["3.9", "8", "11", "12", "140", "16", "0.5"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nvml_error_class_names_are_not_shown(lang):
    from wizard.text.evidence import run_text

    shown = run_text("NVMLError_DriverNotLoaded: Driver Not Loaded", lang)
    assert "NVMLError" not in shown and "Driver Not Loaded" in shown


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", MACHINE_FILES, ids=lambda p: p.stem)
def test_no_question_mark_stands_for_a_value_nobody_knows(path, lang):
    """"driver ?" or "(?)" tells a beginner nothing: say "unknown" (issue 12, Words)."""
    from wizard.commands.check import render_text
    from wizard.diagnosis.diagnose import diagnose

    machine = _machine(path, lang)
    text = render_text(machine, diagnose(machine, lang), lang, recorded=path.name)
    placeholders = re.findall(r"(?:\s|\(|（)[?？](?:\s|\)|）|,|，|$)", text, flags=re.M)
    assert not placeholders, [line for line in text.splitlines() if re.search(r"(?:\s|\(|（)[?？]", line)]


def test_nothing_shipped_points_at_files_users_do_not_have():
    """Users get the repository, not the research folder beside it: no "shared/…" or CONTRACTS.md
    in content files (comments and `source` fields too), code or the READMEs; and no "not
    verified", which reads as our own unfinished work (a doubtful field is named in its entry's
    `unverified` list, which the program reads)."""
    root = Path(__file__).resolve().parent.parent
    files = [*root.glob("content/**/*.toml"), *root.glob("content/**/*.md"), *root.glob("wizard/**/*.py"),
             *root.glob("screens/**/*.py"), *root.glob("README*.md")]
    pattern = re.compile(r"shared/(data|reference|seed)|CONTRACTS\.md|domain-notes\.md|anchors\.md|vram\.toml"
                         r"|\bnot verified\b")
    hits = [f"{p.relative_to(root)}:{n}" for p in files
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not hits, hits
