"""ctrl+q quits at once (issue 23): ``run`` does not wait for a thread worker still busy
(a check of 100,000 GPUs ran on for 8 s after the key); the command line then ends the
process, threads and all (cli.main's os._exit). bench/quit_bench.py measures the real
thing in tmux."""

from __future__ import annotations

import threading
import time

import pytest
from textual.app import App

from rackdesigner.tui import app as designer


def test_run_returns_while_a_thread_worker_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    started = threading.Event()

    class Busy(App[None]):
        """A stand-in for the designer: a long check in a thread worker, then ctrl+q."""

        def __init__(self, path: str | None, *, sigterm: bool = False) -> None:
            super().__init__()
            self.exit_line = ""

        def on_mount(self) -> None:
            self.run_worker(self._check, thread=True)
            self.set_timer(0.05, self.exit)

        def _check(self) -> None:
            started.set()
            release.wait(30)

        def run(self, **options: object) -> None:  # type: ignore[override]
            super().run(headless=True, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(designer, "DesignerApp", Busy)
    began = time.perf_counter()
    try:
        assert designer.run(None) == 0
        took = time.perf_counter() - began
        assert started.is_set() and not release.is_set()
        assert took < 10, took  # the worker would hold it 30 s
    finally:
        release.set()
