"""Rear doors are air-to-water coils: their heat goes to the chilled water, apart from the
CDU loops' liquid heat."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text
from rackdesigner.report.report import build, to_csv, to_text

LAYOUT = """format = 1
name = "doors"

[[racks]]
id = "a01"
cooling = "rear-door"
door = "a01-door"

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-door"
model = "rear-door-hx"

[[racks]]
id = "a02"
cooling = "liquid"
cdu = "a02-cdu"

[[racks.devices]]
id = "a02-n01"
model = "sys-421ge-tnhr2-lcc"
position = 2

[[racks.devices]]
id = "a02-cdu"
model = "coolit-chx80"
position = 10
"""


def test_the_rear_doors_heat_goes_to_chilled_water_apart_from_the_cdus() -> None:
    report = build(Analysis(load_text(LAYOUT)))
    site = report["cooling"]["site"]
    door = 10.2e3 + 1e3  # the DGX H100 and the door's own fans
    assert site["door_heat"] == pytest.approx(door)
    assert site["liquid_heat"] == pytest.approx(9e3 * 0.7)  # the cold plates only
    a01, a02 = report["cooling"]["racks"]
    assert (a01["liquid_heat"], a01["door_heat"], a01["air_heat"]) == pytest.approx(
        (0.0, door, 0.0)
    )
    assert a02["door_heat"] == 0.0
    (cdu,) = report["cooling"]["cdus"]
    assert cdu["load"] == pytest.approx(9e3 * 0.7)
    text = to_text(report)
    assert "6.3 kW to liquid, 11.2 kW to chilled water (rear doors)" in text
    assert "rear door" in text.split("Cooling:")[1].splitlines()[1]
    assert "cooling,rack a01,door_heat,11200.0,W" in to_csv(report)


def test_a_rear_door_rack_naming_a_cdu_does_not_load_it_with_the_door_s_heat() -> None:
    text = LAYOUT.replace('door = "a01-door"', 'door = "a01-door"\ncdu = "a02-cdu"')
    analysis = Analysis(load_text(text))
    (load,) = analysis.cdu_loads
    assert load.heat == pytest.approx(9e3 * 0.7)


def test_without_rear_doors_the_cooling_lines_are_as_before() -> None:
    text = LAYOUT.split('[[racks]]\nid = "a02"')[0].replace(
        'cooling = "rear-door"\ndoor = "a01-door"', 'cooling = "air"'
    )
    cooling = to_text(build(Analysis(load_text(text)))).split("Cooling:")[1]
    assert "chilled water" not in cooling and "rear door" not in cooling.splitlines()[1]
