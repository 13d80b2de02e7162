"""`gpu-wizard install-torch`: the plan, the refusals, a real pip install into a real venv from a
local wheel index (a fake torch wheel built here), pip's failure, and the check afterwards."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from wizard.cli import main
from wizard.probe.discover import interpreter_in
from wizard.pytorch.choose import choose_torch
from wizard.pytorch.installer import Mirror, PlanError, make_plan, uv_manages, variant_index, verdict

# The versions in the plans are the frozen matrix's (tests/data/torch_matrix.toml, tests/conftest.py).
pytestmark = pytest.mark.usefixtures("frozen_matrix")

FAKE_TORCH = {
    "torch/__init__.py": ("from types import SimpleNamespace\n__version__ = '{version}+cpu'\n"
                          "version = SimpleNamespace(cuda=None, hip=None, xpu=None)\n"
                          "cuda = SimpleNamespace(is_available=lambda: False)\n"),
    "torch/version.py": "__version__ = '{version}+cpu'\ncuda = None\nhip = None\n",
    "torch-{version}.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
    "torch-{version}.dist-info/WHEEL": ("Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                                        "Tag: py3-none-any\n"),
}


def wheel_index(root: Path, version: str) -> Path:
    """A PEP 503 index in a folder: <root>/cpu/torch/index.html and a pure-Python torch wheel."""
    folder = root / "cpu" / "torch"
    folder.mkdir(parents=True)
    files = {name.format(version=version): text.format(version=version) for name, text in FAKE_TORCH.items()}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"torch-{version}.dist-info/RECORD"] = "\n".join(record + [f"torch-{version}.dist-info/RECORD,,"]) + "\n"
    wheel = f"torch-{version}-py3-none-any.whl"
    with zipfile.ZipFile(folder / wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    (folder / "index.html").write_text(f'<!DOCTYPE html><html><body><a href="{wheel}">{wheel}</a></body></html>\n')
    return root


@pytest.fixture
def clean_pip(monkeypatch):
    """This machine's pip configuration (a local wheel folder, a version cap) stays out."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("PYTHONPATH", raising=False)


@pytest.fixture
def env_with_pip(template_venv):
    """The session's environment with pip (tests/conftest.py), for a test that changes nothing."""
    return Path(interpreter_in(template_venv))


@pytest.fixture
def fresh_env(venv_copy):
    """An environment of the test's own, with pip: one that pip runs in, or installs into."""
    return Path(interpreter_in(venv_copy))


def newest_cpu_version() -> str:
    return choose_torch("linux", python_version="{}.{}".format(*sys.version_info[:2])).torch_version


# ----------------------------------------------------------------------------- the loop ---

def test_installs_into_the_given_python_and_proves_it_works(fresh_env, tmp_path, capsys, clean_pip,
                                                           monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    index = wheel_index(tmp_path / "index", newest_cpu_version())
    status = main(["install-torch", "--python", str(fresh_env), "--index-url", index.as_uri(), "--yes",
                   "--lang", "en"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"Into: {fresh_env}" in out
    assert f"{fresh_env} -m pip install torch=={newest_cpu_version()} --index-url {index.as_uri()}/cpu" in out
    assert f"Installed torch {newest_cpu_version()}+cpu (CPU build); it loads and works." in out
    site = next(Path(fresh_env).parent.parent.glob("lib/python3*/site-packages"))
    assert (site / "torch" / "__init__.py").is_file()


def test_pip_failure_is_reported_as_it_is(fresh_env, tmp_path, capfd, clean_pip):
    empty = tmp_path / "empty"
    (empty / "cpu").mkdir(parents=True)
    status = main(["install-torch", "--python", str(fresh_env), "--index-url", empty.as_uri(), "--yes"])
    out = capfd.readouterr()   # pip writes to the terminal itself: read the file descriptors
    assert status == 1
    assert "pip stopped with exit status 1" in out.out
    assert "No matching distribution found" in out.err + out.out
    assert "--mirror" not in out.out          # an index of the user's own: no mirror to offer


def test_a_failed_download_from_pytorchs_index_names_the_mirrors(env_with_pip, capsys, clean_pip, monkeypatch):
    monkeypatch.setattr("wizard.pytorch.installer.run_install", lambda plan, **_: 1)   # pip never runs
    status = main(["install-torch", "--python", str(env_with_pip), "--yes", "--lang", "en"])
    out = capsys.readouterr().out
    assert status == 1 and "--mirror NAME (sjtu, nju, aliyun)" in " ".join(out.split())


def test_no_terminal_and_no_yes_changes_nothing(env_with_pip, tmp_path, capsys, clean_pip, monkeypatch):
    index = wheel_index(tmp_path / "index", "9.9.9")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    before = sorted(p.name for p in env_with_pip.parent.parent.rglob("*"))
    assert main(["install-torch", "--python", str(env_with_pip), "--index-url", index.as_uri()]) == 2
    assert "add --yes" in capsys.readouterr().err
    assert sorted(p.name for p in env_with_pip.parent.parent.rglob("*")) == before


def test_dry_run_shows_everything_and_runs_nothing(env_with_pip, capsys, clean_pip):
    assert main(["install-torch", "--python", str(env_with_pip), "--dry-run", "--mirror", "sjtu"]) == 0
    out = capsys.readouterr().out
    assert "--index-url https://mirror.sjtu.edu.cn/pytorch-wheels/cpu" in out and "Dry run" in out


def test_bad_mirror_and_both_index_options_are_exit_2(capsys):
    assert main(["install-torch", "--mirror", "nowhere", "--dry-run"]) == 2
    assert "sjtu" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:   # argparse's mutually exclusive group says why
        main(["install-torch", "--mirror", "sjtu", "--index-url", "https://x.example/whl"])
    assert caught.value.code == 2


# ------------------------------------------------------------------------------ the plan ---

def choice(variant="cu126", version="2.14.1", companions=()):
    return choose_torch("linux", "580.95.05", ["6.1"], "3.12", companions=companions) if variant == "cu126" \
        else choose_torch("linux", python_version="3.12", companions=companions)


def test_torchvision_and_torchaudio_come_along_from_the_same_index():
    plan = make_plan("/env/bin/python", "virtualenv", choice(companions=("torchvision", "torchaudio")),
                     companions=("torchvision", "torchaudio"))
    assert plan.argv == ("/env/bin/python", "-m", "pip", "install", "torch==2.14.1", "torchvision", "torchaudio",
                         "--index-url", "https://download.pytorch.org/whl/cu126")


def test_a_uv_managed_environment_uses_uvs_torch_backend(tmp_path):
    (tmp_path / "pyvenv.cfg").write_text("home = /usr/bin\nimplementation = CPython\nuv = 0.9.5\n")
    assert uv_manages(str(tmp_path)) and not uv_manages(str(tmp_path / "nothing"))
    plan = make_plan("/p/bin/python", "project-venv", choice(), prefix=str(tmp_path), uv="/usr/bin/uv")
    assert plan.argv == ("/usr/bin/uv", "pip", "install", "--python", "/p/bin/python", "torch==2.14.1",
                         "--torch-backend=cu126")
    # Without uv on PATH, or with a mirror, pip it is.
    assert make_plan("/p/bin/python", "project-venv", choice(), prefix=str(tmp_path)).via == "pip"


def test_mirrors_index_and_find_links():
    index = Mirror("m", "M", "M", "index", "https://m.example/whl/{variant}", ("cu126", "cpu"))
    flat = Mirror("f", "F", "F", "find-links", "https://f.example/{variant}/", ("cu126",))
    assert make_plan("py", "path", choice(), mirror=index).argv[-2:] == ("--index-url", "https://m.example/whl/cu126")
    plan = make_plan("py", "path", choice(), mirror=flat)
    assert plan.argv[4:] == ("torch==2.14.1+cu126", "-f", "https://f.example/cu126/")
    with pytest.raises(PlanError) as caught:
        make_plan("py", "path", choice(companions=("torchvision",)), companions=("torchvision",), mirror=flat)
    assert caught.value.key == "mirror-find-links-companions"
    with pytest.raises(PlanError) as caught:
        make_plan("py", "path", choice(), mirror=Mirror("x", "X", "X", "index", "https://x/{variant}", ("cpu",)))
    assert caught.value.key == "mirror-lacks-variant"


@pytest.mark.parametrize("given, expected", [
    (None, "https://download.pytorch.org/whl/cu126"),
    ("https://mirror.example/whl", "https://mirror.example/whl/cu126"),
    ("https://mirror.example/whl/", "https://mirror.example/whl/cu126"),
    ("https://mirror.example/whl/cu126", "https://mirror.example/whl/cu126"),
    ("https://mirror.example/pytorch/{variant}/simple", "https://mirror.example/pytorch/cu126/simple"),
])
def test_index_url_forms(given, expected):
    assert variant_index("cu126", given) == expected


def test_nothing_fits_is_exit_1_and_installs_nothing():
    nothing = choose_torch("linux", python_version="3.7")
    with pytest.raises(PlanError) as caught:
        make_plan("py", "path", nothing)
    assert caught.value.key == "nothing-fits"


def test_the_verdict_wants_the_gpu_test_for_a_gpu_build():
    from wizard.probe.facts import GpuTest, TorchInfo

    plan = make_plan("py", "path", choice())
    ok = TorchInfo(status="ok", build="cuda", gpu_tests=(GpuTest("cuda:0", "ok"),))
    assert verdict(plan, ok, []) == "gpu-ok"
    assert verdict(plan, TorchInfo(status="ok", build="cuda"), []) == "failed"           # never tested
    assert verdict(plan, TorchInfo(status="ok", build="cpu"), []) == "failed"            # the wrong build
    assert verdict(plan, TorchInfo(status="ok", build="cuda", gpu_tests=(GpuTest("cuda:0", "failed"),)), []) \
        == "failed"


def test_the_mirror_table_loads_and_a_damaged_one_names_the_field(tmp_path, monkeypatch):
    import shutil

    from wizard.knowledge.damaged import KnowledgeError
    from wizard.pytorch import installer

    mirrors = installer.load_mirrors()
    assert {"sjtu", "nju"} <= set(mirrors) and all(m.url.startswith("https://") for m in mirrors.values())
    content = tmp_path / "content"
    shutil.copytree(installer.content_dir(), content)
    text = (content / "torch_mirrors.toml").read_text(encoding="utf-8")
    (content / "torch_mirrors.toml").write_text(text.replace('\nkind = "index"', '\nkind = "mirror"', 1),
                                                encoding="utf-8")
    monkeypatch.setattr(installer, "content_dir", lambda: content)
    installer.load_mirrors.cache_clear()
    try:
        with pytest.raises(KnowledgeError) as caught:
            installer.load_mirrors()
        assert "torch_mirrors.toml" in str(caught.value) and "kind" in str(caught.value)
    finally:
        installer.load_mirrors.cache_clear()


def test_without_torch_anywhere_it_installs_into_the_users_environment_not_its_own(tmp_path, monkeypatch,
                                                                                   capsys, clean_pip):
    from wizard.user_settings import remember_environment

    project = tmp_path / "course"
    venv.EnvBuilder(with_pip=False).create(project / ".venv")
    monkeypatch.chdir(project)
    monkeypatch.setattr("wizard.probe.discover.path_pythons", lambda which=None, cwd=None: [])
    # A folder's own environment runs once the user allowed it (here: earlier, in the wizard).
    remember_environment(str(project / ".venv"), "run")
    assert main(["install-torch", "--dry-run", "--lang", "en"]) == 0
    out = " ".join(capsys.readouterr().out.split())   # a long temporary path wraps the line
    target = interpreter_in(project / ".venv")
    assert f"Into: {target} (the project's virtualenv)" in out
    assert f"{target} -m pip install torch==" in out
    # torch-command prints the same command, for the same Python.
    assert main(["torch-command"]) == 0
    assert f"{target} -m pip install torch==" in capsys.readouterr().out


def test_a_folders_environment_nobody_allowed_is_not_installed_into(tmp_path, monkeypatch, capsys, clean_pip):
    """--dry-run without a terminal cannot ask: the folder's .venv is named as not run."""
    project = tmp_path / "course"
    venv.EnvBuilder(with_pip=False).create(project / ".venv")
    monkeypatch.chdir(project)
    monkeypatch.setattr("wizard.probe.discover.path_pythons", lambda which=None, cwd=None: [])
    assert main(["install-torch", "--dry-run", "--lang", "en"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    target = interpreter_in(project / ".venv")
    assert f"Into: {target}" not in out
    assert "Found and not run" in out and "runs only once you allow it" in out


def test_in_a_terminal_install_torch_asks_before_the_folders_python_runs(tmp_path, monkeypatch, capsys, clean_pip):
    from wizard.user_settings import environment_answer

    project = tmp_path / "course"
    venv.EnvBuilder(with_pip=False).create(project / ".venv")
    monkeypatch.chdir(project)
    monkeypatch.setattr("wizard.probe.discover.path_pythons", lambda which=None, cwd=None: [])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    answers = iter(["a", "n"])   # run it, and remember; then: do not install
    prompts: list[str] = []

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", fake_input)
    assert main(["install-torch", "--lang", "en"]) == 2   # declined: nothing installed
    out = " ".join(capsys.readouterr().out.split())
    target = interpreter_in(project / ".venv")
    assert prompts[0].startswith("Run it?") and prompts[1].startswith("Install it?")
    assert f"Into: {target} (the project's virtualenv)" in out
    assert environment_answer(str(project / ".venv")) == "run"
