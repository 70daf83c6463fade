"""Issue 23's fixes for PDUs: PWR011 (a PDU rated above its feed moves to a feed rated for
it or becomes the model made for its circuit; a side's PDUs rated below its load get larger
models or another PDU on a feed of its own) and PWR012 (more outlets of the short kind, or
another PDU per side). Each is one undoable step that removes its finding and adds no
error; where no model or feed fits there is no fix."""

from __future__ import annotations

from rackdesigner.design.fixes import fix_for, pdus_for_feed
from rackdesigner.edit import Session
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.model.layout import Feed
from tests.builders import FEEDS_AB, feed, first, rack_a01, session_of
from tests.design.fixing import apply_and_check

FEEDS_32 = FEEDS_AB.replace('"63 A"', '"32 A"')
FEEDS_16 = FEEDS_AB.replace('"63 A"', '"16 A"')


def on_feeds(text: str, *pairs: tuple[str, str]) -> str:
    """Give devices a ``feed`` (PDUs: "a01-d2" on "a01-A")."""
    for device, feed_id in pairs:
        text = text.replace(
            f'id = "{device}"\nmodel', f'id = "{device}"\nfeed = "{feed_id}"\nmodel'
        )
    return text


def pdus_on_ab(devices: list[tuple[str, int | None]], pdu: str, feeds: str) -> Session:
    """Rack a01 with ``devices`` and a ``pdu`` on each of feeds a01-A and a01-B."""
    text = rack_a01([*devices, (pdu, None), (pdu, None)], extra=feeds)
    n = len(devices)
    return session_of(on_feeds(text, (f"a01-d{n + 1}", "a01-A"), (f"a01-d{n + 2}", "a01-B")))


# -- PWR011 --------------------------------------------------------------------------------------


def test_pwr011_a_pdu_above_its_feed_becomes_the_model_made_for_the_circuit() -> None:
    session = pdus_on_ab([("dgx-h100", 2)], "pdu-3ph-415v-63a", FEEDS_32)
    fix = apply_and_check(session, "PWR011")
    assert fix.label == "Make PDU a01-d2 a pdu-3ph-415v-32a (made for feed a01-A)"
    session.redo()
    assert session.index.device("a01-d2").model == "pdu-3ph-415v-32a"  # type: ignore[union-attr]


def test_pwr011_a_pdu_above_its_feed_moves_to_a_free_feed_of_its_side_rated_for_it() -> None:
    feeds = FEEDS_32.replace("]\n", f"  {feed('a01-A2', side='A', circuit='C-A2')},\n]\n")
    session = pdus_on_ab([("dgx-h100", 2)], "pdu-3ph-415v-63a", feeds)
    finding = next(d for d in session.findings if d.code == "PWR011" and "a01-d2" in d.entity)
    fix = fix_for(session.layout, finding, session.index)
    assert fix is not None and fix.label == "Move PDU a01-d2 to feed a01-A2 (rated for it)"
    session.do(fix)
    assert session.index.device("a01-d2").feed == "a01-A2"  # type: ignore[union-attr]
    assert not [d for d in session.findings if d.code == "PWR011" and "a01-d2" in d.entity]


def test_pwr011_short_sides_each_get_another_pdu_on_a_feed_of_its_own() -> None:
    # Three DGX H100 (30.6 kW) on 32 A sides: one AP8886 (22 kW) a side is short, and no
    # larger PDU is made for a 32 A circuit.
    session = pdus_on_ab(
        [("dgx-h100", 2), ("dgx-h100", 10), ("dgx-h100", 18)], "pdu-3ph-415v-32a", FEEDS_32
    )
    assert len([d for d in session.findings if d.code == "PWR011"]) == 2  # sides A and B
    fix = apply_and_check(session, "PWR011")
    assert fix.label == (
        "Add PDU a01-pdu-a on feed a01-A2, a01-pdu-b on feed a01-B2 (pdu-3ph-415v-32a) to rack a01"
    )
    session.redo()
    assert not [d for d in session.findings if d.code == "PWR011"]
    new = session.index.device("a01-pdu-b")
    assert new is not None and new.feed == "a01-B2" and new.model == "pdu-3ph-415v-32a"


def test_pwr011_short_sides_get_the_largest_pdu_made_for_their_feeds() -> None:
    # 16 A PDUs (11 kW) on 63 A circuits (PWR014 too): the 63 A PDU is made for them.
    session = pdus_on_ab([("dgx-h100", 2), ("dgx-h100", 10)], "pdu-3ph-415v-16a", FEEDS_AB)
    fix = apply_and_check(session, "PWR011")
    assert fix.label == (
        "Make PDU a01-d3 a pdu-3ph-415v-63a, a01-d4 a pdu-3ph-415v-63a "
        "(the largest made for its feed)"
    )


def test_pwr011_with_no_model_for_the_circuit_has_no_fix() -> None:
    # A 63 A PDU on a 415 V 40 A circuit: no catalog PDU has a 40 A inlet, and no other feed.
    feeds = FEEDS_AB.replace('"63 A"', '"40 A"')
    session = pdus_on_ab([("dgx-h100", 2)], "pdu-3ph-415v-63a", feeds)
    assert fix_for(session.layout, first(session, "PWR011"), session.index) is None


def test_pdus_for_feed_matches_the_inlet_and_stays_within_the_feed() -> None:
    catalog = builtin().devices
    feed = Feed("f", voltage=415.0, phases=3, current=32.0)
    assert [t.key for t in pdus_for_feed(catalog, feed, 1.0)] == ["pdu-3ph-415v-32a"]
    feed208 = Feed("f", voltage=208.0, phases=3, current=30.0)
    keys = [t.key for t in pdus_for_feed(catalog, feed208, 1.0)]
    assert keys[0] == "pdu-3ph-208v-30a"  # the 3-phase 8.6 kW before the 1-phase 5 kW


# -- PWR012 --------------------------------------------------------------------------------------


FEW_C19 = (
    "[catalog.pdu-63a-few-c19]\n"
    'kind = "pdu"\nname = "A 63 A PDU with 6 C19 outlets"\nheight = "0 U"\n'
    'capacity = "43.6 kW"\ninput_voltage = ["380 V", "415 V"]\ninput_current = "63 A"\n'
    "outlets = { c13 = 0, c19 = 6 }\n\n"
)


def test_pwr012_short_c19_outlets_get_another_pdu_of_the_sides_model_a_side() -> None:
    # Three DGX H100: 9 C20 cords a side for one PDU's 6 C19 outlets; the feeds carry them.
    from rackdesigner.layout_io import dumps

    devices = [("dgx-h100", 2 + 8 * n) for n in range(3)]
    base = pdus_on_ab(devices, "pdu-63a-few-c19", FEEDS_AB)
    session = session_of(FEW_C19 + dumps(base.layout).split("\n", 2)[2])
    finding = first(session, "PWR012")
    assert "C19-class" in finding.message
    fix = apply_and_check(session, "PWR012")
    assert fix.label == (
        "Add PDU a01-pdu-a on feed a01-A2, a01-pdu-b on feed a01-B2 (pdu-63a-few-c19) to rack a01"
    )
    session.redo()
    assert not [d for d in session.findings if d.code == "PWR012"]


def test_pwr012_whose_new_feeds_would_be_overloaded_has_no_fix() -> None:
    # Five DGX H100 on 16 A sides: another 16 A feed a side would carry more than its
    # breaker (PWR004), so the trial refuses it; more PDUs need larger circuits first.
    devices = [("dgx-h100", 2 + 8 * n) for n in range(5)]
    session = pdus_on_ab(devices, "pdu-3ph-415v-16a", FEEDS_16)
    assert fix_for(session.layout, first(session, "PWR012"), session.index) is None


def test_pwr012_prefers_a_model_with_more_outlets_made_for_the_feed() -> None:
    text = (
        "[catalog.pdu-16a-many]\n"
        'kind = "pdu"\nname = "A 16 A PDU with 24 C19 outlets"\nheight = "0 U"\n'
        'capacity = "11 kW"\ninput_voltage = ["380 V", "415 V"]\ninput_current = "16 A"\n'
        "outlets = { c13 = 12, c19 = 24 }\n\n"
    )
    devices = [("dgx-h100", 2 + 8 * n) for n in range(3)]  # 9 C20 cords a side, 6 outlets
    base = pdus_on_ab(devices, "pdu-3ph-415v-16a", FEEDS_16)
    from rackdesigner.layout_io import dumps

    session = session_of(text + dumps(base.layout).split("\n", 2)[2])
    fix = apply_and_check(session, "PWR012")
    assert fix.label == (
        "Make PDU a01-d4 a pdu-16a-many, a01-d5 a pdu-16a-many (more outlets, made for its feed)"
    )
