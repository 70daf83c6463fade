"""`new` at 32 to 8,192 GPUs, every fabric and cooling: parts that exist, no threshold
written, transceivers in the BOM, no errors. The halls of 1,024 GPUs and more build for
seconds each: they run in the slow step."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.reach import speed_band
from rackdesigner.check.engine import check
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.export.tables import bom_rows

COOLING = ("air", "liquid", "rear-door")
CASES = [
    pytest.param(gpus, fabric, marks=pytest.mark.slow) if gpus >= 1024 else (gpus, fabric)
    for gpus in (32, 256, 1024, 2048, 8192)
    for fabric in ("rail", "leaf-spine", "dragonfly")
    if not (fabric == "leaf-spine" and gpus >= 8192)  # beyond one tier of 64-port leaves
] + [(16, "direct")]  # direct cables one or two nodes


@pytest.mark.parametrize("cooling", COOLING)
@pytest.mark.parametrize(("gpus", "fabric"), CASES)
def test_new_cables_with_parts_that_exist(gpus: int, fabric: str, cooling: str) -> None:
    built = build(NewOptions(gpus=gpus, fabric=fabric, cooling=cooling))
    layout = built.layout
    analysis = Analysis(layout)
    fast_aoc = [
        link.link
        for link in analysis.links
        if link.link.media == "aoc" and speed_band(link.speed) == "400G+"
    ]
    assert fast_aoc == []
    # never a threshold the user did not ask for
    assert layout.rules is None or not layout.rules.thresholds
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    # the summary says how many runs exceed cable_max (the header names the rule, not a
    # figure an edit makes stale); CAB001 warns as many
    long_runs = sum(1 for d in diagnostics if d.code == "CAB001")
    assert long_runs == built.plan.long_runs
    assert "Cables: " in (layout.comment or "")
    fibre = sum(1 for link in analysis.links if link.link.media in ("mmf", "smf"))
    optics = sum(row[4] for row in bom_rows(analysis) if row[0] == "optic")
    assert (optics > 0) == (fibre > 0)
    if gpus >= 256:
        assert optics > 0
