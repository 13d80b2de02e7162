"""The user's settings (wizard.user_settings): what they allowed gpu-wizard to run, remembered
per folder. Read like any file we did not write; trusted only when it is the user's alone; a
damaged one is never overwritten."""

from __future__ import annotations

import os
import threading

import pytest

from wizard import user_settings as us

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX ownership and FIFOs")


def settings(folder) -> os.PathLike:
    return folder / us.SETTINGS_NAME


def test_an_answer_is_remembered_per_folder(own_settings_folder, tmp_path):
    env = tmp_path / "proj" / ".venv"
    env.mkdir(parents=True)
    assert us.environment_answer(str(env)) is None
    written = us.remember_environment(str(env), "run")
    assert written == settings(own_settings_folder)
    assert us.environment_answer(str(env)) == "run"
    assert us.environment_answer(str(tmp_path / "other" / ".venv")) is None
    us.remember_environment(str(env), "skip")
    assert us.environment_answer(str(env)) == "skip"
    assert oct(os.stat(written).st_mode & 0o777) == oct(0o600)
    assert written.read_text().startswith("# gpu-wizard's settings")


def test_one_folder_by_any_of_its_names(tmp_path):
    env = tmp_path / "real" / ".venv"
    env.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    us.remember_environment(str(tmp_path / "link" / ".venv"), "run")
    assert us.environment_answer(str(env)) == "run"
    assert us.environment_answer(str(tmp_path / "real" / "x" / ".." / ".venv")) == "run"


def test_a_damaged_file_is_not_used_and_not_overwritten(own_settings_folder, tmp_path):
    path = settings(own_settings_folder)
    path.write_bytes(b'[environments]\n"/x" = "run"\nthis is not toml = \n')
    before = path.read_bytes()
    assert us.environment_answer("/x") is None
    with pytest.raises(us.SettingsError) as caught:
        us.remember_environment(str(tmp_path), "run")
    assert caught.value.key == "damaged"
    assert path.read_bytes() == before


def test_a_wrong_table_is_damage_too(own_settings_folder, tmp_path):
    path = settings(own_settings_folder)
    path.write_text('environments = "run everything"\n')
    assert us.environment_answer(str(tmp_path)) is None
    with pytest.raises(us.SettingsError):
        us.remember_environment(str(tmp_path), "run")
    assert path.read_text() == 'environments = "run everything"\n'


def test_a_fifo_in_its_place_costs_no_wait(own_settings_folder, tmp_path):
    os.mkfifo(settings(own_settings_folder))
    done = threading.Event()
    answers = []

    def read():
        answers.append(us.environment_answer(str(tmp_path)))
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(5), "reading the settings blocked on a FIFO"
    assert answers == [None]
    with pytest.raises(us.SettingsError):
        us.remember_environment(str(tmp_path), "run")


def test_settings_others_can_change_are_ignored(own_settings_folder, tmp_path):
    env = str(tmp_path / ".venv")
    us.remember_environment(env, "run")
    os.chmod(settings(own_settings_folder), 0o666)
    assert us.environment_answer(env) is None
    os.chmod(settings(own_settings_folder), 0o600)
    os.chmod(own_settings_folder, 0o777)
    assert us.environment_answer(env) is None
    os.chmod(own_settings_folder, 0o700)
    assert us.environment_answer(env) == "run"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root (CI runs as root)")
def test_settings_of_another_user_are_ignored(own_settings_folder, tmp_path):
    import pwd

    env = str(tmp_path / ".venv")
    us.remember_environment(env, "run")
    nobody = pwd.getpwnam("nobody")
    os.chown(settings(own_settings_folder), nobody.pw_uid, nobody.pw_gid)
    assert us.environment_answer(env) is None


def test_a_folder_that_cannot_be_made_says_so(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("GPU_WIZARD_CONFIG_DIR", str(blocker / "gpu-wizard"))
    with pytest.raises(us.SettingsError) as caught:
        us.remember_environment(str(tmp_path), "run")
    assert caught.value.key == "cannot-write"
    assert list(tmp_path.iterdir()) == [blocker]


def test_the_default_place_is_the_users_configuration_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("GPU_WIZARD_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert us.settings_path() == tmp_path / "xdg" / "gpu-wizard" / "settings.toml"


def test_remembering_says_where_or_why_not(own_settings_folder, tmp_path, monkeypatch):
    remembered, said = us.remember_saying(str(tmp_path / ".venv"), True, "en")
    assert remembered and str(settings(own_settings_folder)) in said
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("GPU_WIZARD_CONFIG_DIR", str(blocker / "gpu-wizard"))
    remembered, said = us.remember_saying(str(tmp_path / ".venv"), False, "zh")
    assert not remembered and "没能记住" in said and "写不进去" in said
