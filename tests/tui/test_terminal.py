"""The designer in a real terminal: tmux runs ``rackdesigner edit``, we send keys and read
the screen. Skipped where tmux is not installed (CI needs the ``tmux`` package for it)."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT, rackdesigner_command

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Terminal:
    def __init__(self, command: list[str], cwd: Path, width: int, height: int) -> None:
        self.socket = f"rackdesigner-test-{uuid.uuid4().hex[:8]}"
        self.name = "designer"
        done = cwd / "exit-code"
        line = " ".join(f"'{part}'" for part in command)
        script = f"{line}; echo $? > '{done}'; sleep 30"
        self.done = done
        self.tmux(
            "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
            "-c", str(cwd), "bash", "--norc", "--noprofile", "-c", script,
        )  # fmt: skip

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20
        )
        return result.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-t", self.name, "-p")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def escape(self, until_gone: str) -> None:
        """Escape, then wait until ``until_gone`` has left the screen: a terminal's escape
        is also the start of a key sequence, and a key sent before the app has read it
        alone could join it (a fixed pause of 0.4 s stood for that, which a loaded machine
        can outlast)."""
        self.keys("Escape")
        deadline = time.monotonic() + 30.0
        while until_gone in self.screen():
            if time.monotonic() > deadline:
                raise AssertionError(f"{until_gone!r} stayed; the screen:\n{self.screen()}")
            time.sleep(0.05)

    def exit_code(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.done.exists() and self.done.read_text().strip():
                return int(self.done.read_text())
            time.sleep(0.1)
        raise AssertionError(f"the app did not exit; the screen:\n{self.screen()}")

    def close(self) -> None:
        self.tmux("kill-server")


def test_open_look_refuse_a_bad_value_and_quit_with_unsaved_changes(tmp_path: Path) -> None:
    layout = tmp_path / "finetune-8gpu.toml"
    shutil.copy(ROOT / "layouts" / "finetune-8gpu.toml", layout)
    original = layout.read_bytes()
    terminal = Terminal([*rackdesigner_command(), "edit", layout.name], tmp_path, 80, 24)
    try:
        screen = terminal.wait_for("GPUs")
        assert "Row A" in screen and "a01" in screen
        assert "Problems" in screen
        # Help is built from the action registry.
        terminal.keys("?")
        terminal.wait_for("rackdesigner · keys")
        terminal.escape(until_gone="rackdesigner · keys")
        # A wrong unit in the inspector: refused inline, with the loader's message.
        terminal.keys("Enter")  # the device under the cursor; its id field has the focus
        terminal.wait_for("back to racks")
        # Keys one step at a time, as a person types them.
        for step in (["Tab"], ["Tab"], ["End"], ["C-u"], ["3 V"], ["Enter"]):
            terminal.keys(*step)
            time.sleep(0.3)
        terminal.wait_for("✖ position must be")
        terminal.escape(until_gone="✖ position must be")  # undo the typing
        terminal.keys("Delete")  # a change, so quitting asks
        terminal.wait_for("unsaved")
        terminal.keys("C-q")
        terminal.wait_for("has unsaved changes")
        terminal.keys("BTab")  # Save, [Discard], Cancel: Cancel is focused, shift+tab back
        time.sleep(0.3)
        terminal.keys("Enter")
        assert terminal.exit_code() == 0
    finally:
        terminal.close()
    assert layout.read_bytes() == original
