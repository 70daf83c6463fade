"""(v1.4) A work order names the route of each cable to fix (``route`` in its JSON and CSV),
so the technician knows which trays to follow."""

from __future__ import annotations

import csv
import io
import json

from rackdesigner.analysis import Analysis
from rackdesigner.asbuilt import design_of
from rackdesigner.asbuilt.compare import Finding
from rackdesigner.asbuilt.report import CSV_COLUMNS, render
from rackdesigner.asbuilt.routes import add_routes
from rackdesigner.layout_io.reader import load_path
from tests.asbuilt.helpers import TRAINING
from tests.conftest import ROOT

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"


def test_each_cable_a_finding_names_gets_its_route() -> None:
    """The example (docs/cable-plant.md): the node's cable a01 -> a02 lies in tray-a; the
    leaf-to-spine channel's cords are inside their racks (no vertical manager declared) and
    its trunk runs tray-a > cross-0 > tray-b; a swapped pair names both cables' routes."""
    analysis = Analysis(load_path(EXAMPLE))
    design = design_of(analysis, "infiniband")
    ends = {cable.id: cable.a for cable in design.cables}
    missing = Finding("missing", "m", ends["a01-n01:ib1"], "a01-n01:ib1")
    channel = Finding("miswired", "w", ends["a02-leaf1:p33"], "a02-leaf1:p33")
    swapped = Finding("swapped", "s", ends["a01-n01:ib2"], "a01-n01:ib2", other="a02-leaf1:p34")
    extra = Finding("extra", "e", ends["a01-n01:ib3"])
    findings = [missing, channel, swapped, extra]
    add_routes(analysis, design, findings)
    assert missing.route == "tray-a"
    assert channel.route == "tray-a > cross-0 > tray-b"
    assert swapped.route == "tray-a; tray-a > cross-0 > tray-b"
    assert extra.route == ""
    rows = list(csv.reader(io.StringIO(render(findings, "csv", len(design.cables)))))
    assert rows[0] == list(CSV_COLUMNS) and "route" in rows[0]
    at = rows[0].index("route")
    assert [row[at] for row in rows[1:]] == [f.route for f in findings]
    as_json = json.loads(render(findings, "json", len(design.cables)))
    assert as_json["findings"][1]["route"] == "tray-a > cross-0 > tray-b"
    text = render(findings, "text", len(design.cables))
    assert "(route: tray-a > cross-0 > tray-b)" in text


def test_no_route_where_the_layout_declares_no_pathway() -> None:
    """training-128's cables inside a rack have no pathway; a layout without pathways gets
    an empty route (its cables follow the rows), never a made-up one."""
    layout = load_path(TRAINING)
    layout.pathways = []
    analysis = Analysis(layout)
    design = design_of(analysis, "infiniband")
    cable = design.cables[0]
    finding = Finding("missing", "m", cable.a, cable.id)
    add_routes(analysis, design, [finding])
    assert finding.route == ""
