"""wizard.pytorch.mirrors: the install lines that work from mainland China (Chinese only)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from wizard.pytorch.choose import choose_torch
from wizard.pytorch.mirrors import ChinaLine, china_lines, china_lines_for_machine, platform_of

TUNA = "https://pypi.tuna.tsinghua.edu.cn/simple"
SJTU = "https://mirror.sjtu.edu.cn/pytorch-wheels/"

# Which build PyPI carries for a version is the matrix's: the frozen one (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("frozen_matrix")


def commands(lines):
    return [line.text for line in lines if line.kind == "command"]


def texts(lines):
    return " ".join(line.text for line in lines if line.kind == "text")


def test_english_and_no_command_give_nothing():
    command = "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126"
    assert china_lines(command, "en") == ()
    assert china_lines(None, "zh") == () and china_lines("", "zh") == ()


def test_the_wheel_mirror_replaces_the_index_and_keeps_everything_else():
    command = ('"C:\\My install\\python.exe" -m pip install torch==2.14.1 torchvision torchaudio '
               '--index-url https://download.pytorch.org/whl/cu126')
    lines = china_lines(command, "zh", platform="windows-x86_64")
    assert commands(lines) == [
        '"C:\\My install\\python.exe" -m pip install torch==2.14.1 torchvision torchaudio '
        f'--index-url {SJTU}cu126']
    assert lines[0].kind == "text" and "3.0 GB" in lines[0].text and "2026-11-30" in lines[0].text
    assert "上海交通大学镜像" in texts(lines)


def test_pypi_mirror_when_plain_pypi_is_the_chosen_build():
    # Linux x86_64, 2.15.0: PyPI's own wheel is the CUDA 13.2 build; no wheel mirror lists cu132.
    choice = choose_torch("linux", "580.95.05", ["8.6"], "3.12", companions=("torchvision",))
    assert choice.variant == "cu132"
    lines = china_lines(choice.command, "zh", platform="linux-x86_64")
    assert commands(lines) == [f"pip install torch==2.15.0 torchvision -i {TUNA}"]
    # Without the platform it cannot know what plain PyPI carries: it says no mirror has it.
    assert commands(china_lines(choice.command, "zh")) == []
    assert "download.pytorch.org" in texts(china_lines(choice.command, "zh"))


def test_pypi_mirror_and_wheel_mirror_both_where_both_serve_it():
    choice = choose_torch("linux", "580.95.05", ["12.1"], "3.12", arch="aarch64")   # DGX Spark
    lines = china_lines(choice.command, "zh", platform="linux-aarch64")
    assert commands(lines) == [f"pip install torch==2.14.1 -i {TUNA}",
                               f"pip install torch==2.14.1 --index-url {SJTU}cu130"]
    assert lines[-1].kind == "text" and "上面的命令" in lines[-1].text      # fall back to the original


def test_aarch64_before_2_11_plain_pypi_is_cpu():
    command = "pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu128"
    assert commands(china_lines(command, "zh", platform="linux-aarch64")) == [
        f"pip install torch==2.10.0 --index-url {SJTU}cu128"]
    cpu = "pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cpu"
    assert f"pip install torch==2.10.0 -i {TUNA}" in commands(china_lines(cpu, "zh", platform="windows-x86_64"))
    assert f"pip install torch==2.10.0 -i {TUNA}" not in commands(china_lines(cpu, "zh", platform="linux-x86_64"))


def test_a_build_no_mirror_serves_is_said_plainly():
    command = "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/rocm7.14"
    lines = china_lines(command, "zh", platform="linux-x86_64")
    assert len(lines) == 1 and commands(lines) == []
    assert "rocm7.14" in lines[0].text and "download.pytorch.org" in lines[0].text
    assert "上海交通大学镜像" in lines[0].text and "南京大学镜像" in lines[0].text


def test_mac_commands_go_to_the_pypi_mirror_with_their_extras():
    lines = china_lines('pip install torch==2.2.2 "numpy<2"', "zh", platform="macos-x86_64")
    assert commands(lines) == [f'pip install torch==2.2.2 "numpy<2" -i {TUNA}']
    assert "GB" not in lines[0].text                      # the measured sizes are Linux wheels


def test_a_find_links_mirror_pins_the_local_version_and_refuses_companions(monkeypatch):
    from wizard.pytorch import installer
    from wizard.pytorch.installer import Mirror

    flat = Mirror("flat", "Flat", "某镜像", "find-links", "https://f.example/{variant}/", ("cu126",))
    monkeypatch.setattr(installer, "load_mirrors", lambda: {"flat": flat})
    lines = china_lines("pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126", "zh")
    assert commands(lines) == [f"pip install torch==2.14.1+cu126 -f https://f.example/cu126/ -i {TUNA}"]
    with_vision = china_lines("pip install torch==2.14.1 torchvision --index-url "
                              "https://download.pytorch.org/whl/cu126", "zh")
    assert commands(with_vision) == [] and "download.pytorch.org" in texts(with_vision)


@pytest.mark.parametrize("command", [
    "pip install torch==2.14.1 --index-url https://my.example/whl/cu126",   # someone's own index
    "conda install pytorch",
    "pip install numpy",
])
def test_commands_it_does_not_understand_get_no_lines(command):
    assert china_lines(command, "zh", platform="linux-x86_64") == ()


def test_platform_names_and_the_result_page_helper():
    assert platform_of("Linux", "aarch64") == "linux-aarch64"
    assert platform_of("Windows", "AMD64") == "windows-x86_64"
    assert platform_of("Darwin", "arm64") == "macos-arm64"
    assert platform_of(None, "x86_64") is None
    machine = SimpleNamespace(os="Linux", arch="x86_64", torch=SimpleNamespace(python_arch="aarch64"))
    command = "pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu130"
    assert f"pip install torch==2.14.1 -i {TUNA}" in commands(china_lines_for_machine(command, machine, "zh"))
    assert china_lines_for_machine(command, machine, "en") == ()
    assert china_lines_for_machine(command, None, "zh")[0] == ChinaLine(
        "text", china_lines(command, "zh")[0].text)


def test_a_damaged_mirror_table_gives_no_lines_not_a_crash(monkeypatch):
    from wizard.knowledge.damaged import KnowledgeError
    from wizard.pytorch import installer

    def damaged():
        raise KnowledgeError("torch_mirrors.toml", "[pypi]", "url", "must be text")

    monkeypatch.setattr(installer, "load_pypi_mirror", damaged)
    assert china_lines("pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cpu", "zh") == ()


def test_the_pypi_mirror_table_loads_and_is_checked(tmp_path, monkeypatch):
    import shutil

    from wizard.knowledge.damaged import KnowledgeError
    from wizard.pytorch import installer

    mirror = installer.load_pypi_mirror()
    assert mirror.url == TUNA and mirror.title_zh
    content = tmp_path / "content"
    shutil.copytree(installer.content_dir(), content)
    text = (content / "torch_mirrors.toml").read_text(encoding="utf-8")
    (content / "torch_mirrors.toml").write_text(text.replace(f'url = "{TUNA}"', 'url = "http://x.example/"'),
                                                encoding="utf-8")
    monkeypatch.setattr(installer, "content_dir", lambda: content)
    installer.load_pypi_mirror.cache_clear()
    try:
        with pytest.raises(KnowledgeError) as caught:
            installer.load_pypi_mirror()
        assert "url" in str(caught.value)
    finally:
        installer.load_pypi_mirror.cache_clear()
