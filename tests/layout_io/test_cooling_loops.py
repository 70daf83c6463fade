"""(v1.4) The liquid loop in the format: [[cooling.loops]] and the liquid keys load, write
back byte for byte, and bad input is one clear message with its line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.layout_io.reader import load_text
from rackdesigner.layout_io.writer import dumps
from rackdesigner.model.diagnostics import LayoutError
from tests.strategies import examples

GOOD = """format = 1
name = "loops"

[catalog.my-cdu]
kind = "cdu"
height = "4 U"
capacity_table = [["3 K", "500 kW"], ["5 K", "750 kW"]]
pump_flow = "1200 L/min"
pump_pressure = "35 psi"
coolant = "pg25"
max_return_temperature = "50 °C"
capacity = "750 kW"

[[racks]]
id = "r01"
cooling = "liquid"
cdu = "c1"
door = "r01-door"

[[racks.devices]]
id = "r01-door"
model = "rear-door-hx"

[[racks]]
id = "c01"

[[racks.devices]]
id = "c1"
model = "my-cdu"
position = 1
supply_setpoint = "36 °C"

[[cooling.loops]]
id = "fws-1"
ashrae_class = "W32"
supply_temperature = "30 °C"
capacity = "1 MW"
flow = "1500 L/min"
devices = ["c1"]

[[cooling.loops]]
id = "chw-1"
kind = "chilled"
supply_temperature = "18 °C"
devices = ["r01-door"]
"""


def test_loops_load_and_write_back_byte_for_byte() -> None:
    """The canonical form: loops after the racks whose devices they list."""
    layout = load_text(GOOD)
    fws, chw = layout.cooling_loops
    assert (fws.supply, fws.capacity, fws.flow, fws.devices) == (30.0, 1e6, 0.025, ["c1"])
    assert chw.loop_kind == "chilled" and chw.supply == 18.0
    assert layout.catalog["my-cdu"].capacity_table == [(3.0, 500e3), (5.0, 750e3)]
    assert dumps(layout) == GOOD


def test_a_class_alone_is_judged_at_its_warmest() -> None:
    layout = load_text(GOOD.replace('supply_temperature = "30 °C"\n', "", 1))
    assert layout.cooling_loops[0].supply == 32.0  # W32: 32 °C at most


def _errors(text: str) -> list[tuple[int, str, str]]:
    with pytest.raises(LayoutError) as raised:
        load_text(text, file="x.toml")
    return [(d.line, d.code, d.message) for d in raised.value.diagnostics]


@pytest.mark.parametrize(
    ("old", "new", "line", "code", "message"),
    [
        ('devices = ["c1"]', 'devices = ["c2"]', 39, "E001", 'lists "c2", which names no device'),
        (
            'devices = ["c1"]',
            'devices = ["c1", "c1"]',
            39,
            "E001",
            'lists "c1", which is listed twice',
        ),
        (
            'devices = ["r01-door"]',
            'devices = ["r01-door", "c1"]',
            45,
            "E001",
            'lists "c1", which is listed by loop fws-1 too',
        ),
        ('supply_temperature = "30 °C"', 'supply_temperature = "30 kW"', 36, "E002", "is a power"),
        ('supply_temperature = "30 °C"', "supply_temperature = 30", 36, "E002", "has no unit"),
        (
            'supply_temperature = "30 °C"',
            'supply_temperature = "130 °C"',
            36,
            "E002",
            "not a plausible coolant temperature",
        ),
        (
            'supply_temperature = "30 °C"',
            'supply_temperature = "35 °C"',
            36,
            "E001",
            "warmer than its class W32",
        ),
        (
            '[["3 K", "500 kW"], ["5 K", "750 kW"]]',
            '[["3 K", "800 kW"], ["5 K", "750 kW"]]',
            7,
            "E001",
            "is not monotonic",
        ),
        (
            '[["3 K", "500 kW"], ["5 K", "750 kW"]]',
            '[["5 K", "500 kW"], ["3 K", "750 kW"]]',
            7,
            "E001",
            "is not in order",
        ),
        ('supply_setpoint = "36 °C"', 'supply_setpoint = "36 °C"\nfeed = "x"', 0, "E001", ""),
    ],
)
def test_bad_input_is_one_message_with_its_line(
    old: str, new: str, line: int, code: str, message: str
) -> None:
    """A CDU on an unknown loop, a device two loops list, temperatures in the wrong unit, without
    one or out of the range any coolant is liquid in (-10 to 100 °C), a supply warmer than
    its class, a capacity table that falls or is out of order: one message each, at the line of
    the key (the feed case: a second, older load error, to show the loop's need not mask it)."""
    found = _errors(GOOD.replace(old, new, 1))
    if not message:
        assert found and all(c == "E001" for _, c, _ in found)
        return
    assert [(ln, c) for ln, c, m in found if message in m] == [(line, code)], found


def test_a_setpoint_on_anything_but_a_cdu_and_a_loop_without_temperature() -> None:
    text = GOOD.replace(
        'id = "r01-door"\nmodel = "rear-door-hx"',
        'id = "r01-door"\nmodel = "rear-door-hx"\nsupply_setpoint = "20 °C"',
    ).replace('kind = "chilled"\nsupply_temperature = "18 °C"\n', 'kind = "chilled"\n')
    found = _errors(text)
    assert any("supply_setpoint is a key of CDUs only" in m for _, _, m in found)
    assert any("gives no temperature" in m for _, _, m in found)


@given(
    supply=st.integers(min_value=2, max_value=45),
    capacity=st.integers(min_value=1, max_value=5000),
    flow=st.integers(min_value=1, max_value=20000),
)
@settings(max_examples=examples(30))
def test_loops_round_trip(supply: int, capacity: int, flow: int) -> None:
    text = (
        GOOD.replace('"30 °C"', f'"{supply} °C"', 1)
        .replace('capacity = "1 MW"', f'capacity = "{capacity} kW"')
        .replace('flow = "1500 L/min"', f'flow = "{flow} L/min"')
        .replace('ashrae_class = "W32"\n', "")
    )
    layout = load_text(text)
    assert dumps(layout) == text
    again = load_text(dumps(layout))
    assert again.cooling_loops == layout.cooling_loops
