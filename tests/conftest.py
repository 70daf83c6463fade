from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def root() -> Path:
    return ROOT


def rackdesigner_command() -> list[str]:
    """The installed console script, run the way users run it."""
    script = Path(sys.executable).with_name("rackdesigner")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rackdesigner"]
