"""Mechanical fixes per rule: the fix fires, applies as one step, the finding is gone, no
new error appears, and undo gives back the layout exactly; where no fix can be stated
mechanically there is none."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.design.fixes import FIXERS, fix_all, fix_for
from rackdesigner.design.guidance import advise, key_of
from rackdesigner.edit import Session
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import loads
from tests.builders import FEEDS_AB, feed, feeds_line, first, rack_a01, session_of
from tests.design.fixing import apply_and_check, errors
from tests.strategies import examples


def test_every_fixer_is_for_a_known_rule() -> None:
    from rackdesigner.rules.registry import all_rules

    assert set(FIXERS) <= set(all_rules())


# -- COOL001 / COOL002 ----------------------------------------------------------------------------


def test_cool001_two_dgx_h100_on_air_get_a_rear_door() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)]))
    fix = apply_and_check(session, "COOL001")
    assert "rear door a01-door" in fix.label
    session.redo()
    a01 = session.index.rack("a01")
    assert a01 is not None and a01.cooling == "rear-door" and a01.door == "a01-door"
    door = session.index.device("a01-door")
    assert door is not None and door.model == "rear-door-hx"
    assert {d.code for d in session.findings} & {"COOL001", "COOL002", "COOL007"} == set()


def test_cool002_has_the_same_fix() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)]))
    apply_and_check(session, "COOL002")


def test_cool001_names_a_door_already_hanging_on_the_rack() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12), ("rear-door-hx", None)]))
    fix = apply_and_check(session, "COOL001")
    assert fix.label == "Cool rack a01 with its rear door a01-d3"


def test_cool001_too_hot_for_any_door_has_no_fix() -> None:
    # Eight DGX H100: 81.6 kW, beyond a 75 kW door; the feeds are not the point here.
    feeds = feeds_line(feed("a01-F", current="400 A"))
    devices = [("dgx-h100", 1 + 5 * n) for n in range(8)]
    text = rack_a01(devices, extra=feeds).replace('model = "dgx-h100"', 'model = "slim"')
    text += '[catalog.slim]\nkind = "gpu-node"\nheight = "5 U"\npower = "10.2 kW"\n'
    session = session_of(text)
    assert fix_for(session.layout, first(session, "COOL001"), session.index) is None


def test_cool001_on_a_liquid_rack_has_no_mechanical_fix() -> None:
    text = rack_a01([("dgx-b200", 2), ("dgx-b200", 13)], cooling="liquid")
    session = session_of(text)
    assert fix_for(session.layout, first(session, "COOL001"), session.index) is None


def test_cool001_door_drawing_past_the_feeds_is_not_offered() -> None:
    # Two DGX B200 (28.6 kW) on a feed of 28.8 kW: the door's own 1 kW would overload it.
    feeds = feeds_line(feed("a01-F", "400 V", current="52 A"))
    session = session_of(rack_a01([("dgx-b200", 2), ("dgx-b200", 13)], extra=feeds))
    assert not [d for d in session.findings if d.code == "PWR001"]
    assert fix_for(session.layout, first(session, "COOL001"), session.index) is None


# -- COOL007 --------------------------------------------------------------------------------------


def test_cool007_rear_door_rack_without_a_door_gets_one() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)], cooling="rear-door"))
    fix = apply_and_check(session, "COOL007")
    assert "a01-door" in fix.label


def test_cool007_names_the_racks_own_door() -> None:
    text = rack_a01([("dgx-h100", 2), ("rear-door-hx", None)], cooling="rear-door")
    session = session_of(text)
    assert apply_and_check(session, "COOL007").label == "Cool rack a01 with its rear door a01-d2"


def test_cool007_door_too_small_has_no_mechanical_fix() -> None:
    feeds = feeds_line(feed("a01-F", current="400 A"))
    text = rack_a01([("slim", 1 + 5 * n) for n in range(8)] + [("rear-door-hx", None)], extra=feeds)
    text = text.replace('cooling = "air"', 'cooling = "rear-door"\ndoor = "a01-d9"')
    text += '[catalog.slim]\nkind = "gpu-node"\nheight = "5 U"\npower = "10.2 kW"\n'
    session = session_of(text)
    assert fix_for(session.layout, first(session, "COOL007"), session.index) is None


# -- PLC006 ---------------------------------------------------------------------------------------


def test_plc006_a_rack_without_panels_declares_its_blanking() -> None:
    """No panel listed: the fix declares ``blanking = true`` (one field, not 33 devices)."""
    session = session_of(rack_a01([("dgx-h100", 2), ("qm9700", 20)]))
    fix = apply_and_check(session, "PLC006")
    session.redo()
    a01 = session.index.rack("a01")
    assert a01 is not None and a01.blanking is True
    assert not [d for d in a01.devices if d.model.startswith("blank")]
    assert "blanking = true" in fix.label


def test_plc006_open_units_get_blanking_panels_named_as_the_racks_own() -> None:
    """A rack that lists its panels gets more of them: 42 U - 8 (the DGX H100) - 1 (the
    switch) - 1 (a01-blank1, U42) = 32 open units, as 2U and 1U panels. Its panel id is
    unpadded, so the 17 new ones (U9-U19: five 2U and a 1U; U21-U41: ten 2U and a 1U) are
    a01-blank2 … a01-blank18, not a01-blank02: the fix neither renames the panel it keeps
    nor names its own another way."""
    text = rack_a01([("dgx-h100", 2), ("qm9700", 20)])
    text += '[[racks.devices]]\nid = "a01-blank1"\nmodel = "blank-1u"\nposition = 42\n\n'
    session = session_of(text)
    fix = apply_and_check(session, "PLC006")
    session.redo()
    a01 = session.index.rack("a01")
    assert a01 is not None and not a01.blanking
    blanks = {d.id: d for d in a01.devices if d.model.startswith("blank")}
    units = sum(2 if d.model == "blank-2u" else 1 for d in blanks.values())
    assert units == 42 - 8 - 1
    assert "32 open units" in fix.label
    assert blanks["a01-blank1"].position == 42
    assert sorted(blanks, key=lambda k: int(k[9:])) == [f"a01-blank{n}" for n in range(1, 19)]


def test_plc006_on_a_rear_door_rack_does_not_fire_and_liquid_has_no_fix() -> None:
    session = session_of(rack_a01([("dgx-h100", 2)], cooling="liquid"))
    assert [d for d in session.findings if d.code == "PLC006"] == []


# -- PWR001 ---------------------------------------------------------------------------------------


def test_pwr001_a_rack_without_feeds_gets_the_default_two() -> None:
    session = session_of(rack_a01([("dgx-h100", 2)], extra="feeds = []\n"))
    fix = apply_and_check(session, "PWR001")
    assert "a01-A, a01-B" in fix.label
    session.redo()
    feeds = session.index.rack("a01").feeds  # type: ignore[union-attr]
    assert [(f.id, f.side, f.voltage, f.phases, f.current) for f in feeds] == [
        ("a01-A", "A", 415.0, 3, 63.0),
        ("a01-B", "B", 415.0, 3, 63.0),
    ]


def test_pwr001_short_sides_get_a_copy_of_their_feed_each() -> None:
    small = FEEDS_AB.replace('"63 A"', '"32 A"')  # 18.4 kW a side for 20.4 kW
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)], extra=small))
    fix = apply_and_check(session, "PWR001")
    assert fix.label == "Add feeds a01-A2, a01-B2 to rack a01"
    session.redo()
    added = [f for f in session.index.rack("a01").feeds if f.id.endswith("2")]  # type: ignore[union-attr]
    assert all(f.circuit is None and f.current == 32.0 for f in added)


def test_pwr001_unsided_feeds_add_up() -> None:
    one_feed = feeds_line(feed("a01-F", current="32 A"))
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)], extra=one_feed))
    assert apply_and_check(session, "PWR001").label == "Add feed a01-F2 to rack a01"


def test_pwr001_needing_a_new_circuit_has_no_fix() -> None:
    tiny = feeds_line(feed("a01-F", "230 V", 1, "10 A"))
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)], extra=tiny))
    assert fix_for(session.layout, first(session, "PWR001"), session.index) is None


# -- PWR008 ---------------------------------------------------------------------------------------


def test_pwr008_a_dgx_on_two_sides_gets_a_third() -> None:
    session = session_of(rack_a01([("dgx-h100", 2)]))
    fix = apply_and_check(session, "PWR008")
    assert fix.label == "Add side C to rack a01: feed a01-C"


def test_pwr008_with_pdus_adds_a_pdu_on_the_new_side() -> None:
    text = rack_a01([("dgx-h100", 2), ("pdu-3ph-415v-63a", None), ("pdu-3ph-415v-63a", None)])
    text = text.replace(
        'id = "a01-d2"\nmodel', 'id = "a01-d2"\nside = "left"\nfeed = "a01-A"\nmodel'
    )
    text = text.replace(
        'id = "a01-d3"\nmodel', 'id = "a01-d3"\nside = "right"\nfeed = "a01-B"\nmodel'
    )
    session = session_of(text)
    fix = apply_and_check(session, "PWR008")
    assert fix.label == "Add side C to rack a01: feed a01-C and PDU a01-pdu-c"
    session.redo()
    pdu = session.index.device("a01-pdu-c")
    assert pdu is not None and pdu.feed == "a01-C" and pdu.model == "pdu-3ph-415v-63a"


# -- PWR013 ---------------------------------------------------------------------------------------


def test_pwr013_a_feed_without_side_joins_one() -> None:
    feeds = FEEDS_AB.replace("]\n", f"  {feed('a01-X', circuit='C-X')},\n]\n")
    session = session_of(rack_a01([("dgx-h100", 2)], extra=feeds))
    fix = apply_and_check(session, "PWR013")
    assert fix.label.startswith("Put feed a01-X on side ")


# -- none for the rest ----------------------------------------------------------------------------


def test_findings_without_a_fixer_have_no_fix() -> None:
    text = rack_a01([("dgx-b200", 2)], cooling="liquid")  # COOL003 (no CDU), COOL008
    session = session_of(text)
    for code in ("COOL003", "COOL008"):
        assert fix_for(session.layout, first(session, code), session.index) is None


# -- any fix offered keeps its promise ------------------------------------------------------------

MODELS = ["dgx-h100", "dgx-b200", "sys-421ge-tnhr2-lcc", "qm9700", "storage-node", "cpu-node-1u"]


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    models=st.lists(st.sampled_from(MODELS), min_size=1, max_size=4),
    cooling=st.sampled_from(["air", "air", "rear-door", "liquid"]),
    current=st.sampled_from(["16 A", "32 A", "63 A"]),
    sides=st.sampled_from(["AB", "A", "ABX", ""]),
)
def test_every_offered_fix_removes_its_finding_adds_no_error_and_undoes_exactly(
    models: list[str], cooling: str, current: str, sides: str
) -> None:
    feeds = feeds_line(
        *(
            feed(f"a01-{s or n}", current=current, **({"side": s} if s != "X" else {}))
            for n, s in enumerate(sides or "F")
        )
    )
    devices, position = [], 1
    heights = {"dgx-h100": 8, "dgx-b200": 10, "sys-421ge-tnhr2-lcc": 4, "qm9700": 1}
    heights |= {"storage-node": 2, "cpu-node-1u": 1}
    for model in models:
        devices.append((model, position))
        position += heights[model]
    session = session_of(rack_a01(devices, cooling=cooling, extra=feeds))
    for finding in list(session.findings):
        assert advise(session.layout, finding, session.index).line  # never raises, never empty
        fix = fix_for(session.layout, finding, session.index)
        if fix is None:
            continue
        before_text, before_errors = dumps(session.layout), errors(session)
        session.do(fix)
        assert key_of(finding) not in {key_of(d) for d in session.findings}, fix.label
        assert errors(session) - before_errors == set(), fix.label
        session.undo()
        assert dumps(session.layout) == before_text


# -- CAB003 ---------------------------------------------------------------------------------------


def test_cab003_copper_too_short_becomes_active_copper_and_om3_becomes_om4() -> None:
    from rackdesigner.layout_io.document import load
    from tests.conftest import ROOT

    session = Session(load(ROOT / "layouts" / "problems" / "cabling.toml"))
    reach = [d for d in session.findings if d.code == "CAB003"]
    labels = []
    for finding in reach:
        before_text, before_errors = dumps(session.layout), errors(session)
        fix = fix_for(session.layout, finding, session.index)
        assert fix is not None, finding.message
        labels.append(fix.label)
        session.do(fix)
        assert key_of(finding) not in {key_of(d) for d in session.findings}
        assert errors(session) - before_errors == set()
        session.undo()
        assert dumps(session.layout) == before_text
    assert "Cable k02-n01:ib8 with acc instead of dac, reaches 5 m" in labels
    assert "Cable k01-leaf2:p40 with OM4 fibre (reaches 50 m)" in labels


def test_cab003_an_aoc_where_a_dac_reaches_becomes_the_dac() -> None:
    """Two QM8700 (HDR 200 Gb/s) in one rack, U20 and U22, cabled with a 1.19 m AOC: a
    passive DAC reaches 3 m at 200G, so CAB003 notes it (info) and the fix is the DAC."""
    text = rack_a01([("qm8700", 20), ("qm8700", 22)], cooling="rear-door")
    text += '[[links]]\na = "a01-d1:p1"\nb = "a01-d2:p1"\nmedia = "aoc"\nlength = "1.19 m"\n'
    session = session_of(text)
    finding = first(session, "CAB003")
    assert finding.severity == "info" and "within the 3 m reach of passive copper" in (
        finding.message
    )
    fix = apply_and_check(session, "CAB003")
    assert fix.label == "Cable a01-d1:p1 with dac instead of aoc, reaches 3 m"
    session.redo()
    assert session.layout.links[0].media == "dac"


def test_plc007_a_half_depth_switch_blowing_backwards_goes_to_the_rear_face() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("sn2201", 21)]))
    fix = apply_and_check(session, "PLC007")
    assert fix.label == "Mount a01-d2 on the rear face (its airflow then runs with the rack's)"


def test_plc007_with_the_rear_units_taken_has_no_fix() -> None:
    session = session_of(rack_a01([("sn2201", 21), ("sn2201", 21)]))
    # The second switch goes to the rear face: the first cannot turn around.
    devices = session.index.rack("a01").devices  # type: ignore[union-attr]
    assert devices[1].id == "a01-d2"
    from rackdesigner.edit import MoveDevice

    session.do(MoveDevice("a01-d2", face="rear"))
    finding = next(d for d in session.findings if d.code == "PLC007" and d.subject[1] == "a01-d1")  # type: ignore[index]
    assert fix_for(session.layout, finding, session.index) is None


# -- a group's findings at once -------------------------------------------------------------------


def test_fix_all_fixes_a_group_as_one_step() -> None:
    """Three air racks of two DGX H100 each (16 U) and no panels: 26 open units each,
    three PLC006 findings; one Batch declares the blanking of all three, one undo."""
    text = ""
    for number in (1, 2, 3):
        rid = f"a0{number}"
        text += (
            rack_a01([("dgx-h100", 1), ("dgx-h100", 9)])
            .replace("a01", rid)
            .replace("slot = 1", f"slot = {number}")
        )
    session = session_of(text)
    findings = [d for d in session.findings if d.code == "PLC006"]
    assert len(findings) == 3
    before = dumps(session.layout)
    fix, gone = fix_all(session.layout, findings, session.index)
    assert fix is not None and gone == 3
    assert dumps(session.layout) == before  # finding the fixes changes nothing
    session.do(fix)
    assert [d for d in session.findings if d.code == "PLC006"] == []
    assert all(r.blanking for r in session.layout.racks)
    assert session.revision == 1
    session.undo()
    assert dumps(session.layout) == before


def test_fix_all_leaves_out_what_an_earlier_fix_took_away() -> None:
    """The bundled inference cluster without its 200G port group: 32 CAB004 (400G node
    ports on 200G QM8700 leaves). The first fix sets dgx-b200's ib group to 200 Gbps, which
    takes all 32 away: one step, not 32."""
    import re

    from tests.conftest import ROOT

    text = (ROOT / "layouts" / "inference-32-b200.toml").read_text()
    text = re.sub(r"\[catalog\.dgx-b200\]\n(?:.*\n)*?notes = .*\n", "", text, count=1)
    session = Session(loads(text))
    findings = [d for d in session.findings if d.code == "CAB004"]
    assert len(findings) == 32
    fix, gone = fix_all(session.layout, findings, session.index)
    assert fix is not None and gone == 32
    assert len(fix.commands) == 1  # one port group change, found once
    session.do(fix)
    assert [d for d in session.findings if d.code == "CAB004"] == []
