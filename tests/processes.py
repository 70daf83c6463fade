"""Processes in tests: the console script run as users run it, its one line of standard
error, and whether a process has ended. A test that calls :func:`console` starts a process
and is marked slow (tests/conftest.py, ``STARTERS``)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.conftest import rackdesigner_command


def console(
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """The installed console script in a process of its own, as users and CI run it: no
    colour, its output captured, ended within ``timeout`` seconds; a traceback or an
    internal error fails the test."""
    result = subprocess.run(
        [*rackdesigner_command(), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        input=stdin,
        timeout=timeout,
        **options,
    )
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result
    return result


def one_line(stderr: str) -> str:
    """A process's one line of standard error (the test fails on more or none)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` has ended within ``within`` seconds (a zombie not yet reaped
    counts as ended)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False
