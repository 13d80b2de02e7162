"""Reports: build, redact, save atomically without overwriting, load defensively, validate, summarize."""

import copy
import dataclasses
import datetime as dt
import math
import os
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.advise import advise
from wizard.answers import Answers
from wizard.diagnosis.findings import Finding
from wizard.knowledge.load import load_knowledge
from wizard.probe.facts import ProbeNote, machine_from_dict
from wizard.report import saving as report_saving
from wizard.report.building import build_report
from wizard.report.errors import ReportExistsError, ReportInvalidError, ReportReadError, ReportSaveError
from wizard.report.fields import SCHEMA
from wizard.report.reading import load_report, read_report
from wizard.report.redaction import interpreter_name, redact_report
from wizard.report.roster import summarize
from wizard.report.saving import default_report_path, dumps_report, next_free_path, save_report
from wizard.report.validate import validate_report

MACHINES = Path(__file__).parent / "machines"
NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=dt.timezone.utc)
UUID = "GPU-8f9a1b2c-3d4e-5f60-7182-93a4b5c6d7e8"
ANSWERS = Answers("yes", "yes", "laptop", 5000, "CNY", "learning")


@pytest.fixture(scope="module")
def knowledge():
    return load_knowledge()


def recorded(name: str):
    with (MACHINES / f"{name}.toml").open("rb") as fh:
        return machine_from_dict(tomllib.load(fh)["machine"])


def identifying_machine():
    """The 4060 laptop as a live probe would see it: host name, UUID, home paths, addresses."""
    machine = recorded("laptop-4060")
    gpus = (dataclasses.replace(machine.gpus[0], uuid=UUID),) + machine.gpus[1:]
    torch = dataclasses.replace(
        machine.torch, interpreter=r"C:\Users\alice\miniconda3\envs\dl\python.exe", status="import-error",
        error_line=r"torch imported from C:\Users\alice\miniconda3\envs\dl\Lib\site-packages\torch")
    probes = machine.probes + (
        ProbeNote("network-ish", "error", detail="host alice-zenbook at 192.168.1.23 "
                  "mac 3c:22:fb:12:34:56, serial number: PF3ABC12; /home/alice/.cache; fe80::1ff:fe23:4567:890a"),
    )
    return dataclasses.replace(machine, hostname="alice-zenbook", gpus=gpus, torch=torch, probes=probes,
                               chassis_evidence=("Chassis of alice-zenbook: Notebook",))


def finding_with_path():
    return Finding("torch-cpu-build-with-nvidia-gpu", "error", "PyTorch cannot use the GPU",
                   r"torch at C:\Users\alice\miniconda3 is the CPU build", "pip install torch ...")


def a_report(knowledge, machine=None, lang="en", redact=True, findings=None):
    machine = machine or recorded("laptop-4060")
    findings = [finding_with_path()] if findings is None else findings
    rec = advise(ANSWERS, machine, knowledge, lang, findings)
    return build_report(ANSWERS, machine, findings, rec, lang, redact=redact, now=NOW,
                        identifiers=[])


# -------------------------------------------------------------------------- building ---

def test_a_built_report_is_valid_and_says_what_it_is(knowledge):
    report = a_report(knowledge)
    assert validate_report(report, knowledge) == []
    assert report["schema"] == SCHEMA and report["language"] == "en" and report["redacted"] is True
    assert report["created"] == NOW
    assert report["recommendation"]["verdict"] == "fix-setup"


@pytest.mark.parametrize("name", sorted(p.stem for p in MACHINES.glob("*.toml")))
def test_every_recorded_machine_makes_a_valid_report(knowledge, name):
    report = a_report(knowledge, recorded(name), lang="zh")
    assert validate_report(report, knowledge) == []


def test_created_is_utc_without_microseconds(knowledge):
    local = dt.datetime(2026, 12, 1, 3, 4, 5, 678, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    report = build_report(ANSWERS, recorded("vm-no-gpu"), [], advise(
        ANSWERS, recorded("vm-no-gpu"), knowledge, "en", []), "en", now=local, identifiers=[])
    assert report["created"] == dt.datetime(2026, 11, 30, 19, 4, 5, tzinfo=dt.timezone.utc)
    assert "created = 2026-11-30 19:04:05+00:00" in dumps_report(report)


# ------------------------------------------------------------------------- redaction ---

SECRETS = ("alice", "zenbook", UUID, "8f9a1b2c", "192.168.1.23", "3c:22:fb:12:34:56", "PF3ABC12",
           "fe80::1ff:fe23:4567:890a")


def test_a_redacted_report_has_no_identifiers(knowledge):
    text = dumps_report(a_report(knowledge, identifying_machine()))
    for secret in SECRETS:
        assert secret not in text, secret
    data = tomllib.loads(text)
    assert "hostname" not in data["machine"]
    assert all("uuid" not in g for g in data["machine"]["gpus"])
    assert data["machine"]["torch"]["interpreter"] == "python.exe"
    # The environment's folder goes with the interpreter's path: the package inside it stays, in
    # the probe's error line and in the sentence the report words it with.
    assert data["machine"]["torch"]["error_line"] == r"torch imported from <env>\Lib\site-packages\torch"
    assert r"torch imported from <env>\Lib\site-packages\torch" in data["machine"]["torch"]["message"]
    assert data["redacted"] is True
    assert validate_report(data, knowledge) == []


def test_redaction_keeps_the_facts(knowledge):
    data = a_report(knowledge, identifying_machine())
    machine = data["machine"]
    assert machine["nvidia"]["driver_version"] == "555.99"
    assert machine["os_version"] == "Windows 11 (10.0.22631)"
    assert machine["gpus"][0]["name"] == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert machine["gpus"][0]["pci_id"] == "10de:28e0"
    assert machine["gpus"][0]["bus_id"] == "00000000:01:00.0"


def test_no_redact_keeps_everything(knowledge):
    text = dumps_report(a_report(knowledge, identifying_machine(), redact=False))
    for secret in SECRETS:
        assert secret in text, secret
    assert tomllib.loads(text)["redacted"] is False


@pytest.mark.parametrize("text, gone, kept", [
    ("/home/bob/venv/bin/python3.11", "bob", "~/venv/bin/python3.11"),
    ("/Users/carol/Library/x", "carol", "~/Library/x"),
    ("/mnt/c/Users/dave/project", "dave", "~/project"),
    (r"C:\Users\erin\AppData\Local\Programs", "erin", r"~\AppData"),
    (r"C:\\Users\\frank\\AppData", "frank", "AppData"),
    ("/root/.local/lib", "/root", "~/.local/lib"),
    ("ip 10.0.0.7 port 22", "10.0.0.7", "port 22"),
    ("driver 550.54.14 and kernel 10.0.22631.4602", "<ip>", "550.54.14"),
    ("see https://example.com/users/guide", "~", "https://example.com/users/guide"),
])
def test_redacting_strings(text, gone, kept):
    out = redact_report({"machine": {"probes": [{"detail": text}]}}, identifiers=[])
    detail = out["machine"]["probes"][0]["detail"]
    assert gone not in detail and kept in detail


def test_user_names_found_in_paths_are_removed_everywhere():
    report = {"machine": {"torch": {"interpreter": "/home/gwen/venv/bin/python",
                                    "message": "gwen's torch is fine"}},
              "findings": [{"detail": "account gwen cannot read /dev/nvidia0"}]}
    out = redact_report(report, identifiers=[])
    assert "gwen" not in dumps_report(out)
    assert out["machine"]["torch"]["interpreter"] == "python"


def test_generic_user_names_do_not_blank_words():
    report = {"machine": {"torch": {"message": "/home/user/x: run as root or use the nvidia group"}}}
    out = redact_report(report, identifiers=["root"])
    assert out["machine"]["torch"]["message"] == "~/x: run as root or use the nvidia group"
    host = redact_report({"machine": {"hostname": "debian", "os_version": "Debian GNU/Linux 12"}},
                         identifiers=[])
    assert host["machine"] == {"os_version": "Debian GNU/Linux 12"}


def test_a_home_folder_with_a_space_is_removed_whole():
    out = redact_report({"machine": {"probes": [
        {"detail": "/home/Ana Lopez/miniconda3/bin/python: ok"},
        {"detail": r"C:\Users\Ana Lopez\AppData\Local\x and C:\Users\bo\y"},
        {"detail": "/home/ana is missing; /home/ana went to /tmp"},
    ]}}, identifiers=[])
    details = [p["detail"] for p in out["machine"]["probes"]]
    assert details == ["~/miniconda3/bin/python: ok", r"~\AppData\Local\x and ~\y",
                       "~ is missing; ~ went to /tmp"]


def test_the_interpreter_is_kept_by_name_in_every_text():
    report = {"machine": {"torch": {
        "interpreter": "/data/bob/env/bin/python3.11", "status": "import-error",
        "error_line": "ImportError: /data/bob/env/lib/python3.11/site-packages/torch/lib/libtorch.so",
        "message": "PyTorch in /data/bob/env/bin/python3.11 fails to load",
        "other_pythons": [{"interpreter": "/srv/lab/bob/.venv/bin/python", "source": "path"}]}},
        "findings": [{"id": "x", "severity": "error", "title": "t",
                      "detail": "run /data/bob/env/bin/python3.11 -m pip install torch", "fix": ""}]}
    out = redact_report(report, identifiers=[])
    text = dumps_report(out)
    assert "bob" not in text and "/data" not in text and "/srv" not in text
    torch = out["machine"]["torch"]
    assert torch["message"] == "PyTorch in python3.11 fails to load"
    assert torch["error_line"] == "ImportError: <env>/lib/python3.11/site-packages/torch/lib/libtorch.so"
    assert out["findings"][0]["detail"] == "run python3.11 -m pip install torch"
    assert torch["other_pythons"][0]["interpreter"] == "python"


def test_shared_system_folders_are_not_taken_for_an_environment():
    report = {"machine": {"torch": {"interpreter": "/usr/bin/python3",
                                    "error_line": "cannot open /usr/lib/x86_64-linux-gnu/libcuda.so.1"}}}
    out = redact_report(report, identifiers=[])
    assert out["machine"]["torch"]["error_line"] == "cannot open /usr/lib/x86_64-linux-gnu/libcuda.so.1"


@pytest.mark.parametrize("name", ["darwin", "intel", "amd", "apple", "rtx", "geforce", "laptop", "nvml",
                                  "cpu", "cuda", "ok", "linux", "vm", "Windows", "AMD64", "torch"])
def test_an_identifier_that_is_a_hardware_or_schema_word_corrupts_nothing(knowledge, name):
    for machine in ("laptop-4060", "apple-m2", "amd-rx7900", "h200-server"):
        plain = a_report(knowledge, recorded(machine), redact=False)
        out = redact_report(plain, identifiers=[name])
        assert validate_report(out, knowledge) == [], (machine, name)
        assert out["machine"]["gpus"] == plain["machine"]["gpus"]
        assert out["machine"]["os"] == plain["machine"]["os"]
        assert out["machine"]["cpu_model"] == plain["machine"]["cpu_model"]
        assert [f["title"] for f in out["findings"]] == [f["title"] for f in plain["findings"]]


IDENTIFIERS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12) \
    | st.sampled_from(["darwin", "intel", "rtx", "nvidia", "python", "bob", "Ana Lopez", "8.6", "ok",
                       "cuda", "laptop", "x86_64", "error", "555.99", "GeForce", "sm_90", "cu126"])


@settings(max_examples=120, deadline=None)
@given(machine=st.sampled_from(sorted(p.stem for p in MACHINES.glob("*.toml"))),
       names=st.lists(IDENTIFIERS, max_size=4), lang=st.sampled_from(["en", "zh"]))
def test_a_redacted_report_always_validates(knowledge, machine, names, lang):
    plain = a_report(knowledge, recorded(machine), lang=lang, redact=False)
    out = redact_report(plain, identifiers=names)
    assert validate_report(out, knowledge) == []
    assert validate_report(tomllib.loads(dumps_report(out)), knowledge) == []


def test_interpreter_name():
    assert interpreter_name("/opt/venv/bin/python3.12") == "python3.12"
    assert interpreter_name(r"C:\Python312\python.exe") == "python.exe"


def test_redaction_does_not_change_the_input(knowledge):
    report = a_report(knowledge, identifying_machine(), redact=False)
    before = copy.deepcopy(report)
    redact_report(report, identifiers=[])
    assert report == before


# ---------------------------------------------------------------------------- saving ---

def test_load_then_save_gives_the_same_toml(knowledge, tmp_path):
    first = save_report(a_report(knowledge, lang="zh"), tmp_path / "a.toml")
    again = save_report(load_report(first, knowledge), tmp_path / "b.toml")
    assert first.read_bytes() == again.read_bytes()


def test_save_is_utf8_and_leaves_no_temp_files(knowledge, tmp_path):
    path = save_report(a_report(knowledge, lang="zh"), tmp_path / "r.toml")
    text = path.read_bytes().decode("utf-8")
    assert re.search(r"[\u4e00-\u9fff]", text)  # Chinese written as text, not \u escapes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]


def test_an_existing_file_is_never_overwritten(knowledge, tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("precious", encoding="utf-8")
    with pytest.raises(ReportExistsError) as caught:
        save_report(a_report(knowledge), path)
    assert path.read_text(encoding="utf-8") == "precious"
    assert caught.value.suggestion == tmp_path / "r-2.toml"
    assert "r-2.toml" in caught.value.message("en") and "r-2.toml" in caught.value.message("zh")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]


def test_overwrite_must_be_asked_for(knowledge, tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("old", encoding="utf-8")
    save_report(a_report(knowledge), path, overwrite=True)
    assert tomllib.loads(path.read_text(encoding="utf-8"))["schema"] == SCHEMA


def test_a_name_taken_during_the_save_is_not_overwritten(knowledge, tmp_path, monkeypatch):
    path = tmp_path / "r.toml"
    real_link = os.link

    def racing_link(src, dst):
        Path(dst).write_text("someone else's", encoding="utf-8")
        return real_link(src, dst)

    monkeypatch.setattr(report_saving.os, "link", racing_link)
    with pytest.raises(ReportExistsError):
        save_report(a_report(knowledge), path)
    assert path.read_text(encoding="utf-8") == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]


def test_a_failure_midway_leaves_nothing_behind(knowledge, tmp_path, monkeypatch):
    def broken(*_args):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(report_saving.os, "link", broken)
    monkeypatch.setattr(report_saving.os, "replace", broken)
    with pytest.raises(ReportSaveError) as caught:
        save_report(a_report(knowledge), tmp_path / "r.toml")
    assert "Input/output error" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_folder_gets_a_clear_message(knowledge, tmp_path, monkeypatch):
    def denied(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report_saving.tempfile, "mkstemp", denied)
    with pytest.raises(ReportSaveError) as caught:
        save_report(a_report(knowledge), tmp_path / "r.toml")
    assert "no permission to write" in caught.value.message("en")
    assert "--report" in caught.value.message("en")
    assert "没有" in caught.value.message("zh")


def test_a_missing_folder_or_a_folder_as_target(knowledge, tmp_path):
    with pytest.raises(ReportSaveError, match="does not exist"):
        save_report(a_report(knowledge), tmp_path / "nope" / "r.toml")
    with pytest.raises(ReportSaveError, match="folder, not a file"):
        save_report(a_report(knowledge), tmp_path)


def test_next_free_path(tmp_path):
    (tmp_path / "r.toml").touch()
    (tmp_path / "r-2.toml").touch()
    assert next_free_path(tmp_path / "r.toml") == tmp_path / "r-3.toml"
    assert next_free_path(tmp_path / "new.toml") == tmp_path / "new.toml"


def test_default_report_path(tmp_path, monkeypatch):
    when = dt.datetime(2026, 11, 30, 9, 8, 7)
    assert default_report_path(when, tmp_path) == tmp_path / "gpu-report-20261130-090807.toml"
    home = tmp_path / "home"
    home.mkdir()
    # A folder that cannot be written (or does not exist) sends the report home.
    assert default_report_path(when, tmp_path / "missing", home) == home / "gpu-report-20261130-090807.toml"
    monkeypatch.setattr(report_saving.os, "access", lambda *_a, **_k: False)
    assert default_report_path(when, tmp_path, home).parent == home


# ---------------------------------------------------------------------------- loading ---

def test_loading_hostile_files(tmp_path):
    cases = {
        "missing.toml": None,
        "huge.toml": b"a = 1\n" + b"#" * 1_100_000,
        "latin1.toml": 'schema = "gpu-wizard/report/1"\nname = "caf\xe9"\n'.encode("latin-1"),
        "syntax.toml": b'schema = "gpu-wizard/report/1"\n\nthis is not toml\n',
    }
    expected = {"missing.toml": "no such file", "huge.toml": "too big", "latin1.toml": "line 2",
                "syntax.toml": "line 3"}
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(ReportReadError) as caught:
            read_report(tmp_path / name)
        message = caught.value.message("en")
        assert name in message, message
        assert expected[name] in message.replace("far bigger", "too big"), message


def test_a_folder_and_a_fifo_are_not_read(tmp_path):
    with pytest.raises(ReportReadError, match="folder"):
        read_report(tmp_path)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.toml"
        os.mkfifo(fifo)
        with pytest.raises(ReportReadError, match="named pipe"):
            read_report(fifo)  # would block forever if opened


def test_a_byte_order_mark_is_fine(knowledge, tmp_path):
    path = save_report(a_report(knowledge), tmp_path / "r.toml")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_report(path, knowledge)["schema"] == SCHEMA


def test_load_report_rejects_an_invalid_report(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('schema = "gpu-wizard/report/1"\n', encoding="utf-8")
    with pytest.raises(ReportInvalidError) as caught:
        load_report(path)
    assert "created: missing" in caught.value.problems
    assert "machine: missing" in caught.value.problems


# -------------------------------------------------------------------------- validation ---

def broken(knowledge, change):
    data = tomllib.loads(dumps_report(a_report(knowledge)))
    change(data)
    return validate_report(data, knowledge)


@pytest.mark.parametrize("change, problem", [
    (lambda d: d.pop("schema"), "schema: missing"),
    (lambda d: d.update(schema="gpu-wizard/report/2"), "schema: 'gpu-wizard/report/2' is a version"),
    (lambda d: d.update(schema="something/else"), "is not a gpu-wizard report schema"),
    (lambda d: d.pop("created"), "created: missing"),
    (lambda d: d.update(created="2026-11-30"), "created: expected a TOML date-time"),
    (lambda d: d.update(created=dt.datetime(2026, 1, 1)), "created: expected a TOML date-time"),
    (lambda d: d.update(language="fr"), "language: 'fr' is not one of en, zh"),
    (lambda d: d.update(redacted="yes"), "redacted: expected true or false, got text"),
    (lambda d: d["answers"].update(goal=5), "answers.goal: expected text"),
    (lambda d: d["answers"].update(budget_amount=-3), "answers.budget_amount: -3 is negative"),
    (lambda d: d["answers"].update(budget_amount=1e300), "answers.budget_amount"),
    (lambda d: d["answers"].pop("need_gpu"), "answers.need_gpu: missing"),
    (lambda d: d["machine"].update(chassis="tablet"), "machine.chassis: 'tablet' is not one of"),
    (lambda d: d["machine"].update(ram_gb="lots"), "machine.ram_gb: expected a number"),
    (lambda d: d["machine"]["gpus"][0].update(vram_gb=math.nan), "machine.gpus[0].vram_gb"),
    (lambda d: d["machine"]["nvidia"].update(status="great"), "machine.nvidia.status"),
    (lambda d: d["findings"][0].update(severity="fatal"), "findings[0].severity: 'fatal'"),
    (lambda d: d["findings"][0].update(id="Not Kebab"), "findings[0].id"),
    (lambda d: d["findings"][0].pop("title"), "findings[0].title: missing"),
    (lambda d: d.update(findings={"a": 1}), "findings: expected a list, got a table"),
    (lambda d: d["recommendation"].update(verdict="buy-everything"), "recommendation.verdict"),
    (lambda d: d["recommendation"].update(reasons=[1]), "recommendation.reasons[0]: expected text"),
    (lambda d: d["recommendation"].update(gpus=[{"name": "x", "vram_gb": "16", "why": ""}]),
     "recommendation.gpus[0].vram_gb: expected a number"),
    (lambda d: d["recommendation"].update(gpus=[{"name": "x", "vram_gb": 8, "why": "", "price": -1}]),
     "recommendation.gpus[0].price: -1 is negative"),
    (lambda d: d["recommendation"].update(platforms=[{"name": "x"}]),
     "recommendation.platforms[0].url: missing"),
    (lambda d: d.update(recommendation=[]), "recommendation: expected a table, got a list"),
])
def test_each_problem_is_named_with_its_key_path(knowledge, change, problem):
    problems = broken(knowledge, change)
    assert any(problem in p for p in problems), problems


def test_unknown_keys_are_fine(knowledge):
    assert broken(knowledge, lambda d: d.update(future_key=1, machine=dict(d["machine"], x=2))) == []


def test_every_problem_is_listed_not_just_the_first(knowledge):
    def many(d):
        d.update(language="fr", redacted=1)
        d["machine"].update(chassis="tablet")
        d["recommendation"].update(verdict="x")
    assert len(broken(knowledge, many)) == 4


# -------------------------------------------------------------------------- summarize ---

def test_summary_rows(knowledge):
    ready_machine = recorded("h200-server")
    ready = a_report(knowledge, ready_machine, findings=[])
    broken_setup = a_report(knowledge, recorded("laptop-4060"))
    no_gpu = a_report(knowledge, recorded("vm-no-gpu"), findings=[])
    rows = summarize([("a.toml", ready), ("b.toml", broken_setup), ("c.toml", no_gpu)])
    assert [r["file"] for r in rows] == ["a.toml", "b.toml", "c.toml"]
    assert rows[0]["ready"] == "yes" and rows[0]["gpu"] == "NVIDIA H200" and rows[0]["torch_gpu"] == "yes"
    assert rows[1]["ready"] == "no" and rows[1]["verdict"] == "fix-setup" and rows[1]["errors"] == "1"
    assert "cpu" in rows[1]["torch"]
    assert rows[2]["ready"] == "no" and rows[2]["gpu"] == ""
