"""The wheel carries content/, so a non-editable install finds its texts and data."""

import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    [path] = out.glob("gpu_wizard-*.whl")
    return path


def test_wheel_contains_packages_content_and_entry_point(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("wizard/cli.py", "wizard/probe/nvml.py", "screens/__init__.py",
                   "wizard/content/gpus.toml", "wizard/content/en/strings/nvml.toml",
                   "wizard/content/zh/strings/nvml.toml"):
        assert needed in names, needed
    source_content = {p.relative_to(ROOT).as_posix() for p in (ROOT / "content").rglob("*") if p.is_file()}
    shipped = {n.removeprefix("wizard/") for n in names if n.startswith("wizard/content/")}
    assert source_content == shipped
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gpu-wizard = wizard.cli:run" in zipfile.ZipFile(wheel).read(entry_points).decode()
    assert not any(n.startswith("tests/") for n in names)


def test_the_wheel_manifest_lists_every_shipped_content_file_with_its_checksum(wheel):
    import zlib

    from wizard.knowledge.manifest import MANIFEST_NAME, parse_manifest

    archive = zipfile.ZipFile(wheel)
    prefix = "wizard/content/"
    shipped = {n[len(prefix):]: archive.read(n) for n in archive.namelist()
               if n.startswith(prefix) and not n.endswith("/") and n != prefix + MANIFEST_NAME}
    entries = parse_manifest(archive.read(prefix + MANIFEST_NAME).decode("utf-8"))
    # Computed here, not with the module's digest(): a wrong digest would agree with itself.
    assert entries == {rel: f"{zlib.crc32(data):08x} {len(data)}" for rel, data in shipped.items()}


def test_a_command_ends_without_pythons_teardown_and_the_wizard_returns(monkeypatch, capsys):
    """`gpu-wizard` is wizard.cli.run: after a command the process ends at once (end_now); the
    wizard (its screen library may still be letting go of the terminal) returns to Python's own
    exit. main alone, which the tests call in one process, does neither."""
    import wizard.cli as cli

    ended: list[int] = []

    def ending(status: int) -> None:   # as end_now does, it does not return
        ended.append(status)
        raise SystemExit(status)

    monkeypatch.setattr(cli, "end_now", ending)
    assert cli.main(["report", "show", "/no/such/report.toml"]) == 2 and ended == []
    with pytest.raises(SystemExit):
        cli.run(["report", "show", "/no/such/report.toml"])
    assert ended == [2]
    assert "/no/such/report.toml" in capsys.readouterr().err
    monkeypatch.setattr("wizard.commands.wizard_main.run", lambda args: 0)
    assert cli.run([]) == 0 and ended == [2]


def ended_now(lines: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """A Python that runs `lines` (after importing sys and end_now), from an empty folder."""
    script = "import sys\nfrom wizard.cli import end_now\n" + lines
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)


def test_a_command_ends_with_its_children_ended_its_folder_removed_and_its_output_out(tmp_path):
    """end_now skips Python's teardown, not what must happen: every child of ours ended, our
    temporary folder removed (the runner's end_of_process), then every byte printed, then the
    status."""
    done = ended_now("import os, subprocess\n"
                     "from wizard.probe import runner\n"
                     "folder = runner.neutral_cwd()\n"
                     "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],\n"
                     "                         start_new_session=True)\n"
                     "with runner._LIVE_LOCK:\n"
                     "    runner._LIVE.add(child)\n"
                     "sys.stdout.write(f'{folder} {child.pid}\\n')\n"
                     "sys.stderr.write('and to stderr')\n"
                     "end_now(3)\n"
                     "print('never reached')\n", tmp_path)
    assert (done.returncode, done.stderr) == (3, "and to stderr")
    folder, pid = done.stdout.split()
    assert not Path(folder).exists()
    # The kill is a signal: give the child a moment to die (a zombie of init's counts as gone).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(int(pid)):
        time.sleep(0.05)
    assert not _running(int(pid))


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_a_command_whose_reader_went_away_ends_quietly(tmp_path):
    """`gpu-wizard check | head -1`: the pipe closes before the output is flushed."""
    done = ended_now("import os\nsys.stdout.write('x' * 100)\nos.close(1)\nend_now(0)\n", tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_command_whose_output_could_not_be_written_says_so(tmp_path):
    """`gpu-wizard report summarize --csv … > roster.csv` on a full disk: the file is cut short,
    so the exit is not 0 and one line says why (120, as Python's own exit would)."""
    done = ended_now("import io\n"
                     "class Full(io.StringIO):\n"
                     "    def flush(self):\n"
                     "        raise OSError(28, 'No space left on device')\n"
                     "sys.stdout = Full()\n"
                     "end_now(0)\n", tmp_path)
    assert done.returncode == 120
    assert done.stderr == "gpu-wizard: could not write the output: No space left on device\n"


@pytest.mark.parametrize("argv,loaded", [
    (["check", "--json"], ["wizard.commands.check"]),
    (["--lang", "zh", "report", "show", "x.toml"], ["wizard.commands.report_cmd"]),
    (["--lang", "zh"], []),
    (["--help"], ["wizard.commands.check", "wizard.commands.install_torch", "wizard.commands.report_cmd",
                  "wizard.commands.torch_command"]),
])
def test_a_command_line_loads_only_the_commands_it_names(argv, loaded):
    code = ("import sys\nfrom wizard.cli import parse\n"
            f"try:\n    parse({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('wizard.commands.')), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stderr.strip().splitlines()[-1] == repr(loaded)


@pytest.mark.parametrize("argv,lang", [
    (["--lang", "zh", "check"], "zh"), (["check", "--lang", "zh"], "zh"), (["check"], None),
    (["--lang", "zh", "check", "--lang", "en"], "en"), (["--lang", "zh", "report", "show", "x"], "zh"),
    (["--lang", "zh"], "zh"),
])
def test_a_wizard_option_before_the_command_means_the_same_after_it(argv, lang):
    from wizard.cli import parse

    args = parse(argv)
    assert args.lang == lang and not any(name.startswith("top_") for name in vars(args))
    assert parse(["--no-gpu-test", "check"]).no_gpu_test is True
