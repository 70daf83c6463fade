"""PWR014 (a PDU and its feed disagree) and PWR015 (a feed current that is no standard rating)
beyond their fixtures: PDUs placed by order, tap-offs, PDU types without inlet ratings, the
circuit table itself and the keys v1.2 adds."""

from __future__ import annotations

import pytest

from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.catalog import builtin, circuits, standard_circuits
from tests.builders import HEADER, feed, feeds_line, findings


def _rack(feeds: list[str], pdus: list[tuple[str, str | None]], catalog: str = "") -> str:
    """One rack a01 with ``feeds`` (inline tables) and PDUs (model, feed or None)."""
    text = catalog + '[[racks]]\nid = "a01"\nrow = "A"\nslot = 1\n' + feeds_line(*feeds)
    for index, (model, feed_id) in enumerate(pdus, 1):
        text += f'\n[[racks.devices]]\nid = "a01-pdu{index}"\nmodel = "{model}"\n'
        if feed_id:
            text += f'feed = "{feed_id}"\n'
    return text


def _feed(fid: str, current: str, voltage: str = "415 V", **keys: object) -> str:
    """A 3-phase feed on a circuit of its own, ``C-<id>``."""
    return feed(fid, voltage, 3, current, circuit=f"C-{fid}", **keys)


def test_pdus_without_a_feed_key_go_over_the_feeds_in_order() -> None:
    # The second PDU lands on a01-B (40 A): its 32 A plug is below that breaker.
    text = _rack(
        [_feed("a01-A", "32 A"), _feed("a01-B", "40 A")],
        [("pdu-3ph-415v-32a", None), ("pdu-3ph-415v-32a", None)],
    )
    found = findings("PWR014", text)
    assert [(d.entity, d.values["breaker"]) for d in found] == [("device a01-pdu2", 40.0)]


def test_three_pdus_on_one_circuit_are_one_finding_on_the_feed() -> None:
    text = _rack([_feed("a01-A", "63 A")], [("pdu-3ph-415v-63a", "a01-A")] * 3)
    found = findings("PWR014", text)
    assert [d.entity for d in found] == ["rack a01 feed a01-A"]
    assert found[0].values["pdus"] == 3.0
    assert "a01-pdu1, a01-pdu2 and a01-pdu3" in found[0].message
    assert "tap_off = true" in (found[0].hint or "")


def test_a_busway_tap_off_takes_several_pdus_but_still_checks_each_plug() -> None:
    text = _rack(
        [_feed("a01-A", "63 A", tap_off=True)],
        [("pdu-3ph-415v-63a", "a01-A"), ("pdu-3ph-415v-32a", "a01-A")],
    )
    found = findings("PWR014", text)
    assert [d.entity for d in found] == ["device a01-pdu2"]  # 32 A plug on a 63 A tap


def test_a_pdu_type_without_inlet_ratings_is_not_judged_on_them() -> None:
    catalog = '[catalog.my-pdu]\nkind = "pdu"\nheight = "0 U"\ncapacity = "10 kW"\n\n'
    text = _rack([_feed("a01-A", "125 A", voltage="480 V")], [("my-pdu", "a01-A")], catalog)
    assert findings("PWR014", text) == []


def test_a_single_voltage_inlet_is_worded_as_one_voltage() -> None:
    text = _rack([_feed("a01-A", "60 A")], [("pdu-3ph-480v-60a", "a01-A")])
    (finding,) = findings("PWR014", text)
    assert "takes 480 V at its inlet, not the 415 V 3-phase of feed a01-A" in finding.message


def test_pwr010_does_not_read_a_pdus_inlet_voltage() -> None:
    # A 380-415 V PDU on 240 V outlets: its input_voltage is its inlet's, not a PSU's.
    text = _rack([_feed("a01-A", "32 A")], [("pdu-3ph-415v-32a", "a01-A")])
    assert findings("PWR010", text) == []


def test_every_generated_size_and_every_catalog_pdu_is_standard_for_its_supply() -> None:
    for key, dtype in builtin().devices.items():
        if dtype.kind != "pdu":
            continue
        assert dtype.input_voltage is not None and dtype.input_current is not None, key
        _low, high = dtype.input_voltage
        phases = 1 if "-1ph-" in key else 3
        row = standard_circuits(float(high), phases)
        assert row is not None and row.standard(float(dtype.input_current)), key


@pytest.mark.parametrize(
    ("voltage", "phases", "region", "currents"),
    [
        (415.0, 3, "IEC", (16.0, 32.0, 63.0, 125.0)),
        (400.0, 3, "IEC", (16.0, 32.0, 63.0, 125.0)),
        (230.0, 1, "IEC", (16.0, 32.0, 63.0, 125.0)),
        (208.0, 3, "North America", (20.0, 30.0, 50.0, 60.0, 100.0)),
        (480.0, 3, "North America", (20.0, 30.0, 60.0, 100.0)),
        (208.0, 1, "North America", (20.0, 30.0, 50.0)),
    ],
)
def test_the_circuit_table(voltage: float, phases: int, region: str, currents: tuple) -> None:
    row = standard_circuits(voltage, phases)
    assert row is not None
    assert (row.region, row.currents) == (region, currents)
    assert row.source


def test_a_supply_the_table_does_not_name_is_not_judged() -> None:
    assert standard_circuits(200.0, 3) is None
    assert standard_circuits(415.0, 1) is None
    assert all(row.source and row.plugs for row in circuits())
    text = _rack([_feed("a01-A", "40 A", voltage="200 V")], [])
    assert findings("PWR015", text) == []


def test_pwr015_above_the_largest_standard_rating_names_none_larger() -> None:
    (finding,) = findings("PWR015", _rack([_feed("a01-A", "200 A")], []))
    assert "none is larger" in (finding.hint or "")
    assert "next" not in finding.values


def test_tap_off_and_input_current_load_and_round_trip() -> None:
    text = HEADER + (
        '\n[catalog.my-pdu]\nkind = "pdu"\nheight = "0 U"\ninput_current = "32 A"\n\n'
        + _rack([_feed("a01-A", "32 A", tap_off=True)], [("my-pdu", "a01-A")])
    )
    layout = load_text(text)
    assert layout.racks[0].feeds[0].tap_off is True
    assert layout.catalog["my-pdu"].input_current == 32.0
    again = dumps(layout)
    assert "tap_off = true" in again and 'input_current = "32 A"' in again
    assert load_text(again) == layout


def test_a_v11_feed_without_tap_off_writes_no_new_key() -> None:
    layout = load_text(HEADER + _rack([_feed("a01-A", "32 A")], []))
    assert layout.racks[0].feeds[0].tap_off is None
    assert "tap_off" not in dumps(layout)
