"""The fault-injection suite: the real `gpu-wizard` against the faults real machines produce.

Each case runs the installed command in its own process (the wizard itself in a real terminal)
with one fault armed: every NVML error, a hanging or crashing NVML, a hanging, crashing or
erroring torch, unreadable or nonsensical sysfs files, a full disk, a file size limit and a
read-only folder at save time, signals during probing and in the middle of a save, damaged
content files, and report folders that are symlinks. harness.py holds the rules every case
must pass; the tally of what was tried and what survived is printed at the end of the run.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pynvml
import pytest

from tests.faults.harness import (
    EXIT_MARK,
    FAKE_NVML,
    FAKE_TORCH,
    ROOT,
    TALLY,
    Case,
    Outcome,
    TuiCase,
    base_env,
    child_env,
    command,
    common_problems,
    limit_file_size,
    run_case,
    snapshot,
    terminal_problems,
    tui_available,
    tui_shell,
    wizard_process,
)
from tests.recorded import machine_path
from tests.terminal import Terminal
from tests.test_replay import STUDENT_ANSWERS
from wizard.probe.gather import NVML_TIMEOUT
from wizard.pytorch.probe.job import DEFAULT_TIMEOUT as TORCH_TIMEOUT
from wizard.report.fields import VERDICTS
from wizard.text.i18n import t

pytestmark = pytest.mark.faults

NVIDIA_STATUSES = {"ok", "no-library", "no-driver", "no-device", "version-mismatch",
                   "no-permission", "timeout", "error"}
TORCH_STATUSES = {"ok", "not-installed", "import-error", "crashed", "timeout"}
LAPTOP = str(machine_path("laptop-4060"))


def write_answers(folder: Path) -> None:
    (folder / "answers.toml").write_text(STUDENT_ANSWERS, encoding="utf-8")


def run(case: Case, tmp_path: Path) -> Outcome:
    out = run_case(case, tmp_path / "work")
    assert out.survived, f"{case.id}: " + "; ".join(out.problems) + f"\nstderr: {out.stderr[-800:]}"
    return out


def check_json(out: Outcome) -> dict:
    return json.loads(out.stdout)


def valid_report(path: Path) -> list[str]:
    """The report exists, is whole, and `gpu-wizard report validate` accepts it."""
    import subprocess

    if not path.exists():
        return [f"no report at {path}"]
    done = subprocess.run(command() + ["report", "validate", str(path)], capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        return [f"report validate said {done.returncode}: {done.stdout[-300:]} {done.stderr[-300:]}"]
    return []


def report_says(name: str = "r.toml", **statuses: str):
    """The saved report is valid and records these probe statuses (nvidia=…, torch=…)."""
    def judge(out: Outcome) -> list[str]:
        report = out.workdir / name
        problems = valid_report(report)
        if problems:
            return problems
        machine = tomllib.loads(report.read_text(encoding="utf-8"))["machine"]
        return [f"{part} status {machine[part]['status']!r}, expected {want!r}"
                for part, want in statuses.items() if machine[part]["status"] != want]
    return judge


# ------------------------------------------------------------------------- NVML ---

NVML_ERRORS = sorted(name.removeprefix("NVMLError_") for name in dir(pynvml)
                     if name.startswith("NVMLError_"))
NVML_MODES = ([f"init:{name}" for name in NVML_ERRORS]
              + ["count:Unknown", "count:GpuIsLost", "device:GpuIsLost", "device:NoPermission",
                 "device:Unknown", "memory:NotSupported", "memory:FunctionNotFound",
                 "memory:GpuIsLost", "segv", "banner", "import-error", "ok"])


def test_every_nvml_error_is_named_as_a_fault():
    # nvidia-ml-py grows new error classes; every one of them must be a case above.
    assert len(NVML_ERRORS) >= 25
    assert {"LibraryNotFound", "DriverNotLoaded", "LibRmVersionMismatch", "NoPermission",
            "GpuIsLost", "Timeout", "Unknown"} <= set(NVML_ERRORS)


# What each fault must read as (CONTRACTS' nvidia.status); every other error is "error".
NVML_EXPECTED = {
    "init:LibraryNotFound": "no-library", "init:DriverNotLoaded": "no-driver",
    "init:LibRmVersionMismatch": "version-mismatch", "init:NoPermission": "no-permission",
    "init:Timeout": "timeout", "count:GpuIsLost": "error", "device:NoPermission": "no-permission",
    "ok": "ok", "banner": "ok", "memory:NotSupported": "ok", "memory:FunctionNotFound": "ok",
}


def expected_nvml_status(mode: str) -> str:
    return NVML_EXPECTED.get(mode, "error")


@pytest.mark.parametrize("mode", NVML_MODES)
def test_check_survives_nvml(mode, tmp_path):
    def judge(out: Outcome) -> list[str]:
        data = check_json(out)
        nvidia = data["machine"]["nvidia"]
        problems = []
        if nvidia["status"] != expected_nvml_status(mode):
            problems.append(f"status {nvidia['status']!r}, expected {expected_nvml_status(mode)!r}")
        message = nvidia.get("message", "")
        if nvidia["status"] != "ok" and not message.strip():
            problems.append("no explanation for a failed NVML")
        if expected_nvml_status(mode) not in ("ok", "error") and "NVMLError" in message:
            problems.append(f"a raw error instead of an explanation: {message[:120]}")
        if mode in ("ok", "banner") and "RTX 4060" not in json.dumps(data["machine"]["gpus"]):
            problems.append("the working GPU is missing")
        return problems

    run(Case(f"nvml-{mode}", ["check", "--json", "--no-torch"], expect=(0, 1),
             paths=(FAKE_NVML,), env={"FAKE_NVML": mode}, check=judge), tmp_path)


def test_a_hanging_nvml_is_abandoned_within_its_bound(tmp_path):
    def judge(out: Outcome) -> list[str]:
        nvidia = check_json(out)["machine"]["nvidia"]
        return [] if nvidia["status"] == "timeout" else [f"status {nvidia['status']}"]

    out = run(Case("nvml-hang", ["check", "--json", "--no-torch"], expect=(0, 1),
                   paths=(FAKE_NVML,), env={"FAKE_NVML": "hang"}, bound=NVML_TIMEOUT + 10,
                   check=judge), tmp_path)
    assert out.seconds < NVML_TIMEOUT + 5


# ------------------------------------------------------------------------ torch ---

TORCH_MODES = {"hang": "timeout", "segv": "crashed", "abort": "crashed", "exit": "crashed",
               "import-error": "import-error", "os-error": "import-error",
               "garbage": "import-error"}


@pytest.mark.parametrize("mode", sorted(TORCH_MODES))
def test_check_survives_a_broken_torch(mode, tmp_path):
    def judge(out: Outcome) -> list[str]:
        torch = check_json(out)["machine"]["torch"]
        problems = []
        if torch["status"] != TORCH_MODES[mode]:
            problems.append(f"torch status {torch['status']!r}, expected {TORCH_MODES[mode]!r}")
        if not torch.get("message", "").strip():
            problems.append("no explanation for the broken torch")
        return problems

    out = run(Case(f"torch-{mode}", ["check", "--json"], expect=(0, 1), paths=(FAKE_TORCH,),
                   env={"FAKE_TORCH": mode}, bound=TORCH_TIMEOUT + 15, check=judge), tmp_path)
    # A hang is cut at the probe's timeout; a crash is seen at once.
    assert out.seconds < (TORCH_TIMEOUT + 5 if mode == "hang" else 15), f"{out.seconds:.1f} s"


@pytest.mark.parametrize("mode", ["segv", "import-error", "exit"])
def test_headless_saves_a_report_beside_a_broken_torch(mode, tmp_path):
    run(Case(f"headless-torch-{mode}", ["--answers", "answers.toml", "--report", "r.toml"],
             paths=(FAKE_TORCH,), env={"FAKE_TORCH": mode}, setup=write_answers,
             check=report_says(torch=TORCH_MODES[mode])), tmp_path)


# ------------------------------------------------------------------------ sysfs ---

@pytest.mark.parametrize("fault", ["sysfs-eacces", "sysfs-eio", "sysfs-garbage"])
def test_check_survives_unreadable_sysfs(fault, tmp_path):
    def judge(out: Outcome) -> list[str]:
        machine = check_json(out)["machine"]
        problems = []
        if machine["chassis"] not in {"desktop", "laptop", "server", "vm", "container", "wsl", "unknown"}:
            problems.append(f"chassis {machine['chassis']!r}")
        text = json.dumps(machine, ensure_ascii=False)
        if any(ch in text for ch in ("\x1b", "\udcff", "\x00")):
            problems.append("raw bytes from sysfs reached the output")
        if fault != "sysfs-garbage":
            # The fault took effect, and the answer says "could not look", not "no GPU".
            pci = [n for n in machine.get("probes", []) if n["name"] == "pci"]
            if not pci or pci[0]["status"] != "error":
                problems.append(f"the PCI scan did not report the unreadable sysfs: {pci}")
            if machine["nvidia"].get("reason") not in (None, "gpus-unreadable") and \
                    machine["nvidia"]["status"] == "no-library":
                problems.append(f"reason {machine['nvidia'].get('reason')!r} claims to know")
        return problems

    run(Case(f"check-{fault}", ["check", "--json", "--no-torch"], expect=(0, 1),
             faults=(fault,), check=judge), tmp_path)


@pytest.mark.parametrize("fault", ["sysfs-eacces", "sysfs-garbage"])
def test_headless_survives_unreadable_sysfs(fault, tmp_path):
    run(Case(f"headless-{fault}", ["--answers", "answers.toml", "--report", "r.toml", "--lang", "zh"],
             faults=(fault,), setup=write_answers,
             check=lambda out: valid_report(out.workdir / "r.toml")), tmp_path)


# ----------------------------------------------------------------- saving a report ---

HEADLESS = ["--answers", "answers.toml", "--machine", LAPTOP]


def no_report(name: str = "r.toml"):
    def judge(out: Outcome) -> list[str]:
        found = [p.name for p in out.workdir.rglob(name)]
        return [f"a report was written: {found}"] if found else []
    return judge


def says(*words: str):
    def judge(out: Outcome) -> list[str]:
        missing = [w for w in words if w not in out.stderr + out.stdout]
        return [f"the message lacks {missing}: {out.stderr[-400:]}"] if missing else []
    return judge


def shows(text: str):
    """The terminal (a TUI case's stdout is the pane's history) showed `text`."""
    def judge(out: Outcome) -> list[str]:
        return [] if text in out.stdout else [f"the terminal never showed {text!r}"]
    return judge


def both(*judges):
    return lambda out: [p for judge in judges for p in judge(out)]


def test_a_full_disk_at_save_time(tmp_path):
    run(Case("save-disk-full", HEADLESS + ["--report", "r.toml"], expect=(2,),
             faults=("disk-full",), setup=write_answers,
             check=both(no_report(), says("full"))), tmp_path)


def test_a_file_size_limit_at_save_time(tmp_path):
    # A real kernel error (EFBIG): the report is bigger than the process may write.
    run(Case("save-file-too-large", HEADLESS + ["--report", "r.toml"], expect=(2,),
             setup=write_answers, limit_file_size=200,
             check=both(no_report(), says("r.toml"))), tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_child_under_a_file_size_limit_writes_no_bytecode_cache(tmp_path):
    # A module the child compiles: its cache would be larger than the cap.
    (tmp_path / "big_module.py").write_text("X = 1\n" + "# padding\n" * 300)
    work = tmp_path / "work"
    work.mkdir()
    env = child_env(Case("cap", [], limit_file_size=200), work)
    env["PYTHONPATH"] = str(tmp_path)
    subprocess.run([sys.executable, "-c", "import big_module"], env=env, check=True, timeout=60,
                   preexec_fn=limit_file_size(200))
    assert not list(tmp_path.glob("__pycache__/*.pyc"))


def test_a_read_only_folder_at_save_time(tmp_path):
    def setup(folder: Path) -> None:
        write_answers(folder)
        (folder / "locked").mkdir()

    work = tmp_path / "work"
    run(Case("save-read-only", HEADLESS + ["--report", "locked/r.toml"], expect=(2,),
             faults=("read-only",), env={"GPU_WIZARD_FAULT_DIR": str(work / "locked")},
             setup=setup, check=both(no_report(), says("locked", "--report"))), tmp_path)


def test_a_report_folder_that_is_a_symlink_to_elsewhere(tmp_path):
    elsewhere = tmp_path / "elsewhere"

    def setup(folder: Path) -> None:
        write_answers(folder)
        elsewhere.mkdir()
        (folder / "reports").symlink_to(elsewhere, target_is_directory=True)

    def judge(out: Outcome) -> list[str]:
        problems = valid_report(elsewhere / "r.toml")
        if list(elsewhere.glob(".*.tmp")):
            problems.append("a temp file was left in the symlink's target")
        return problems

    run(Case("save-symlinked-folder", HEADLESS + ["--report", "reports/r.toml"], setup=setup,
             check=judge), tmp_path)


def test_the_current_folder_reached_through_a_symlink(tmp_path):
    real = tmp_path / "real"

    def setup(folder: Path) -> None:
        real.mkdir()
        write_answers(real)
        (folder / "link").symlink_to(real, target_is_directory=True)

    def judge(out: Outcome) -> list[str]:
        saved = list(real.glob("gpu-report-*.toml"))
        return valid_report(saved[0]) if len(saved) == 1 else [f"saved: {saved}"]

    case = Case("save-cwd-symlink", ["--answers", "answers.toml", "--machine", LAPTOP],
                setup=setup, check=judge)
    out = run_case_in(case, tmp_path, sub="link")
    assert out.survived, out.problems


def run_case_in(case: Case, tmp_path: Path, sub: str) -> Outcome:
    """run_case with the command started in a sub-folder of the work folder."""
    import subprocess
    import time

    work = tmp_path / "work"
    work.mkdir(parents=True)
    case.setup(work)
    env = base_env(work, case.id, case.paths, case.faults, case.env)
    before = snapshot(work)
    start = time.monotonic()
    done = subprocess.run(command() + case.argv, cwd=work / sub, env=env, capture_output=True,
                          text=True, timeout=case.bound)
    out = Outcome(case.id, done.returncode, done.stdout, done.stderr, time.monotonic() - start, work)
    out.problems = common_problems(out, case.expect, before, env["GPU_WIZARD_FAULT_CASE"])
    if not out.problems:
        out.problems += case.check(out)
    TALLY.append(out)
    return out


@pytest.mark.parametrize("kind", ["dangling", "to-a-file"])
def test_a_report_path_that_is_a_symlink_is_never_followed(kind, tmp_path):
    target = tmp_path / "target.toml"

    def setup(folder: Path) -> None:
        write_answers(folder)
        if kind == "to-a-file":
            target.write_text("someone's notes\n", encoding="utf-8")
        (folder / "r.toml").symlink_to(target)

    def judge(out: Outcome) -> list[str]:
        problems = says("r.toml")(out)
        if kind == "dangling" and target.exists():
            problems.append("the symlink's target was created")
        if kind == "to-a-file" and target.read_text(encoding="utf-8") != "someone's notes\n":
            problems.append("the symlink's target was overwritten")
        return problems

    run(Case(f"save-symlink-{kind}", HEADLESS + ["--report", "r.toml"], expect=(2,),
             setup=setup, check=judge), tmp_path)


def test_an_existing_report_is_never_overwritten(tmp_path):
    def setup(folder: Path) -> None:
        write_answers(folder)
        (folder / "r.toml").write_text("the student's first report\n", encoding="utf-8")

    # The harness fails the case if r.toml changes.
    run(Case("save-existing", HEADLESS + ["--report", "r.toml"], expect=(2,), setup=setup,
             check=says("r.toml")), tmp_path)


# ---------------------------------------------------------------------- signals ---

SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143),
           "SIGHUP": (signal.SIGHUP, 129)}


@pytest.mark.parametrize("name", sorted(SIGNALS))
def test_a_signal_while_nvml_hangs_ends_check_at_once(name, tmp_path):
    signum, code = SIGNALS[name]
    out = run(Case(f"check-{name}-mid-probe", ["check"], expect=(code,), paths=(FAKE_NVML,),
                   env={"FAKE_NVML": "hang"}, signal_at=1.5, signum=signum, bound=20,
                   check=both(says("interrupted"), lambda o: ["check talks of a report it never "
                                                               "writes"] if "report" in o.stderr else [])),
              tmp_path)
    assert out.seconds < 6, f"took {out.seconds:.1f} s to stop"


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_headless_probes_writes_nothing(name, tmp_path):
    signum, code = SIGNALS[name]
    out = run(Case(f"headless-{name}-mid-probe", ["--answers", "answers.toml", "--report", "r.toml"],
                   expect=(code,), paths=(FAKE_NVML, FAKE_TORCH),
                   env={"FAKE_NVML": "hang", "FAKE_TORCH": "hang"}, setup=write_answers,
                   signal_at=1.5, signum=signum, bound=20, check=no_report()), tmp_path)
    assert out.seconds < 6, f"took {out.seconds:.1f} s to stop"


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_save_leaves_the_whole_report_or_nothing(name, tmp_path):
    signum, code = SIGNALS[name]

    def judge(out: Outcome) -> list[str]:
        report = out.workdir / "r.toml"
        if not report.exists():
            return []  # nothing is an allowed outcome; a partial file is not (no .tmp: harness)
        problems = valid_report(report)
        if "r.toml" not in out.stderr:
            problems.append("the report was saved but the message does not say where")
        return problems

    run(Case(f"headless-{name}-mid-save", HEADLESS + ["--report", "r.toml"], expect=(code,),
             faults=("slow-save",), setup=write_answers, signal_at="mark", signum=signum,
             check=judge), tmp_path)


# --------------------------------------------------------------- damaged content ---

def damaged_copy(file: str, damage: str):
    """A copy of this installation (wizard/, screens/, content/) with one content file damaged."""
    def setup(folder: Path) -> None:
        write_answers(folder)
        pkg = folder / "pkg"
        for part in ("wizard", "screens", "content"):
            shutil.copytree(ROOT / part, pkg / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
        path = pkg / "content" / file
        if damage == "missing":
            path.unlink()
        elif damage == "not-toml":
            path.write_text("[gpu\nname = 'broken", encoding="utf-8")
        elif damage == "not-utf8":
            path.write_bytes(path.read_bytes()[:200] + b"\xff\xfe\xfa" + path.read_bytes()[200:])
        elif damage == "wrong-type":
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("min_vram_gb = ", "min_vram_gb = 'lots' #", 1),
                            encoding="utf-8")
    return setup


# (file, damage, command, exit statuses, must the message name the file?)
CONTENT_CASES = [
    ("gpus.toml", "not-toml", "headless", (2,)),
    ("goals.toml", "wrong-type", "headless", (2,)),
    ("platforms.toml", "missing", "headless", (2,)),
    ("currency.toml", "not-utf8", "headless", (2,)),
    ("torch_matrix.toml", "not-toml", "headless", (2,)),
    ("gpus.toml", "not-toml", "check", (0, 1)),
    ("torch_matrix.toml", "not-toml", "check", (0, 1)),
    ("en/strings/check.toml", "not-toml", "check", (0, 1)),
    ("zh/strings/findings.toml", "not-utf8", "check-zh", (0, 1)),
    ("en/strings/report.toml", "not-toml", "show", (0,)),
    ("goals.toml", "wrong-type", "show", (0,)),
]
CONTENT_COMMANDS = {
    "headless": ["--answers", "answers.toml", "--machine", LAPTOP, "--report", "r.toml"],
    "check": ["check", "--machine", LAPTOP],
    "check-zh": ["check", "--machine", LAPTOP, "--lang", "zh"],
    "show": ["report", "show", "student.toml"],
}
STUDENT_REPORT = Path(__file__).parent / "student-zh.toml"


@pytest.mark.parametrize("file, damage, cmd, expect", CONTENT_CASES,
                         ids=[f"{c[2]}-{c[0].replace('/', '-')}-{c[1]}" for c in CONTENT_CASES])
def test_damaged_content_is_named_never_a_traceback(file, damage, cmd, expect, tmp_path):
    def setup(folder: Path) -> None:
        damaged_copy(file, damage)(folder)
        shutil.copy(STUDENT_REPORT, folder / "student.toml")

    run(Case(f"content-{cmd}-{file}-{damage}", CONTENT_COMMANDS[cmd], expect=expect,
             setup=setup, env={"PYTHONPATH": "pkg"}, python_m=True,
             check=says(Path(file).name)), tmp_path)


# ------------------------------------------------------------------------ the TUI ---

STEP_ORDER = ("welcome", "need_gpu", "has_nvidia", "form_factor", "budget", "goal", "result", "save")


def en(key: str, **values) -> str:
    return t(key, "en", **values)


def walk_to(term: Terminal, step: str, timeout: float = 40.0) -> None:
    """Drive the wizard from its first screen to `step` with keys, as a user does."""
    term.wait_for(en("ui.welcome.start_hint"), timeout=60)
    waits = {
        "need_gpu": ("Enter", en("guide.questions.need_gpu")),
        "has_nvidia": ("Enter", en("guide.questions.has_nvidia")),
        "form_factor": ("Enter", en("guide.questions.form_factor")),
        "budget": ("Enter", en("guide.questions.budget_amount")),
        "goal": (None, en("guide.questions.goal")),
        "result": ("Enter", en("guide.steps.result")),
        "save": ("C-n", en("ui.save.label")),
    }
    for current in STEP_ORDER[1:STEP_ORDER.index(step) + 1]:
        key, text = waits[current]
        if current == "goal":
            term.type("5000")
            term.wait_for(en("ui.budget.ok", money="$5,000"))
            key = "Enter"
        term.keys(key)
        term.wait_for(text, timeout=timeout)
        if current == "result":
            wait_for_any(term, [en(f"advice.verdict.{v}") for v in VERDICTS], timeout)


def wait_for_any(term: Terminal, texts: list[str], timeout: float) -> str:
    import time

    deadline = time.monotonic() + timeout
    while True:
        screen = term.screen()
        if any(text in screen for text in texts):
            return screen
        if time.monotonic() > deadline:
            raise AssertionError(f"none of {texts[:3]}… appeared; the screen:\n{screen}")
        time.sleep(0.1)


def exit_status(term: Terminal, timeout: float) -> int | None:
    import re
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(EXIT_MARK + r"(\d+)", term.screen())
        if found:
            return int(found.group(1))
        time.sleep(0.1)
    return None


def run_tui(case: TuiCase, tmp_path: Path) -> Outcome:
    import time

    work = tmp_path / "work"
    work.mkdir(parents=True)
    if case.setup:
        case.setup(work)
    env = base_env(work, case.id, case.paths, case.faults, case.env)
    before = snapshot(work)
    argv = command(case.python_m) + list(case.args)
    term = Terminal(case.id.replace(":", "-")[:40], tui_shell(argv, env, work))
    start = time.monotonic()
    problems: list[str] = []
    try:
        try:
            if case.step is not None:
                walk_to(term, case.step)
            act(case, term, env, work)
        except AssertionError as exc:
            problems.append(f"could not drive the wizard: {exc}"[:1500])
        code = exit_status(term, case.bound)
        history = term.history()
        if code is None:
            problems.append(f"the wizard did not exit within {case.bound:g} s")
            wizard = None
            try:
                wizard = wizard_process(env["GPU_WIZARD_FAULT_CASE"], timeout=1)
            except AssertionError:
                pass
            if wizard is not None:
                wizard.kill()
        else:
            problems += terminal_problems(term, work)
        out = Outcome(case.id, code, history, "", time.monotonic() - start, work)
        out.problems = problems + common_problems(out, case.expect, before,
                                                  env["GPU_WIZARD_FAULT_CASE"])
        if case.check and not out.problems:
            out.problems += case.check(out)
    finally:
        term.close()
    TALLY.append(out)
    return out


def act(case: TuiCase, term: Terminal, env: dict[str, str], work: Path) -> None:
    import time

    tag = env["GPU_WIZARD_FAULT_CASE"]
    action = case.action
    if action in SIGNALS:
        wizard_process(tag).send_signal(SIGNALS[action][0])
        # The wizard must be gone soon after the signal, not at the case's overall bound.
        code = exit_status(term, 10)
        assert code is not None, "the wizard was still running 10 s after the signal"
    elif action.startswith("mid-save:"):
        term.keys("Enter")   # Save
        mark = Path(env["GPU_WIZARD_FAULT_MARK"])
        deadline = time.monotonic() + 20
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mark.exists(), "the save never started"
        wizard_process(tag).send_signal(SIGNALS[action.partition(":")[2]][0])
    elif action == "save":
        term.keys("Enter")
        term.wait_for(en("guide.buttons.finish"), timeout=30)
        term.keys("Enter")
    elif action == "save-fails":
        term.keys("Enter")
        term.wait_for("locked", timeout=30)   # the error names the folder
        term.keys("C-q")
    elif action == "wait-exit":
        pass
    else:
        raise AssertionError(f"unknown action {action}")


needs_tmux = pytest.mark.skipif(not tui_available(), reason="tmux is not installed (.ci/run installs it)")

TUI_SIGNAL_CASES = [(step, name) for step in STEP_ORDER for name in ("SIGINT", "SIGTERM")]


@needs_tmux
@pytest.mark.parametrize("step, name", TUI_SIGNAL_CASES,
                         ids=[f"{s}-{n}" for s, n in TUI_SIGNAL_CASES])
def test_a_signal_at_any_step_restores_the_terminal_and_writes_nothing(step, name, tmp_path):
    code = SIGNALS[name][1]
    out = run_tui(TuiCase(f"tui-{step}-{name}", step, name,
                          args=("--machine", LAPTOP, "--report", "r.toml"), expect=(code,),
                          check=both(no_report(), shows(en("ui.exit.interrupted")))),
                  tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
def test_a_dropped_ssh_session_sighup_ends_the_wizard_cleanly(tmp_path):
    out = run_tui(TuiCase("tui-budget-SIGHUP", "budget", "SIGHUP",
                          args=("--machine", LAPTOP, "--report", "r.toml"), expect=(129,),
                          check=no_report()), tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_save_in_the_wizard_keeps_the_whole_report(name, tmp_path):
    code = SIGNALS[name][1]

    def judge(out: Outcome) -> list[str]:
        report = out.workdir / "r.toml"
        problems = valid_report(report)
        return problems + shows(en("ui.exit.interrupted_saved", path=report))(out)

    out = run_tui(TuiCase(f"tui-mid-save-{name}", "save", f"mid-save:{name}",
                          args=("--machine", LAPTOP, "--report", "r.toml"), expect=(code,),
                          faults=("slow-save",), check=judge), tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
def test_the_live_wizard_survives_hanging_nvml_crashing_torch_and_unreadable_sysfs(tmp_path):
    out = run_tui(TuiCase("tui-live-faults", "save", "save", args=("--report", "r.toml"),
                          paths=(FAKE_NVML, FAKE_TORCH), faults=("sysfs-eacces",),
                          env={"FAKE_NVML": "hang", "FAKE_TORCH": "segv"},
                          check=report_says(nvidia="timeout", torch="crashed")),
                  tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
def test_the_live_wizard_saves_beside_a_torch_that_fails_to_import(tmp_path):
    out = run_tui(TuiCase("tui-live-torch-import-error", "save", "save", args=("--report", "r.toml"),
                          paths=(FAKE_TORCH,), env={"FAKE_TORCH": "import-error"},
                          check=report_says(torch="import-error")),
                  tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
@pytest.mark.parametrize("fault", ["read-only", "disk-full"])
def test_the_wizard_explains_a_failed_save_and_loses_nothing(fault, tmp_path):
    def setup(folder: Path) -> None:
        (folder / "locked").mkdir()

    work = tmp_path / "work"
    out = run_tui(TuiCase(f"tui-save-{fault}", "save", "save-fails",
                          args=("--machine", LAPTOP, "--report", "locked/r.toml"),
                          faults=(fault,), env={"GPU_WIZARD_FAULT_DIR": str(work / "locked")},
                          setup=setup, check=no_report()), tmp_path)
    assert out.survived, "; ".join(out.problems)


@needs_tmux
@pytest.mark.parametrize("how", ["live", "replay"])
def test_the_wizard_with_damaged_data_names_the_file_and_restores_the_terminal(how, tmp_path):
    # Live, the first screen comes at once and the check behind it ends the wizard; a replay
    # reads the data before the first screen.
    args = ("--machine", LAPTOP) if how == "replay" else ()
    out = run_tui(TuiCase(f"tui-content-goals-{how}", "welcome" if how == "live" else None,
                          "wait-exit", args=args, expect=(2,), env={"PYTHONPATH": "pkg"},
                          setup=damaged_copy("goals.toml", "wrong-type"), python_m=True,
                          check=both(shows("goals.toml"), shows("damaged"))),
                  tmp_path)
    assert out.survived, "; ".join(out.problems)
