"""Functions for a check's child process to run in tests (imported there by name, so they
live in a module of their own, not in a test module)."""

from __future__ import annotations

import os
import time
from typing import Any


def crash(*args: Any) -> None:
    """A child that dies without an answer, as one killed for its memory would."""
    os._exit(3)


def hang(*args: Any) -> None:
    """A child still checking when it is superseded or the app quits."""
    time.sleep(120)


def stderr_target(*args: Any) -> str:
    """Where this process's standard error goes."""
    return os.readlink("/proc/self/fd/2")


def unpicklable(*args: Any) -> object:
    """An answer that cannot be sent back."""
    return lambda: None


def views(analysis: Any) -> dict[str, object]:
    """A fabric job's ``also``: a view's data from the child's analysis."""
    return {"racks": len(analysis.layout.racks)}
