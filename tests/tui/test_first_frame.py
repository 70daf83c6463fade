"""What the designer imports before its first frame (first paint ≤ 2.5 × a bare Textual
app, ``bench/tui.py``). The check (the edit layer's checker, the engine, the rules, the
analysis), the guidance and fixes, every dialog, the exporters, networkx and every view
but the racks are imported when first used.

Views join :data:`rackdesigner.tui.views.VIEWS`, which makes each one when it is first
shown; a view's widget module is named ``*_view.py`` (the power chain, a liquid loop, the
storage, the cable plant alike), and every such module but the racks view's is kept out of
the first frame here, whether or not it has joined the list (a view composed with the
screen would be in the first frame: the second test says which list it must join)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rackdesigner.tui.views import FIRST, VIEWS
from tests.conftest import ROOT

PROBE = """
import sys
from rackdesigner.tui.app import DesignerApp
DesignerApp(None, keymap_file=None)  # the screen and its controllers, made
print(" ".join(sorted(sys.modules)))
"""

# Modules the first frame does not need, each imported by what first uses it.
LATER = (
    "networkx",
    "rackdesigner.analysis",
    "rackdesigner.asbuilt",
    "rackdesigner.check.engine",
    "rackdesigner.design.facts_text",
    "rackdesigner.design.fixes",
    "rackdesigner.design.generators",
    "rackdesigner.design.guidance",
    "rackdesigner.edit",
    "rackdesigner.export.registry",
    "rackdesigner.rules",
    "rackdesigner.tui.overlays",
    "rackdesigner.tui.screens.",  # every dialog, the loading and busy screens too
)

WIDGETS = ROOT / "rackdesigner" / "tui" / "widgets"


def later_views() -> tuple[str, ...]:
    """The modules of every view but the first: the registered ones, and any ``*_view``
    widget module (a view added later is kept out even before it joins the list)."""
    named = {f"rackdesigner.tui.widgets.{p.stem}" for p in WIDGETS.glob("*_view.py")}
    first = {FIRST.module, "rackdesigner.tui.widgets.racks_view"}
    return tuple(sorted(({v.module for v in VIEWS} | named) - first))


@pytest.mark.slow
def test_the_app_imports_nothing_the_first_frame_does_not_need() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.split()
    assert "rackdesigner.tui.main_screen" in loaded  # the probe made the app
    assert "rackdesigner.tui.widgets.floor_view" in later_views()
    kept_out = (*LATER, *later_views())
    assert [m for m in loaded if m == "networkx" or m.startswith(kept_out)] == []


def test_every_view_widget_is_made_through_the_list_of_views() -> None:
    """A ``*_view`` widget module that is not in ``views.VIEWS`` is a view composed some
    other way: it must join the list, which makes it when it is first shown."""
    registered = {v.module for v in VIEWS}
    composed = {f"rackdesigner.tui.widgets.{p.stem}" for p in WIDGETS.glob("*_view.py")}
    # The racks view is the first one's base class (racks_mouse.BuildingRacksView).
    assert composed - registered - {"rackdesigner.tui.widgets.racks_view"} == set()
    assert FIRST.name == "racks" and len({v.name for v in VIEWS}) == len(VIEWS)
