"""SIGTERM to a running designer: like Ctrl-C on the command line, it autosaves
the unsaved edit, restores the terminal and exits 143 with one line. tmux runs
``rackdesigner edit``; skipped where tmux is not installed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from rackdesigner.layout_io import load_path
from rackdesigner.tui import autosave as sidecar
from tests.conftest import ROOT, rackdesigner_command

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_sigterm_autosaves_restores_the_terminal_and_exits_143(tmp_path: Path) -> None:
    layout = tmp_path / "finetune-8gpu.toml"
    shutil.copy(ROOT / "layouts" / "finetune-8gpu.toml", layout)
    original = layout.read_bytes()
    socket = f"rackdesigner-test-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "exit-code"
    line = " ".join(f"'{part}'" for part in [*rackdesigner_command(), "edit", layout.name])

    def tmux(*args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20
        )
        return result.stdout

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            screen = tmux("capture-pane", "-t", "designer", "-p", "-J")  # -J: lines unwrapped
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared:\n{screen}")

    tmux(
        "new-session", "-d", "-s", "designer", "-x", "80", "-y", "24", "-c", str(tmp_path),
        "bash", "--norc", "--noprofile", "-c", f"{line}; echo $? > '{done}'; sleep 30",
    )  # fmt: skip
    try:
        wait_for("GPUs")
        tmux("send-keys", "-t", "designer", "Delete")  # the device under the cursor
        wait_for("unsaved")
        shell = int(tmux("display", "-p", "-t", "designer", "#{pane_pid}").strip())
        children = subprocess.run(
            ["pgrep", "-P", str(shell)], capture_output=True, text=True
        ).stdout.split()
        designer = next(int(pid) for pid in children if "sleep" not in _command(int(pid)))
        os.kill(designer, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while not (done.exists() and done.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.read_text().strip() == "143"
        screen = wait_for("terminated")
        said = [text for text in screen.splitlines() if text.strip()]
        kept = sidecar.sidecar(layout.name)  # as the path was given
        assert said == [f"rackdesigner: terminated (SIGTERM); unsaved changes kept in {kept}"], said
        # The terminal is itself again: no alternate screen, no mouse reporting.
        state = tmux("display", "-p", "-t", "designer", "#{alternate_on} #{mouse_any_flag}")
        assert state.split() == ["0", "0"]
    finally:
        tmux("kill-server")
    assert layout.read_bytes() == original  # the file as it was; the edit is in the sidecar
    before = load_path(ROOT / "layouts" / "finetune-8gpu.toml")
    after = load_path(sidecar.sidecar(layout))
    count = sum(len(rack.devices) for rack in before.racks)
    assert sum(len(rack.devices) for rack in after.racks) == count - 1


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""
