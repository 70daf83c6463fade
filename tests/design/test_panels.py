"""A device moved onto listed blanking panels takes their place, and the units it leaves
get panels, as one step (design/panels.py)."""

from __future__ import annotations

from rackdesigner.design.panels import move_through_panels
from rackdesigner.edit import Batch, MoveDevice, Session
from rackdesigner.layout_io import dumps, load_path
from tests.conftest import ROOT


def _units(session: Session, rack: str) -> dict[int, str]:
    index = session.index
    return {u: d.id for u, d in index.occupied(rack, "front").items()}


def test_a_move_over_panels_replaces_them_and_blanks_what_it_leaves() -> None:
    """training-128's rack a01 lists its panels (2U at U1, U37, U39, U41). Its leaf a01-leaf2
    (1U, U20) moved to U37: the 2U panel on U37-U38 goes, the leaf takes U37, a 1U panel
    closes U38 (the panel's other unit) and another U20 (where the leaf was). One step:
    undo gives the layout back byte for byte."""
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    before = dumps(session.layout)
    command = move_through_panels(session.index, "a01-leaf2", "a01", 37)
    assert isinstance(command, Batch)
    assert command.label == "Move a01-leaf2 to a01 U37 (over 1 blanking panel)"
    session.do(command)
    units = _units(session, "a01")
    assert units[37] == "a01-leaf2"
    for unit in (20, 38):
        device = session.index.device(units[unit])
        assert device is not None and device.model == "blank-1u", unit
    assert session.revision == 1
    session.undo()
    assert dumps(session.layout) == before


def test_a_device_in_the_way_is_refused_as_before() -> None:
    """U29 holds a node: the plain move, which refuses and names it."""
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    command = move_through_panels(session.index, "a01-leaf2", "a01", 29)
    assert isinstance(command, MoveDevice)


def test_a_rack_that_declares_its_blanking_gets_no_panels_back() -> None:
    """A rack that declares blanking gets no panel devices back, neither where the leaf
    was (U20) nor on the half of the 2U panel the leaf does not take (U38): its declaration
    covers them."""
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    session.layout.racks[0].blanking = True
    command = move_through_panels(session.index, "a01-leaf2", "a01", 37)
    session.do(command)
    units = _units(session, "a01")
    assert units[37] == "a01-leaf2" and 20 not in units and 38 not in units


def test_a_device_placed_on_panels_takes_their_place() -> None:
    """A QM9700 (1U, full depth) placed at U37 of training-128's a01: the 2U panel on
    U37-U38 goes and a 1U panel closes U38; one step."""
    from rackdesigner.design.panels import place_through_panels, taken_but_panels
    from rackdesigner.design.placing import plan
    from rackdesigner.edit import PlaceDevice

    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    before = dumps(session.layout)
    rack = session.index.rack("a01")
    assert rack is not None
    taken = taken_but_panels(session.index, rack)
    assert 37 not in taken["front"] and 3 in taken["front"]
    types = session.index.catalog.devices
    placed = plan(types, ["qm9700"], top=42, taken=taken, near=37)[0]
    assert placed.position == 37
    command = place_through_panels(
        session.index, rack, [PlaceDevice("a01", "qm9700", 37, face=placed.face)]
    )
    assert command.label == "Place qm9700 in a01 at U37 (over 1 blanking panel)"
    session.do(command)
    front = session.index.occupied("a01", "front")
    assert front[37].model == "qm9700" and front[38].model == "blank-1u"
    session.undo()
    assert dumps(session.layout) == before
