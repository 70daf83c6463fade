"""The designer's views (the view bar, keys 1-5): which widget shows each one.

Only the racks view is in the first frame; every other view's module is imported, and its
widget made, when the view is first shown (the first frame waits for every module imported
before it: first paint ≤ 2.5 × a bare Textual app, ``bench/tui.py``). A new view (the
power chain, a liquid loop, the storage, the cable plant) is one more entry in
:data:`VIEWS`, with its key in ``actions.py``; ``tests/tui/test_first_frame.py`` keeps
every entry but the first out of the first frame's imports.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widget import Widget


@dataclass(frozen=True)
class View:
    name: str  # the widget's id and the action's argument: view('floor')
    title: str  # on the view bar, with its key
    module: str  # where its widget is, imported when it is first shown
    widget: str  # the widget's class in that module
    side: bool = False  # the inspector and the catalog stay beside it

    def make(self, **options: Any) -> Widget:
        """A new widget of this view (its module imported now)."""
        widget_class = getattr(importlib.import_module(self.module), self.widget)
        made: Widget = widget_class(id=self.name, **options)
        return made


VIEWS = (
    View("racks", "1 Racks", "rackdesigner.tui.widgets.racks_mouse", "BuildingRacksView", True),
    View("floor", "2 Floor", "rackdesigner.tui.widgets.floor_view", "FloorView", True),
    View("topology", "3 Topology", "rackdesigner.tui.widgets.topology_view", "TopologyView"),
    View("summary", "4 Summary", "rackdesigner.tui.widgets.summary_view", "SummaryView"),
    View("power", "5 Power", "rackdesigner.tui.widgets.power_view", "PowerView"),
)
NAMES = tuple(view.name for view in VIEWS)
BY_NAME = {view.name: view for view in VIEWS}
FIRST = VIEWS[0]  # on screen from the first frame
