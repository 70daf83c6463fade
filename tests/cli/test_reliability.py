"""Nothing lost, nothing injected: the command line against devices, FIFOs,
signals, full disks, broken links, hostile strings and mutated layouts."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import random
import re
import signal
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.cli.main import cli
from rackdesigner.layout_io import saving
from tests.conftest import ROOT, rackdesigner_command
from tests.processes import console, one_line
from tests.strategies import examples

CLEAN = ROOT / "layouts" / "finetune-8gpu.toml"
BUNDLED = sorted((ROOT / "layouts").glob("*.toml"))
runner = CliRunner()
posix = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and signals are POSIX")


def is_char_device(path: str) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


# -- 1. devices and FIFOs as outputs -----------------------------------------------------------


@posix
@pytest.mark.slow
def test_dev_full_and_dev_null_stay_devices() -> None:
    for args in (
        ["validate", str(CLEAN), "--format", "json", "-o", "/dev/full"],
        ["export", str(CLEAN), "--toml", "/dev/full"],
        ["export", str(CLEAN), "--cables", "/dev/full"],
    ):
        result = console(*args)
        assert result.returncode == 2, result
        assert one_line(result.stderr) == (
            "rackdesigner: cannot write /dev/full: No space left on device"
        )
    result = console("export", str(CLEAN), "--cables", "/dev/null", "--toml", "/dev/null")
    assert result.returncode == 2  # two options naming one file are refused
    assert console("export", str(CLEAN), "--cables", "/dev/null").returncode == 0
    assert console("validate", str(CLEAN), "-o", "/dev/null").returncode == 0
    assert is_char_device("/dev/full") and is_char_device("/dev/null")


@posix
@pytest.mark.slow
def test_a_fifo_output_streams_to_its_reader(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    result = console("export", str(CLEAN), "--cables", str(fifo))
    reader.join(30)
    assert result.returncode == 0, result
    assert (got and got[0].startswith(b"cable,")) or got[0].count(b"\n") > 1, got
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout")
@pytest.mark.slow
def test_dev_stdout_into_a_pipe() -> None:
    result = console("validate", str(CLEAN), "--format", "json", "-o", "/dev/stdout")
    assert result.returncode == 0, result
    assert result.stdout.lstrip().startswith("{") and result.stderr == ""
    result = console("export", str(CLEAN), "--toml", "/dev/stdout")
    assert result.returncode == 0 and "format = 1" in result.stdout


# -- 5. SIGTERM --------------------------------------------------------------------------------


@posix
@pytest.mark.slow
def test_sigterm_while_reading_exits_143_in_one_line(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [*rackdesigner_command(), "validate", "-", "-o", str(tmp_path / "out.json")],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        os.write(write_end, CLEAN.read_bytes()[:40])
        # Once the command has read what is in the pipe it runs and waits for more.
        deadline = time.monotonic() + 30
        while struct.unpack("i", fcntl.ioctl(read_end, termios.FIONREAD, b"\0" * 4))[0]:
            assert time.monotonic() < deadline, "the command never read its input"
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        os.close(read_end)
        os.close(write_end)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, stderr
    assert stdout == b"" and stderr.decode().strip() == "rackdesigner: terminated (SIGTERM)"
    assert list(tmp_path.iterdir()) == []


# Slows every fsync so that the write phase is long enough to be hit.
_SLOW_WRITES = """
import os, sys, time
fsync = os.fsync
def slow(fd):
    time.sleep(0.05)
    fsync(fd)
os.fsync = slow
sys.argv = ["rackdesigner", *sys.argv[1:]]
from rackdesigner.cli.main import main
main()
"""


@posix
@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_multi_file_export_leaves_nothing(
    tmp_path: Path, signum: int, code: int
) -> None:
    out = tmp_path / "out"
    keep = tmp_path / "bom.csv"
    keep.write_text("yesterday's\n")
    process = subprocess.Popen(
        [
            *(sys.executable, "-c", _SLOW_WRITES, "export"),
            str(ROOT / "layouts" / "training-128.toml"),
            *("--svg-dir", str(out), "--cables", str(tmp_path / "c.csv"), "--bom", str(keep)),
        ],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        while not (out.is_dir() and any(out.iterdir())):  # the write phase has begun
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.01)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code, stderr
    message = stderr.decode().strip()
    assert len(message.splitlines()) == 1 and "nothing was written" in message, message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bom.csv"]  # no out/, no c.csv
    assert keep.read_text() == "yesterday's\n"


# -- 6. a full disk half way -------------------------------------------------------------------


def test_a_full_disk_during_an_export_removes_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage = saving._stage
    calls = 0

    def full(target: Path, folder: Path, data: bytes, **kwargs: object) -> str:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return stage(target, folder, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(saving, "_stage", full)
    svg = tmp_path / "svg"
    layout = ROOT / "layouts" / "inference-32-b200.toml"
    result = runner.invoke(cli, ["export", str(layout), "--svg-dir", str(svg)])
    assert result.exit_code == 2, result.output
    line = one_line(result.stderr)
    assert line.startswith(f"rackdesigner: cannot write {svg}")
    assert line.endswith("No space left on device; nothing was written (of 2 files)"), line
    assert list(tmp_path.iterdir()) == []


# -- 7, 8. broken links and click's usage block ------------------------------------------------


def test_broken_links_in_a_folder_are_findings(tmp_path: Path) -> None:
    (tmp_path / "ok.toml").write_text(CLEAN.read_text())
    (tmp_path / "dangling.toml").symlink_to(tmp_path / "missing.toml")
    (tmp_path / "loop.toml").symlink_to(tmp_path / "loop.toml")
    result = runner.invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    out = result.stdout
    assert f"{tmp_path / 'dangling.toml'}:1: error E000" in out
    assert f"{tmp_path / 'loop.toml'}:1: error E000" in out
    assert "in 3 files" in out


def test_unreadable_layouts_and_a_file_for_svg_dir_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text(CLEAN.read_text())
    real_access = os.access

    def unreadable(path: object, mode: int, *args: object, **kw: object) -> bool:
        if str(path) == str(layout) and mode & os.R_OK:
            return False
        return real_access(path, mode, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", unreadable)  # as root, what click would have asked
    cables = str(tmp_path / "c.csv")
    for command in (["report", str(layout)], ["export", str(layout), "--cables", cables]):
        result = runner.invoke(cli, command)
        assert "Usage:" not in result.output and "Usage:" not in result.stderr, result.output
    monkeypatch.setattr(os, "access", real_access)
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    result = runner.invoke(cli, ["export", str(layout), "--svg-dir", str(a_file)])
    assert result.exit_code == 2
    assert one_line(result.stderr) == f"rackdesigner: cannot write {a_file}: Not a directory"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_layout_for_report_is_one_line_for_real(tmp_path: Path) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text(CLEAN.read_text())
    layout.chmod(0)
    result = runner.invoke(cli, ["report", str(layout)])
    assert result.exit_code == 2
    assert one_line(result.stderr) == f"{layout}:1: error E000 file: cannot read: Permission denied"


# -- 9. a folder that refuses new files --------------------------------------------------------


def test_a_read_only_folder_is_named_not_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(folder: Path, name: str) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))

    monkeypatch.setattr(saving, "make_temporary", refused)  # what mode 555 does to a user
    target = tmp_path / "t4.toml"
    for args in (["export", str(CLEAN), "--toml", str(target)], ["report", str(CLEAN), "-o"]):
        result = runner.invoke(cli, [*args, str(target)] if args[-1] == "-o" else args)
        assert result.exit_code == 2
        assert one_line(result.stderr) == (
            f"rackdesigner: cannot write {target}: Permission denied: the folder {tmp_path} "
            "does not allow new files"
        )


# -- 2, 10. hostile strings --------------------------------------------------------------------

HOSTILE_NAME = "EVIL\u001b[31mRED\u001b]0;pwned\u0007\u202eTXET"


def test_a_hostile_layout_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    text = CLEAN.read_text()
    name_line = next(line for line in text.splitlines() if line.startswith("name ="))
    hostile = text.replace(name_line, f"name = {json.dumps(HOSTILE_NAME)}")
    hostile = hostile.replace('cooling = "air"', 'cooling = "air\\u200b"', 1)
    layout = tmp_path / "hostile.toml"
    layout.write_text(hostile)
    result = runner.invoke(cli, ["validate", str(layout)])
    assert result.exit_code == 2
    assert "got \"air\\u200b\" (did you mean 'air'?)" in result.stdout
    assert "\u200b" not in result.stdout
    layout.write_text(hostile.replace('"air\\u200b"', '"air"'))
    report = runner.invoke(cli, ["report", str(layout)])
    assert report.exit_code == 0, report.output
    assert "EVIL\\x1b[31mRED\\x1b]0;pwned\\x07\\u202eTXET" in report.stdout
    assert not set("\x1b\x07\u202e") & set(report.stdout)
    exact = runner.invoke(cli, ["report", str(layout), "--format", "json"])
    assert json.loads(exact.stdout)["layout"] == HOSTILE_NAME  # the data kept exact


# -- 11. implausible numbers -------------------------------------------------------------------


def test_implausible_numbers_are_e002(tmp_path: Path) -> None:
    text = CLEAN.read_text()
    layout = tmp_path / "big.toml"
    layout.write_text(re.sub(r"(?m)^bytes_per_param = .*$", "bytes_per_param = 1e308", text))
    result = runner.invoke(cli, ["validate", str(layout)])
    assert result.exit_code == 2
    assert "error E002 [workload]: bytes_per_param 1e+308 is implausible" in result.stdout


# -- the fuzz: mutated bundled layouts never crash -------------------------------------------

_HOSTILE = [
    "1e308",
    "-1e308",
    "1e26",
    "nan",
    "inf",
    '"\\u001b[31m"',
    '"\\u202e"',
    '"\\u200b"',
    '""',
    "[]",
    "{}",
    '"1e26 A"',
    '"-5 m"',
    "99999999999999999",
    "true",
]


def _mutate(text: str, choices: list[int]) -> str:
    lines = text.splitlines()
    rng = random.Random(choices[0])
    for choice in choices[1:]:
        if not lines:
            break
        where = rng.randrange(len(lines))
        action = choice % 4
        if action == 0:
            del lines[where]
        elif action == 1:
            lines.insert(where, lines[rng.randrange(len(lines))])
        elif action == 2 and "=" in lines[where]:
            key = lines[where].split("=", 1)[0]
            lines[where] = f"{key}= {_HOSTILE[choice % len(_HOSTILE)]}"
        else:
            cut = rng.randrange(len(lines[where]) + 1)
            lines[where] = lines[where][:cut] + chr(rng.choice([0x1B, 0x202E, 0x200B, 0x22]))
    return "\n".join(lines) + "\n"


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    layout=st.sampled_from([p for p in BUNDLED if p.stat().st_size < 20_000]),
    choices=st.lists(st.integers(0, 2**16), min_size=2, max_size=6),
)
def test_mutated_layouts_never_crash(layout: Path, choices: list[int]) -> None:
    """Bounded (60 mutations of the small bundled layouts, about 2 s): every one is a
    finding, a load error or a report; never an exception."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.check.engine import check_file
    from rackdesigner.layout_io.document import loads
    from rackdesigner.model.diagnostics import LayoutError
    from rackdesigner.report.report import build, to_text

    text = _mutate(layout.read_text(), choices)
    result = check_file(layout.name, text=text)
    assert all(d.code for d in result.diagnostics)
    try:
        document = loads(text, file=layout.name)
    except LayoutError:
        return
    to_text(build(Analysis(document.layout, file=layout.name), "hostfile"))


def test_a_table_for_a_link_media_is_a_finding_not_a_crash() -> None:
    """Found by the fuzz: ``media = {}`` on a link reached a set look-up (unhashable)."""
    text = (ROOT / "layouts" / "training-128.toml").read_text()
    result = runner.invoke(
        cli, ["validate", "-"], input=text.replace('media = "', "media = {} #", 1)
    )
    assert result.exit_code == 2 and "E001" in result.stdout, result.output
