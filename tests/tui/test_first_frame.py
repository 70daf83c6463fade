"""What the designer imports before its first frame (issue 23: first paint ≤ 2.5 × a bare
Textual app). The dialogs opened later, the as-built check, the exporters and networkx
are imported when first used; ``bench/tui.py`` measures the paint."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
import rackdesigner.tui.app
print(" ".join(sorted(sys.modules)))
"""

# Modules the first frame does not need, each imported by what first uses it.
LATER = (
    "networkx",
    "rackdesigner.asbuilt",
    "rackdesigner.tui.overlays",
    "rackdesigner.tui.screens.connect",
    "rackdesigner.tui.screens.export",
    "rackdesigner.tui.screens.fabric",
    "rackdesigner.tui.screens.template",
    "rackdesigner.tui.screens.verify",
    "rackdesigner.export.registry",
    "rackdesigner.design.generators",
)


@pytest.mark.slow
def test_the_app_module_imports_nothing_the_first_frame_does_not_need() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.split()
    assert "rackdesigner.tui.main_screen" in loaded  # the probe imported the app
    assert [m for m in loaded if m.startswith(LATER)] == []
