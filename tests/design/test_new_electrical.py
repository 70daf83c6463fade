"""`rackdesigner new` writes feeds that can be ordered and built: every
feed a standard circuit for its region, exactly one PDU on it whose plug is rated for the
breaker, and a layout that validates without errors; 480 V is refused with the reason."""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.generators import GenerateError
from rackdesigner.design.templates import NewOptions, build, circuit_sizes
from rackdesigner.layout_io.catalog import builtin, for_layout, standard_circuits

# `direct` cables two nodes at most (16 GPUs), below every size here; the templates test
# covers it (small).
FABRICS = ("rail", "leaf-spine", "dragonfly")
COOLING = ("air", "liquid", "rear-door")
# A refusal about the fabric, not power: one tier of spines closes at 2,048 node ports.
FABRIC_LIMITS = ("leaf-spine: ",)


def _cases() -> list[object]:
    out: list[object] = []
    for gpus in (32, 256, 1024, 2048, 8192):
        marks = [pytest.mark.slow] if gpus >= 1024 else []  # seconds each: the slow step
        for fabric in FABRICS:
            for cooling in COOLING:
                out.append(pytest.param(gpus, fabric, cooling, marks=marks))
    return out


def _assert_buildable(options: NewOptions) -> None:
    try:
        built = build(options)
    except GenerateError as error:
        if str(error).startswith(FABRIC_LIMITS):
            pytest.skip(f"the fabric cannot be built: {error}")
        raise
    layout = built.layout
    devices = for_layout(layout).devices
    for rack in layout.racks:
        pdus = [d for d in rack.devices if devices[d.model].kind == "pdu"]
        assert rack.feeds, rack.id
        assert len(pdus) == len(rack.feeds), rack.id
        for feed in rack.feeds:
            row = standard_circuits(float(feed.voltage or 0.0), feed.phases)
            assert row is not None and row.standard(float(feed.current or 0.0)), feed
            on = [d for d in pdus if d.feed == feed.id]
            assert len(on) == 1, (feed.id, [d.id for d in on])
            dtype = devices[on[0].model]
            assert dtype.input_current == feed.current, (feed.id, dtype.key)
            low, high = dtype.input_voltage or (0.0, 0.0)
            assert low <= float(feed.voltage or 0.0) <= high, (feed.id, dtype.key)
            assert not feed.tap_off and feed.outlet_voltage is None
    _, diagnostics = check(layout)
    errors = [f"{d.code} {d.entity}: {d.message}" for d in diagnostics if d.severity == "error"]
    assert errors == []
    assert not [d for d in diagnostics if d.code in ("PWR014", "PWR015")]


@pytest.mark.parametrize(("gpus", "fabric", "cooling"), _cases())
def test_new_writes_standard_circuits_with_one_matching_pdu(
    gpus: int, fabric: str, cooling: str
) -> None:
    _assert_buildable(NewOptions(gpus=gpus, fabric=fabric, cooling=cooling))


@pytest.mark.parametrize("cooling", COOLING)
def test_208v_north_american_feeds(cooling: str) -> None:
    _assert_buildable(
        NewOptions(gpus=64, voltage=208.0, voltage_text="208 V", phases=3, cooling=cooling)
    )


@pytest.mark.parametrize("template", ["small", "medium", "large", "training-128", "inference-32"])
def test_templates(template: str) -> None:
    _assert_buildable(NewOptions(template=template))


def test_480v_is_refused_with_the_reason() -> None:
    with pytest.raises(GenerateError) as caught:
        build(NewOptions(gpus=64, voltage=480.0, voltage_text="480 V", phases=3))
    message = str(caught.value)
    assert "277 V outlets" in message and "200-240 V" in message
    assert "no rack PDU steps down" in message and "--voltage 415V" in message


def test_a_supply_without_a_standard_circuit_or_pdu_is_refused() -> None:
    with pytest.raises(GenerateError, match="no standard circuit table names this supply"):
        build(NewOptions(gpus=64, voltage=200.0, voltage_text="200 V", phases=3))
    with pytest.raises(GenerateError, match="no PDU for a standard IEC circuit"):
        build(NewOptions(gpus=64, voltage=230.0, voltage_text="230 V", phases=1))


def test_circuit_sizes_are_the_standard_ratings_a_catalog_pdu_is_made_for() -> None:
    catalog = builtin()
    assert [(c.current, c.pdu) for c in circuit_sizes(catalog, 415.0, 3)] == [
        (16, "pdu-3ph-415v-16a"),
        (32, "pdu-3ph-415v-32a"),
        (63, "pdu-3ph-415v-63a"),
    ]
    assert [c.current for c in circuit_sizes(catalog, 208.0, 3)] == [30, 50, 60]
    # A circuit carries the smaller of its feed's usable power and its PDU's rating.
    small = circuit_sizes(catalog, 208.0, 3)[0]
    assert small.capacity == pytest.approx(8600.0)


def test_nodes_whose_psus_would_overdraw_their_inlets_get_more_sides() -> None:
    """`new --gpus 64` racks liquid-cooled HGX H100 nodes (sys-421ge-tnhr2-lcc: 9 kW on 4
    PSUs with C20 inlets, 2 needed). On A + B a side lost leaves 2 PSUs at 4.5 kW each,
    4,500 W / 239.6 V = 18.8 A, over a C20's 16 A (PWR030); on four sides 3 are left,
    3 kW each, 12.5 A. So every node rack takes four sides and PWR030 is silent."""
    built = build(NewOptions(gpus=64))
    node_racks = [
        r for r in built.layout.racks if any(d.model == "sys-421ge-tnhr2-lcc" for d in r.devices)
    ]
    assert node_racks
    for rack in node_racks:
        assert sorted({f.side for f in rack.feeds}) == ["A", "B", "C", "D"], rack.id
    _, found = check(built.layout, select=["PWR030", "PWR008"])
    assert found == []
