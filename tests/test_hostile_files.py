"""Files gpu-wizard did not write, made hostile: a FIFO nobody writes to, a link to /dev/zero and
a 10 GB (sparse) file, where torch's version.py, METADATA or RECORD, an environment's pyvenv.cfg
or a report should be. Each costs milliseconds: the probe leaves that value out, a report is
refused with a sentence that names what the file is. And a program given as `--python` that
answers the path query with values of the wrong type is told apart without a traceback."""

from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.test_bounded_read import TEN_GB, quickly
from wizard.cli import main
from wizard.probe.runner import RunResult
from wizard.pytorch.installer import uv_manages
from wizard.pytorch.probe import StaticFacts, assemble, describe_torch
from wizard.pytorch.probe.static import facts_from_path, read_version_py, static_torch_facts
from wizard.report.errors import ReportReadError
from wizard.report.reading import read_toml

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                reason="FIFOs and /dev/zero are POSIX")



def make_hostile(path: Path, kind: str) -> Path:
    """`path` (replaced if it exists) as a FIFO, a link to /dev/zero, or a 10 GB sparse file."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.touch()
        os.truncate(path, TEN_GB)
    return path


HOSTILE = ["fifo", "zero", "huge"]


# ------------------------------------------------------------------ torch's own files ---

def write_dist(site: Path, name: str, version: str, files: list[str], requires: tuple[str, ...] = ()) -> Path:
    meta = site / f"{name.replace('-', '_')}-{version}.dist-info"
    meta.mkdir()
    headers = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    (meta / "METADATA").write_text("\n".join(headers + [f"Requires-Dist: {r}" for r in requires]) + "\n\n")
    rows = [f"{rel},sha256=x,{(site / rel).stat().st_size}" for rel in files]
    (meta / "RECORD").write_text("\n".join(rows + [f"{meta.name}/RECORD,,"]) + "\n")
    return meta


def cuda_torch(site: Path) -> Path:
    """A CUDA torch that brought nvidia-cublas (2 MB): every value the probe reads from files."""
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text("__version__ = '2.5.1+cu124'\n")
    (site / "torch" / "version.py").write_text("__version__ = '2.5.1+cu124'\ncuda = '12.4'\n")
    write_dist(site, "torch", "2.5.1+cu124", ["torch/__init__.py", "torch/version.py"],
               requires=("nvidia-cublas-cu12==12.4.5.8", "sympy"))
    (site / "nvidia").mkdir()
    (site / "nvidia" / "blob.so").write_bytes(b"\1" * 2_000_000)
    write_dist(site, "nvidia-cublas-cu12", "12.4.5.8", ["nvidia/blob.so"])
    return site


def facts(site: Path):
    return quickly(lambda: facts_from_path([str(site)], "3.11.7", "x86_64"))


def test_the_fake_cuda_torch_is_read_whole(tmp_path):
    # The control: with sound files, every value below is there.
    found = facts(cuda_torch(tmp_path))
    assert (found.version, found.cuda_version, found.build) == ("2.5.1+cu124", "12.4", "cuda")
    assert found.libraries == (("nvidia-cublas-cu12", 2.0),) and found.torch_size_mb is not None


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_version_py_leaves_out_what_only_it_says(tmp_path, kind):
    site = cuda_torch(tmp_path)
    make_hostile(site / "torch" / "version.py", kind)
    assert quickly(lambda: read_version_py(str(site / "torch"))) == {}
    found = facts(site)
    # The version is the install record's; the CUDA version was only in version.py.
    assert found.installed and found.version == "2.5.1+cu124" and found.build == "cuda"
    assert found.cuda_version is None
    assert found.libraries == (("nvidia-cublas-cu12", 2.0),)


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_metadata_leaves_out_the_libraries_it_names(tmp_path, kind):
    site = cuda_torch(tmp_path)
    make_hostile(next(site.glob("torch-*.dist-info")) / "METADATA", kind)
    found = facts(site)
    assert found.installed and found.version == "2.5.1+cu124" and found.cuda_version == "12.4"
    assert found.libraries == ()


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_record_leaves_out_that_packages_size(tmp_path, kind):
    site = cuda_torch(tmp_path)
    make_hostile(next(site.glob("nvidia_cublas_cu12-*.dist-info")) / "RECORD", kind)
    found = facts(site)
    assert found.installed and found.version == "2.5.1+cu124" and found.torch_size_mb is not None
    assert found.libraries == ()


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_torch_record_falls_back_to_the_folder_on_disk(tmp_path, kind):
    site = cuda_torch(tmp_path)
    make_hostile(next(site.glob("torch-*.dist-info")) / "RECORD", kind)
    found = facts(site)
    on_disk = sum(p.stat().st_size for p in (site / "torch").iterdir())
    assert found.torch_size_mb == round(on_disk / 1e6, 1)
    assert found.libraries == (("nvidia-cublas-cu12", 2.0),)


def test_torch_files_are_checked_after_opening_not_before(tmp_path, monkeypatch):
    # A stat() that says "regular file" (a file swapped after a check, say) changes nothing:
    # what the open descriptor is decides.
    site = cuda_torch(tmp_path)
    make_hostile(site / "torch" / "version.py", "fifo")
    make_hostile(next(site.glob("torch-*.dist-info")) / "METADATA", "fifo")
    make_hostile(next(site.glob("nvidia_cublas_cu12-*.dist-info")) / "RECORD", "fifo")
    regular = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
    monkeypatch.setattr(os, "stat", lambda *_args, **_kwargs: regular)
    monkeypatch.setattr(Path, "stat", lambda *_args, **_kwargs: regular)
    found = facts(site)
    assert found.version == "2.5.1+cu124" and found.cuda_version is None and found.libraries == ()


# ---------------------------------------------------------------------------- pyvenv.cfg ---

def test_uv_manages_reads_pyvenv_cfg(tmp_path):
    (tmp_path / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.9.5\n")
    assert uv_manages(str(tmp_path))


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_pyvenv_cfg_is_not_uvs(tmp_path, kind):
    make_hostile(tmp_path / "pyvenv.cfg", kind)
    assert quickly(lambda: uv_manages(str(tmp_path))) is False


def test_a_prefix_with_a_nul_is_not_uvs():
    assert uv_manages("/tmp/a\0b") is False


# ---------------------------------------------------------------------------- reports ---

WHAT_IT_IS = {"fifo": ("report.error.fifo", "named pipe (FIFO)", "命名管道"),
              "zero": ("report.error.device", "a device", "设备"),
              "huge": ("report.error.too-big", "10737.4 MB", "10737.4 MB")}


def refused(path: Path) -> ReportReadError:
    with pytest.raises(ReportReadError) as caught:
        quickly(lambda: read_toml(path))
    return caught.value


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_report_is_named_as_what_it_is(tmp_path, kind):
    error = refused(make_hostile(tmp_path / "report.toml", kind))
    key, english, chinese = WHAT_IT_IS[kind]
    assert error.reason == key
    assert english in error.message("en") and str(tmp_path / "report.toml") in error.message("en")
    assert chinese in error.message("zh")


@pytest.mark.parametrize("kind", HOSTILE)
def test_report_show_names_a_hostile_file_in_one_sentence(tmp_path, capsys, kind):
    path = make_hostile(tmp_path / "report.toml", kind)
    code = quickly(lambda: main(["report", "show", str(path), "--lang", "en"]))
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert WHAT_IT_IS[kind][1] in err and str(path) in err and "Traceback" not in err


def test_a_report_is_checked_after_opening_not_before(tmp_path, monkeypatch):
    # Checked with stat() and then opened, a report swapped for a FIFO in between would block
    # the open for ever; here stat() itself lies, the widest such window.
    path = make_hostile(tmp_path / "report.toml", "fifo")
    regular = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
    monkeypatch.setattr(os, "stat", lambda *_args, **_kwargs: regular)
    assert refused(path).reason == "report.error.fifo"


def test_the_old_reasons_stay(tmp_path):
    (tmp_path / "file").write_text("x = 1\n")
    assert refused(tmp_path).reason == "report.error.is-dir"
    assert refused(tmp_path / "missing.toml").reason == "report.error.not-found"
    assert refused(tmp_path / "file" / "inside.toml").reason == "report.error.not-found"
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 2_000_001)
    error = refused(big)
    assert error.reason == "report.error.too-big" and error.values == {"size": "2.0 MB", "limit": "1.0 MB"}


def test_a_report_without_read_permission_says_so(tmp_path, monkeypatch):
    path = tmp_path / "r.toml"
    path.write_text("x = 1\n")
    real_open = os.open

    def denied(name, *args, **kwargs):  # chmod 0 means nothing to root, who runs some CI
        if os.fspath(name) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    error = refused(path)
    assert error.reason == "report.error.denied"
    assert "no permission to read" in error.message("en") and "权限" in error.message("zh")


# --------------------------------------------------- a program that only looks like Python ---

def fake_python(tmp_path: Path, answer: Any) -> Path:
    """A program that answers every question with `answer` as JSON, the way the path query
    (wizard.pytorch.probe.static._PATH_QUERY) is answered: its last line."""
    path = tmp_path / "python3"
    line = json.dumps(answer).replace("'", "'\"'\"'")
    path.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        echo 'Python 3.11.7'
        echo '{line}'
        """))
    path.chmod(0o755)
    return path


WRONG_TYPES = [
    [["/nonexistent", 7, None, {"a": 1}, ["x"], "a\u0000b"], "3.11.7", 42, {}],
    [[], "3.11.7", ["x86_64"], ["/prefix"]],
    [[""], "3.11.7", {"arch": "x86_64"}, 3.5],
    [[], "3.11.7", "x86_64\u001b[31m", "/pre\u0000fix"],
]


@pytest.mark.parametrize("answer", WRONG_TYPES)
def test_values_of_the_wrong_type_are_dropped(tmp_path, answer):
    found = static_torch_facts(str(fake_python(tmp_path, answer)))
    assert found.python_version == "3.11.7" and found.python_arch is None and found.prefix is None
    assert found.installed is False


def test_only_string_path_entries_are_searched(tmp_path, monkeypatch):
    # 7 would otherwise become the folder "7", looked for in whatever folder this is.
    cuda_torch(tmp_path / "7")
    monkeypatch.chdir(tmp_path)
    found = static_torch_facts(str(fake_python(tmp_path, [[7], "3.11.7", "x86_64", "/p"])))
    assert found.python_version == "3.11.7" and not found.installed


@pytest.mark.parametrize("answer", [
    [[], 3.11, "x86_64", "/p"],
    [[], ["3.11.7"], "x86_64", "/p"],
    [[], "not a version", "x86_64", "/p"],
    [{}, "3.11.7", "x86_64", "/p"],
    [[], "3.11.7", "x86_64"],
    {"path": []},
])
def test_an_answer_of_the_wrong_shape_is_not_a_pythons(tmp_path, answer):
    found = static_torch_facts(str(fake_python(tmp_path, answer)))
    assert found.python_version is None and found.detail == "its answer was not a Python's"


@pytest.mark.parametrize("answer", WRONG_TYPES[:2])
def test_torch_command_survives_a_fake_interpreter(tmp_path, capsys, answer):
    code = main(["torch-command", "--python", str(fake_python(tmp_path, answer)), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in out + err
    assert out.strip() or err.strip()  # a sentence, whichever the outcome


def test_torch_command_refuses_a_fake_whose_version_is_not_text(tmp_path, capsys):
    code = main(["torch-command", "--python", str(fake_python(tmp_path, [[], 3.11, "x86_64", "/p"]))])
    _out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err and str(tmp_path) in err


def test_a_torch_child_naming_an_impossible_location_is_no_crash():
    # Anything can print the child's marker line; a NUL in its location once reached os.listdir.
    answer = {"status": "ok", "version": "2.5.1", "location": "/x\u0000y/torch", "machine": "x86_64"}
    run = RunResult("ok", 0, describe_torch.MARKER + json.dumps(answer))
    info, _bench, _note = assemble(run, StaticFacts(True, version="2.5.1", location="/a/torch"), "python3", 5)
    assert info.status == "ok" and info.version == "2.5.1"
