"""(v1.4) The designer's Generate fabric chooses its cables' media by their routes along the
layout's pathways, as ``new`` does (design/cable_plant.plan_by_route), without changing the
layout it previews against."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.reach import STRAIGHT, MediaChooser
from rackdesigner.design.cable_plant import plan_by_route
from rackdesigner.design.generators.base import FabricPlan
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.reader import load_text
from rackdesigner.model.layout import Link

HALL = """
format = 1
name = "detour"

[[racks]]
id = "a05"
row = "A"
slot = 5

[[racks.devices]]
id = "a05-leaf1"
model = "qm9700"
position = 41

[[racks]]
id = "b05"
row = "B"
slot = 5

[[racks.devices]]
id = "b05-spine1"
model = "qm9700"
position = 41

# The rows' trays meet at slot 0 only: a cable between the two racks goes round.
[[pathways]]
id = "tray-a"
row = "A"
slots = [0, 6]
width = "100 mm"
depth = "100 mm"

[[pathways]]
id = "tray-b"
row = "B"
slots = [0, 6]
width = "100 mm"
depth = "100 mm"

[[pathways]]
id = "cross-0"
rows = ["A", "B"]
slot = 0
width = "100 mm"
depth = "100 mm"
"""


def test_a_plan_cable_takes_the_medium_its_route_needs() -> None:
    """Leaf a05 (U41) to spine b05 (U41), the next row, same slot. Ports at (41 - 1 + 0.5)
    x 44.45 mm = 1.800225 m; the drop to the tray 1.8669 - 1.800225 + 0.3 = 0.366675 m.
    By the rows: 0.366675 + 2.4 + 0.366675 + 0.5 slack = 3.63 m; along the trays, round by
    slot 0: 3.0 + 2.4 + 3.0 = 8.4 m, so 0.73335 + 8.4 + 0.5 = 9.63 m, which the medium
    chosen for 3.63 m does not reach."""
    layout = load_text(HALL)
    before = dumps(layout)
    chooser = MediaChooser(400e9, {}, STRAIGHT, "infiniband")
    first = chooser(3.63335)
    link = Link("a05-leaf1:p1", "b05-spine1:p1", media=first)
    plan = FabricPlan("test", links=[link])
    changed = plan_by_route(layout, plan)
    routed = chooser(9.63335)
    assert first != routed and routed is not None
    assert changed == 1 and link.media == routed
    assert dumps(layout) == before  # previewed against, never changed
    assert plan.notes[-1] == (
        "1 cable took another medium: its route along the pathways is longer than its first "
        "medium reaches"
    )
    assert plan.long_runs == 1 and plan.longest is not None
    assert plan.longest[1] == pytest.approx(9.63335, abs=1e-4)
    # the long runs said again by the route, the generator's row-and-slot line replaced
    assert plan.notes[0] == (
        "1 of 1 cables run longer than 5 m (the longest, a05-leaf1:p1 -> b05-spine1:p1, "
        "9.6 m): CAB001 warns, about 5 ns of latency per metre"
    )


def test_without_pathways_the_plan_is_left_as_chosen() -> None:
    layout = load_text(HALL.partition("# The rows'")[0])
    link = Link("a05-leaf1:p1", "b05-spine1:p1", media="acc")
    plan = FabricPlan("test", links=[link])
    assert plan_by_route(layout, plan) == 0 and link.media == "acc" and plan.notes == []
