"""ctrl+q quits at once: ``run`` does not wait for a thread worker still busy
(a check of 100,000 GPUs ran on for 8 s after the key); the command line then ends the
process, threads and all (cli.main's os._exit). bench/quit_bench.py measures the real
thing in tmux."""

from __future__ import annotations

import threading

import pytest
from textual.app import App

from rackdesigner.tui import app as designer


def test_run_returns_while_a_thread_worker_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    """No clock: the app quits once its worker has started (a 50 ms timer raced the
    worker's start on a loaded machine), and ``run`` returns while the worker still waits
    for the test to release it (were it awaited, the worker would end on its own after
    two minutes, and the test fail then)."""
    release = threading.Event()
    finished = threading.Event()

    class Busy(App[None]):
        """A stand-in for the designer: a long check in a thread worker, then ctrl+q."""

        def __init__(self, path: str | None, *, sigterm: bool = False) -> None:
            super().__init__()
            self.exit_line = ""

        def on_mount(self) -> None:
            self.run_worker(self._check, thread=True)

        def _check(self) -> None:
            self.call_from_thread(self.exit)  # ctrl+q, with the check under way
            release.wait(120)
            finished.set()

        def run(self, **options: object) -> None:  # type: ignore[override]
            super().run(headless=True, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(designer, "DesignerApp", Busy)
    try:
        assert designer.run(None) == 0
        assert not finished.is_set()  # returned with the worker still at work
    finally:
        release.set()
