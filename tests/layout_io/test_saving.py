"""Saving that never loses work: streams are not replaced, a multi-file write is
all or nothing, the changed-on-disk guard checks again before the rename, two savers take
turns, and a folder that refuses new files is named."""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from rackdesigner.layout_io import document as document_module
from rackdesigner.layout_io import saving
from rackdesigner.layout_io.document import FileChangedError, load, save
from rackdesigner.layout_io.saving import (
    SaveError,
    save_lock,
    streams,
    write_all,
    write_atomic,
)
from tests.layout_io.test_reader import BASE

posix = pytest.mark.skipif(os.name != "posix", reason="FIFOs and devices are POSIX")


# -- 1. devices and FIFOs are written, never replaced ------------------------------------------


@posix
def test_a_character_device_is_written_not_replaced() -> None:
    assert streams("/dev/null") and streams("/dev/full") and streams("/dev/stdout")
    write_atomic(Path("/dev/null"), b"gone\n")
    with pytest.raises(OSError) as raised:
        write_atomic(Path("/dev/full"), b"no room\n")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == "/dev/full"
    for device in ("/dev/null", "/dev/full"):
        assert stat.S_ISCHR(os.stat(device).st_mode), device


@posix
def test_a_fifo_gets_the_bytes_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"a,b\n1,2\n")
    reader.join(10)
    assert got == [b"a,b\n1,2\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]  # no temporary beside it


def test_a_regular_file_and_a_new_path_are_still_atomic(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text("old\n")
    assert not streams(old) and not streams(tmp_path / "new.txt")
    inode = old.stat().st_ino
    write_atomic(old, b"new\n")
    assert old.read_text() == "new\n" and old.stat().st_ino != inode  # replaced by rename


# -- 3. the changed-on-disk guard --------------------------------------------------------------


def test_an_edit_between_the_check_and_the_write_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    document = load(path)
    edited = BASE.replace('"test"', '"someone else"')

    def someone_saves() -> None:  # lands after the first check, before the rename
        path.write_text(edited)

    monkeypatch.setattr(document_module, "_between_check_and_write", someone_saves)
    with pytest.raises(FileChangedError, match="changed on disk"):
        save(document)
    assert path.read_text() == edited
    assert sorted(p.name for p in tmp_path.iterdir()) == ["layout.toml"]


def test_the_last_check_runs_after_the_data_is_on_disk(tmp_path: Path) -> None:
    """``before_replace`` runs just before the rename: raising there keeps the target."""
    target = tmp_path / "t.txt"
    target.write_text("mine\n")
    order: list[str] = []

    def check() -> None:
        order.append("check")
        raise FileChangedError(str(target))

    original = os.fsync

    def fsync(fd: int) -> None:
        order.append("fsync")
        original(fd)

    try:
        os.fsync = fsync  # type: ignore[assignment]
        with pytest.raises(FileChangedError):
            write_atomic(target, b"theirs\n", before_replace=check)
    finally:
        os.fsync = original  # type: ignore[assignment]
    assert order[:2] == ["fsync", "check"]
    assert target.read_text() == "mine\n" and len(list(tmp_path.iterdir())) == 1


@pytest.mark.skipif(saving.fcntl is None, reason="no advisory locks here")
def test_two_savers_take_turns_and_the_second_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    first, second = load(path), load(path)
    second.layout.name = "second"
    outcome: list[BaseException | None] = []

    def save_second() -> None:
        try:
            save(second)
            outcome.append(None)
        except BaseException as error:  # the thread reports what it got
            outcome.append(error)

    with save_lock(path):
        thread = threading.Thread(target=save_second)
        thread.start()
        time.sleep(0.2)
        assert not outcome  # waiting for the lock
        first.layout.name = "first"
        save(first, force=True)  # the holder saves (force: it holds the lock already)
    thread.join(10)
    assert isinstance(outcome[0], FileChangedError)
    assert 'name = "first"' in path.read_text()


@pytest.mark.skipif(saving.fcntl is None, reason="no advisory locks here")
def test_a_lock_held_too_long_is_one_clear_refusal(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    failures: list[BaseException] = []

    def other() -> None:
        try:
            with save_lock(path, timeout=0.1):
                pass
        except SaveError as error:
            failures.append(error)

    with save_lock(path):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(10)
    assert failures and "being saved by another rackdesigner" in str(failures[0])


# -- 6. several files: all or none this run created --------------------------------------------


def test_a_failure_half_way_removes_what_this_run_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tmp_path / "out" / "a00.svg"
    before.parent.mkdir()
    before.write_text("from yesterday\n")
    files = [(tmp_path / "out" / f"a{n:02}.svg", b"<svg/>") for n in range(6)]
    real_stage = saving._stage
    calls = 0

    def disk_full(target: Path, folder: Path, data: bytes, **kwargs: object) -> str:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_stage(target, folder, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(saving, "_stage", disk_full)
    with pytest.raises(OSError) as raised:
        write_all(files, make_folders=True)
    assert raised.value.__notes__ == ["nothing was written (of 6 files)"]
    assert sorted(p.name for p in before.parent.iterdir()) == ["a00.svg"]
    assert before.read_text() == "from yesterday\n"


def test_an_interruption_during_the_renames_removes_the_new_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "new" / "old.csv"
    files = [(old, b"1\n"), (tmp_path / "new" / "b.csv", b"2\n"), (tmp_path / "c.csv", b"3\n")]
    old.parent.mkdir()
    old.write_text("0\n")
    real_replace = os.replace
    calls = 0

    def interrupted(source: str, target: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt) as raised:
        write_all(files, make_folders=True)
    assert raised.value.__notes__ == [
        "the 1 new file it had written was removed; 1 file that existed before was already replaced"
    ]
    assert sorted(p.name for p in old.parent.iterdir()) == ["old.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new"]


def test_folders_this_run_made_go_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError) as raised:
        write_all([(tmp_path / "x" / "y" / "a.svg", b"1")], make_folders=True)
    assert raised.value.filename == str(tmp_path / "x" / "y" / "a.svg")
    assert list(tmp_path.iterdir()) == []


# -- 9. a folder that refuses new files is named -----------------------------------------------


def test_a_folder_refusing_new_files_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root a mode-555 folder is writable: the refusal comes through the test hook."""
    target = tmp_path / "t4.toml"
    target.write_text("old\n")

    def refused(folder: Path, name: str, claimed: object = None) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))

    monkeypatch.setattr(saving, "make_temporary", refused)
    with pytest.raises(PermissionError) as raised:
        write_atomic(target, b"new\n")
    assert raised.value.filename == str(target)
    assert f"the folder {tmp_path} does not allow new files" in str(raised.value.strerror)
    assert target.read_text() == "old\n"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_is_named_for_real(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "t4.toml").write_text("old\n")
    folder.chmod(0o555)
    try:
        with pytest.raises(PermissionError) as raised:
            write_atomic(folder / "t4.toml", b"new\n")
        assert f"the folder {folder}" in str(raised.value.strerror)
    finally:
        folder.chmod(0o755)


def test_an_interruption_inside_making_a_temporary_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C right after the temporary's file is made, before its maker returns (the
    window ``tempfile.mkstemp`` had): the file was named first, so it is removed, and
    so is the folder the run made (CI saw an ``out/`` left behind)."""
    real_open = os.open
    opened = 0

    def interrupted(path: str, flags: int, mode: int = 0o777) -> int:
        nonlocal opened
        handle = real_open(path, flags, mode)
        if path.endswith(".tmp"):
            opened += 1
            if opened == 3:
                os.close(handle)
                raise KeyboardInterrupt
        return handle

    monkeypatch.setattr(saving.os, "open", interrupted)
    files = [(tmp_path / "out" / f"a{n}.svg", b"<svg/>") for n in range(5)]
    with pytest.raises(KeyboardInterrupt):
        write_all(files, make_folders=True)
    assert list(tmp_path.iterdir()) == []
