"""Cooling rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.edit import Session, SetField
from rackdesigner.layout_io.document import load, loads
from rackdesigner.rules.registry import all_rules
from tests.builders import HEADER, findings, rack_text
from tests.conftest import ROOT

# Nodes with cold plates taking 80 % of their heat (v1.1: types without liquid_fraction have
# none), drawing what a DGX H100 and a DGX B200 draw.
LC_H100 = (
    '[catalog.lc-h100]\nkind = "gpu-node"\nheight = "8 U"\npower = "10.2 kW"\n'
    'gpu = "h100-sxm"\ngpus = 8\nliquid_fraction = 0.8\n\n'
)
LC_B200 = (
    '[catalog.lc-b200]\nkind = "gpu-node"\nheight = "10 U"\npower = "14.3 kW"\n'
    'gpu = "b200"\ngpus = 8\nliquid_fraction = 0.8\n\n'
)


def _rack(rid: str, slot: int, cooling: str, models: list[str], extra: str = "") -> str:
    """A rack in row A cooled by ``cooling``, ``extra`` a line under its header."""
    return rack_text(rid, models, slot, cooling=cooling, extra=f"{extra}\n" if extra else "")


def test_cool004_many_gpus_without_immersion_is_noted_once_at_first_gpu_rack() -> None:
    text = "[rules.thresholds]\nimmersion_min_gpus = 16\n\n"
    text += _rack("s01", 1, "air", ["qm9700"])
    text += _rack("a01", 2, "liquid", ["dgx-h100", "dgx-h100"], 'cdu = "cdu-1"')
    text += _rack("a02", 3, "liquid", ["dgx-h100"], 'cdu = "cdu-1"')
    text += _rack("c01", 4, "air", ["coolit-chx750"])
    text = text.replace('id = "c01-d1"', 'id = "cdu-1"')
    found = findings("COOL004", text)
    assert [(d.entity, d.severity) for d in found] == [("rack a01", "info")]
    assert "24 GPUs, more than the 16" in found[0].message
    assert found[0].values == {"gpus": 24.0, "threshold": 16.0}


def test_cool004_silent_at_the_threshold() -> None:
    text = "[rules.thresholds]\nimmersion_min_gpus = 16\n\n"
    text += _rack("t01", 1, "immersion", ["sys-821ge-tnhr", "sys-821ge-tnhr"])
    assert findings("COOL004", text) == []  # 16 GPUs with immersion: not fewer than 16
    text = text.replace('"immersion"', '"liquid"')
    assert findings("COOL004", text) == []  # 16 GPUs without: not more than 16


def test_cool001_skips_rear_door_and_immersion_racks() -> None:
    nodes = ["dgx-h100", "dgx-h100", "dgx-h100"]
    text = _rack("r01", 1, "rear-door", nodes)  # no door at all: COOL007's finding
    text += _rack("t01", 2, "immersion", nodes)
    assert findings("COOL001", text) == []
    assert findings("COOL002", text) == []
    assert [d.entity for d in findings("COOL007", text)] == ["rack r01"]


def test_cool001_spread_hint_counts_racks() -> None:
    found = findings("COOL001", _rack("a01", 1, "air", ["dgx-h100"] * 4))
    assert found[0].message == "40.8 kW on air exceeds the 15 kW air-cooling limit"
    assert found[0].hint is not None and found[0].hint.endswith("spread the load over 3 racks")


def test_cool003_one_finding_per_cdu_listing_every_rack() -> None:
    text = '[catalog.coolit-chx750]\ncapacity = "60 kW"\n\n' + LC_H100
    for slot in range(1, 4):
        text += _rack(
            f"a0{slot}", slot, "liquid", ["lc-h100", "lc-h100", "lc-h100"], 'cdu = "cdu-1"'
        )
    text += _rack("c01", 5, "air", ["coolit-chx750"])
    text = text.replace('id = "c01-d1"', 'id = "cdu-1"')
    found = findings("COOL003", text)
    assert [(d.entity, d.line) for d in found] == [("device cdu-1", found[0].line)]
    assert "serves 3 racks (a01, a02, a03) with 73.4 kW" in found[0].message
    assert found[0].values["racks"] == 3.0


def test_cool003_unknown_draw_is_a_lower_bound() -> None:
    text = '[catalog.mystery]\nkind = "gpu-node"\nheight = "4 U"\ngpus = 8\n\n' + LC_B200
    text += _rack("a01", 1, "liquid", ["mystery", "hgx"], 'cdu = "a01-d3"')
    text = text.replace('model = "hgx"', 'model = "lc-b200"')
    text += '[[racks.devices]]\nid = "a01-d3"\nmodel = "coolit-chx80"\nposition = 30\n\n'
    text += _rack("a02", 2, "liquid", ["lc-b200", "lc-b200", "lc-b200"], 'cdu = "a01-d3"')
    text += _rack("a03", 3, "liquid", ["lc-b200", "lc-b200", "lc-b200"], 'cdu = "a01-d3"')
    found = findings("COOL003", text)
    assert len(found) == 1
    assert "with at least 80.1 kW of liquid heat" in found[0].message


def test_cool005_silent_without_training_or_model_size() -> None:
    racks = _rack("a01", 1, "air", ["dgx-h100"])
    assert findings("COOL005", racks) == []
    assert (
        findings("COOL005", '[workload]\nkind = "inference"\nmodel_params = 400e9\n\n' + racks)
        == []
    )
    assert findings("COOL005", '[workload]\nkind = "training"\n\n' + racks) == []
    found = findings(
        "COOL005", '[workload]\nkind = "fine-tuning"\nmodel_params = 100e9\n\n' + racks
    )
    assert [d.entity for d in found] == ["rack a01"]
    assert "fine-tuning of a 100B-parameter model" in found[0].message


def test_cool006_silent_without_cooling_capacity() -> None:
    racks = _rack("a01", 1, "air", ["dgx-h100", "dgx-h100"])
    assert findings("COOL006", racks) == []
    assert findings("COOL006", '[site]\npower_budget = "10 kW"\n\n' + racks) == []


def test_cool007_door_in_another_rack_counts_and_unknown_capacity_is_silent() -> None:
    text = '[catalog.door-x]\nkind = "rear-door"\nheight = "0 U"\n\n'
    text += _rack("r01", 1, "rear-door", ["dgx-h100"], 'door = "r01-door"')
    text += '[[racks.devices]]\nid = "r01-door"\nmodel = "door-x"\n\n'
    assert findings("COOL007", text) == []


# -- v1.3: a liquid rack's rear door takes its residual air heat ----------------------------------

# Two cold-plate B200 nodes leave 2 x 14.3 kW x 0.2 = 5.72 kW in the air; the in-rack CDU
# (1.5 kW) and two air-only 2 kW boxes make it 11.22 kW; a 20 kW switch load takes it over.
HOT = '[catalog.hot-box]\nkind = "switch"\nheight = "1 U"\npower = "10 kW"\n\n'


def _liquid(door: str = "", door_capacity: str | None = None) -> str:
    text = LC_B200 + HOT
    if door_capacity is not None:
        text += f'[catalog.rear-door-hx]\ncapacity = "{door_capacity}"\n\n'
    text += _rack(
        "l01", 1, "liquid", ["lc-b200", "lc-b200", "hot-box", "hot-box"], f'cdu = "cdu"\n{door}'
    )
    text += '[[racks.devices]]\nid = "cdu"\nmodel = "coolit-chx80"\nposition = 38\n\n'
    if door:
        text += '[[racks.devices]]\nid = "l01-door"\nmodel = "rear-door-hx"\n\n'
    return text


def test_a_liquid_racks_door_takes_its_residual_air_heat() -> None:
    # Without a door: 5.72 + 20 + 1.5 = 27.22 kW of residual air heat on a 15 kW limit.
    (over,) = findings("COOL001", _liquid())
    assert over.values["air_heat"] == pytest.approx(27.22e3)
    assert "rear door" not in over.message
    with_door = _liquid('door = "l01-door"\n')
    assert findings("COOL001", with_door) == []
    assert findings("COOL007", with_door) == []
    rack = Analysis(loads(HEADER + with_door).layout).racks[0]
    # The door's own 1 kW of fans is air heat its coil takes too.
    assert rack.door_heat == pytest.approx(28.22e3)
    assert rack.air_heat == 0.0
    # The CDU carries the cold plates' share only; the door's goes to chilled water.
    assert rack.loop_heat == pytest.approx(2 * 14.3e3 * 0.8)


def test_what_a_liquid_racks_door_cannot_take_is_cool001s() -> None:
    text = _liquid('door = "l01-door"\n', door_capacity="10 kW")
    (over,) = findings("COOL001", text)
    assert over.values["air_heat"] == pytest.approx(18.22e3)
    assert "rear door l01-door 10 kW" in over.message
    assert findings("COOL007", text) == []  # the door is a door: its excess is COOL001's


def test_a_liquid_rack_whose_door_is_no_door_is_cool007() -> None:
    text = _liquid('door = "cdu"\n')
    (wrong,) = findings("COOL007", text)
    assert "names a cdu" in wrong.message
    # Without a door a liquid rack is no business of COOL007's.
    assert findings("COOL007", _liquid()) == []


# -- COOL008 / COOL001: cold plates only where a type has them -------------------------------------


def test_an_air_only_dgx_in_a_liquid_rack_sends_all_its_heat_to_the_room() -> None:
    text = (
        '[[racks]]\nid = "a01"\ncooling = "liquid"\ncdu = "cdu"\n\n'
        '[[racks.devices]]\nid = "n1"\nmodel = "dgx-h100"\nposition = 2\n\n'
        '[[racks.devices]]\nid = "cdu"\nmodel = "coolit-chx80"\nposition = 20\n'
    )
    (found,) = findings("COOL008", text)
    assert found.entity == "device n1"
    analysis = Analysis(loads(HEADER + text).layout)
    rack = analysis.racks[0]
    assert rack.liquid_heat == 0.0  # v1 sent 80 % of it into the CDU
    assert rack.air_heat == pytest.approx(10.2e3 + 1.5e3)


def test_cool001_offers_direct_to_chip_liquid_only_for_nodes_with_cold_plates() -> None:
    def rack(model: str) -> str:
        return "".join(
            f'[[racks.devices]]\nid = "n{i}"\nmodel = "{model}"\nposition = {2 + 8 * i}\n\n'
            for i in range(2)
        )

    (air_only,) = findings("COOL001", '[[racks]]\nid = "a01"\n\n' + rack("dgx-h100"))
    assert air_only.hint is not None
    assert "direct-to-chip" not in air_only.hint and "rear-door" in air_only.hint
    text = '[[racks]]\nid = "a01"\n\n' + rack("sys-421ge-tnhr2-lcc")
    # two liquid-ready nodes on air: 18 kW
    (cold_plates,) = findings("COOL001", text)
    assert cold_plates.hint is not None and "direct-to-chip" in cold_plates.hint


# -- site rules under a rack edit: only those reading the edited field run again -------------------


# The rules over the whole hall (CDU groups, room air, duplicate ids, the site budget) cost
# about 55 ms per run on 100,000 GPUs. Running all of them after a rack's cooling changes
# made that edit 110 ms in the designer. These tests hold the narrower re-check to a full one.


def _session(name: str) -> Session:
    session = Session(load(ROOT / "layouts" / name))
    session.findings  # noqa: B018 - the first check
    return session


def _full(session: Session) -> list[tuple[str, str, str]]:
    _, found = check(session.layout, file=session.path or "")
    return sorted((d.code, d.entity, d.message) for d in found if not d.code.startswith("NET"))


def _now(session: Session) -> list[tuple[str, str, str]]:
    return sorted(
        (d.code, d.entity, d.message) for d in session.findings if not d.code.startswith("NET")
    )


@pytest.mark.parametrize(
    ("rack", "key", "text"),
    [
        ("c01", "cooling", "liquid"),  # COOL001 goes, COOL003 comes (no CDU named)
        ("c02", "cdu", "c02-cdu"),  # COOL003 goes
        ("c03", "door", ""),
        ("c04", "cooling", "air"),  # the immersion tank's COOL004, COOL006's room air
        ("c01", "label", "west"),
        ("c02", "ignore", "COOL"),  # every rule's findings about the rack
    ],
)
def test_a_rack_edit_gives_the_findings_of_a_full_check(rack: str, key: str, text: str) -> None:
    session = _session("problems/cooling.toml")
    session.do(SetField(("rack", rack), key, text), fabric=False)
    assert _now(session) == _full(session)
    session.undo(fabric=False)
    assert _now(session) == _full(session)


def test_a_label_edit_runs_no_site_rule_a_cooling_edit_only_those_reading_cooling() -> None:
    session = _session("problems/cooling.toml")
    checker = session.checker
    before = dict(checker._site)
    session.do(SetField(("rack", "c01"), "label", "west"), fabric=False)
    session.findings  # noqa: B018
    assert all(checker._site[code] is found for code, found in before.items())
    before = dict(checker._site)
    session.do(SetField(("rack", "c01"), "cooling", "liquid"), fabric=False)
    session.findings  # noqa: B018
    rules = all_rules()
    again = {code for code, found in before.items() if checker._site[code] is not found}
    reading = {
        code for code in before if rules[code].reads is None or "rack.cooling" in rules[code].reads
    }
    assert again <= reading
    assert "PWR003" not in again and "PLC005" not in again


def test_cool004_counts_are_grouped_in_thousands() -> None:
    """Counts read as people write them, grouped in thousands: two 8-GPU nodes (16 GPUs)
    in an immersion rack under a threshold of 1500 fire, "fewer than the 1,500 GPUs"
    (the message printed "1500" before)."""
    text = "[rules.thresholds]\nimmersion_min_gpus = 1500\n\n"
    text += _rack("t01", 1, "immersion", ["sys-821ge-tnhr", "sys-821ge-tnhr"])
    found = findings("COOL004", text)
    assert len(found) == 1 and "fewer than the 1,500 GPUs" in found[0].message
