"""Long command-line work shows a bar on stderr, on a terminal only: never in a pipe,
with ``--quiet`` or in CI (``CI=true``). The terminal case runs the command on a pty."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rackdesigner.cli import progress
from rackdesigner.model.progress import each
from tests.conftest import ROOT

LAYOUT = ROOT / "layouts" / "training-128.toml"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR", "TERM")}
    env.update({"TERM": "xterm-256color", "COLUMNS": "160", "LINES": "30"}, **extra)
    return env


def test_a_bar_is_wanted_only_on_a_terminal_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CI", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert progress.wanted(_Terminal())
    assert not progress.wanted(io.StringIO())  # a pipe or a file
    assert not progress.wanted(_Terminal(), quiet=True)
    for value in ("true", "1", "yes"):
        monkeypatch.setenv("CI", value)
        assert not progress.wanted(_Terminal())
    monkeypatch.setenv("CI", "false")
    assert progress.wanted(_Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not progress.wanted(_Terminal())


def test_the_bar_follows_the_core_and_is_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    terminal = _Terminal()
    with progress.bar(stream=terminal) as bar:
        assert bar is not None
        for _ in each(list(range(50)), "drawing racks"):
            time.sleep(0.005)
        deadline = time.monotonic() + 5
        while not bar.shown and time.monotonic() < deadline:
            time.sleep(0.01)
        assert bar.shown
    written = terminal.getvalue()
    assert "drawing racks" in written
    # Nothing in a pipe: not even the escape sequences of an empty bar.
    pipe = io.StringIO()
    with progress.bar(stream=pipe) as none:
        assert none is None
        list(each(list(range(50)), "drawing racks"))
    assert pipe.getvalue() == ""


def test_a_short_run_shows_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    # On a terminal outside CI a bar is wanted; a short run still never draws it.
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    terminal = _Terminal()
    with progress.bar(stream=terminal) as bar:
        progress.report("checking", 0, 0)
    assert bar is not None and not bar.shown
    assert terminal.getvalue() == ""


def _on_a_pty(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run the command with stderr (and stdin) on a pty, stdout in a pipe."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    # 30 lines of 160 columns: room for the bar and a long temporary path.
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 160, 0, 0))
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "rackdesigner", *args],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            cwd=ROOT,
        )
    finally:
        os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child is gone (EIO on Linux)
            break
        if not chunk:
            break
        seen += chunk
    child.stdout.read()  # type: ignore[union-attr]
    code = child.wait(timeout=120)
    os.close(leader)
    return code, seen


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_validate_shows_a_bar_on_a_terminal_and_none_in_a_pipe(tmp_path: Path) -> None:
    # Several copies of a layout: long enough a run for the bar to show.
    files = []
    for n in range(12):
        copy = tmp_path / f"l{n:02}.toml"
        copy.write_bytes(LAYOUT.read_bytes())
        files.append(str(copy))
    args = ["validate", "--quiet", *files]
    env = _environment(RACKDESIGNER_PROGRESS_DELAY="0")
    code, seen = _on_a_pty(args[:1] + args[2:], env)
    assert code == 0, seen
    assert b"checking" in seen and b"/12" in seen, seen
    # --quiet on the same terminal: no bar.
    code, seen = _on_a_pty(args, env)
    assert code == 0 and b"checking" not in seen, seen
    # CI on the same terminal: no bar.
    code, seen = _on_a_pty(args[:1] + args[2:], {**env, "CI": "true"})
    assert code == 0 and b"checking" not in seen, seen
    # A pipe: no bar (the plain line a long multi-file run prints once a second stays).
    piped = subprocess.run(
        [sys.executable, "-m", "rackdesigner", *args[:1], *args[2:]],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert piped.returncode == 0, piped.stderr
    assert b"\x1b" not in piped.stderr and b"checking" not in piped.stderr, piped.stderr
    assert all(line.startswith(b"rackdesigner: checked ") for line in piped.stderr.splitlines())
