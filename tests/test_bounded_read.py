"""wizard.bounded_read: a file that is not ours costs one open and one fstat when it is not a
regular file or is far too big, and is named as what it is."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from wizard.bounded_read import FileRefused, is_regular_file, open_text, read_bytes, read_head, read_text

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                                reason="FIFOs and /dev/zero are POSIX")

TEN_GB = 10 * 1024 ** 3
LIMIT = 64 * 1024


def quickly(call: Callable[[], Any]) -> Any:
    """call(), or what it raised; a reader that blocks or reads forever fails the test instead
    of hanging the run (the thread is a daemon: an exit does not wait for it)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the test, which decides
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "the read did not return within 5 s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def read_lines(path: Path, limit: int) -> list[str]:
    """open_text, read a line at a time to the end."""
    with open_text(path, limit) as lines:
        return list(lines)


def refusal(call: Callable[[], Any]) -> FileRefused:
    with pytest.raises(FileRefused) as caught:
        quickly(call)
    return caught.value


def fifo(path: Path) -> Path:
    os.mkfifo(path)  # nobody writes: a plain open() would wait for a writer forever
    return path


def zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")  # endless: a plain read() would never end
    return path


def sparse(path: Path) -> Path:
    path.touch()
    os.truncate(path, TEN_GB)  # no disk used, 10 GB to read
    return path


@pytest.mark.parametrize("read", [read_bytes, read_head, read_text, read_lines])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, read):
    refused = refusal(lambda: read(fifo(tmp_path / "pipe"), LIMIT))
    assert refused.kind == "fifo" and refused.path == str(tmp_path / "pipe")


@pytest.mark.parametrize("read", [read_bytes, read_head, read_text, read_lines])
def test_a_link_to_dev_zero_is_a_device(tmp_path, read):
    assert refusal(lambda: read(zero(tmp_path / "zero"), LIMIT)).kind == "device"


def test_a_10_gb_file_is_too_big_and_says_its_size(tmp_path):
    path = sparse(tmp_path / "huge")
    refused = refusal(lambda: read_bytes(path, LIMIT))
    assert (refused.kind, refused.size, refused.limit) == ("too-big", TEN_GB, LIMIT)
    assert refusal(lambda: read_text(path, LIMIT)).kind == "too-big"
    assert refusal(lambda: read_lines(path, LIMIT)).kind == "too-big"


def test_the_head_of_a_10_gb_file_is_only_the_head(tmp_path):
    assert quickly(lambda: read_head(sparse(tmp_path / "huge"), LIMIT)) == b"\0" * LIMIT


def test_a_folder_is_a_directory(tmp_path):
    assert refusal(lambda: read_bytes(tmp_path, LIMIT)).kind == "directory"


def test_a_missing_file_and_a_file_where_a_folder_should_be_are_missing(tmp_path):
    (tmp_path / "file").write_text("x")
    assert refusal(lambda: read_bytes(tmp_path / "nothing", LIMIT)).kind == "missing"
    assert refusal(lambda: read_bytes(tmp_path / "file" / "inside", LIMIT)).kind == "missing"


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes("héllo\n".encode() * 10)
    assert quickly(lambda: read_bytes(path, LIMIT)) == path.read_bytes()
    assert quickly(lambda: read_text(path, LIMIT)) == "héllo\n" * 10
    assert quickly(lambda: read_head(path, 3)) == b"h\xc3\xa9"
    size = path.stat().st_size
    assert read_bytes(path, size) == path.read_bytes()  # exactly at the limit: read
    refused = refusal(lambda: read_bytes(path, size - 1))
    assert (refused.kind, refused.size, refused.limit) == ("too-big", size, size - 1)


def test_what_is_read_is_checked_after_opening_not_before(tmp_path, monkeypatch):
    # A file swapped for a FIFO between a stat() and an open() (or a stat() that lies): only
    # fstat() on the open descriptor decides.
    path = fifo(tmp_path / "swapped")
    regular = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
    monkeypatch.setattr(os, "stat", lambda *_args, **_kwargs: regular)
    assert is_regular_file(path)  # the look is fooled...
    assert refusal(lambda: read_bytes(path, LIMIT)).kind == "fifo"  # ...the read is not
    assert refusal(lambda: read_head(path, LIMIT)).kind == "fifo"


def test_is_regular_file_only_for_regular_files(tmp_path):
    (tmp_path / "f").write_text("x")
    assert is_regular_file(tmp_path / "f")
    assert not is_regular_file(fifo(tmp_path / "pipe"))
    assert not is_regular_file(zero(tmp_path / "zero"))
    assert not is_regular_file(tmp_path)
    assert not is_regular_file(tmp_path / "missing")
    assert not is_regular_file("nul\0byte")


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0


def test_open_text_gives_the_lines_as_written_and_closes_the_file(tmp_path):
    path = tmp_path / "RECORD"
    path.write_bytes("héllo,1\r\nwörld,2\n".encode() + b"\xff\n")
    before = open_descriptors()
    # Newlines as written (csv needs the CRLF), undecodable bytes replaced, not raised.
    assert quickly(lambda: read_lines(path, LIMIT)) == ["héllo,1\r\n", "wörld,2\n", "\ufffd\n"]
    assert read_lines(path, path.stat().st_size) == read_lines(path, LIMIT)  # exactly at the cap
    assert refusal(lambda: read_lines(path, path.stat().st_size - 1)).kind == "too-big"
    assert refusal(lambda: read_lines(tmp_path / "missing", LIMIT)).kind == "missing"
    assert open_descriptors() == before, "a descriptor was left open"


def test_open_text_stops_a_file_that_grows_past_the_cap_while_it_is_read(tmp_path):
    path = tmp_path / "growing"
    path.write_text("line\n" * 10)
    before = open_descriptors()
    with open_text(path, 60) as lines:            # 50 bytes now: within the cap at open
        assert next(lines) == "line\n"
        with path.open("a") as more:
            more.write("line\n" * 100_000)      # then it grows to half a megabyte
        with pytest.raises(FileRefused) as caught:
            list(lines)
    assert caught.value.kind == "too-big" and caught.value.limit == 60
    assert open_descriptors() == before
