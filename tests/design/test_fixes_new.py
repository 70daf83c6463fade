"""Two fixes: CAB004 (the faster end's port group at the rate the link runs at)
and COOL003 (a CDU with room to spare), each one undoable step that removes its finding
and brings no new error; and where they stay silent."""

from __future__ import annotations

import re

from rackdesigner.design.fixes import fix_for
from rackdesigner.design.guidance import key_of
from rackdesigner.edit import Session
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import load, loads
from rackdesigner.model.diagnostics import Diagnostic
from tests.conftest import ROOT


def errors(session: Session) -> set[tuple[str, object]]:
    return {key_of(d) for d in session.findings if d.severity == "error" and not d.suppressed}


def of(session: Session, code: str, entity: str | None = None) -> list[Diagnostic]:
    return [
        d for d in session.findings if d.code == code and (entity is None or d.entity == entity)
    ]


def fixed(session: Session, finding: Diagnostic) -> str:
    before, before_errors = dumps(session.layout), errors(session)
    fix = fix_for(session.layout, finding, session.index)
    assert fix is not None, finding.message
    assert dumps(session.layout) == before  # finding the fix changes nothing
    session.do(fix)
    assert key_of(finding) not in {key_of(d) for d in session.findings}
    assert not errors(session) - before_errors
    label = fix.label
    session.undo()
    assert dumps(session.layout) == before
    session.do(fix_for(session.layout, finding, session.index))  # type: ignore[arg-type]
    return label


def hdr_fabric() -> Session:
    """The bundled inference layout without its [catalog.dgx-b200]: 400G nodes on 200G
    QM8700 leaves, every node-to-leaf cable a CAB004 warning."""
    text = (ROOT / "layouts" / "inference-32-b200.toml").read_text()
    text = re.sub(r"\[catalog\.dgx-b200\]\n(?:.*\n)*?notes = .*\n", "", text, count=1)
    return Session(loads(text))


def test_cab004_sets_the_faster_ends_group_to_the_rate_the_link_runs_at() -> None:
    session = hdr_fabric()
    found = [d for d in of(session, "CAB004") if "speed" in d.message]
    assert len(found) >= 8
    label = fixed(session, found[0])
    assert label.startswith("Set dgx-b200 ports ib to 200 Gbps")
    ib = session.layout.catalog["dgx-b200"].ports
    assert ib is not None
    assert float(next(g for g in ib if g.name == "ib").speed or 0) == 200e9
    # One group for every node of the model: all those warnings go with it.
    assert not [d for d in of(session, "CAB004") if "ib" in d.message and "speed" in d.message]


def test_cab004_has_no_fix_where_the_group_has_a_faster_cable_elsewhere() -> None:
    session = hdr_fabric()
    # One node's cable moves to a 400G switch (a QM9700): lowering the group would slow it.
    from rackdesigner.edit import AddLink, AddRack, PlaceDevice, RemoveLink
    from rackdesigner.model.layout import Rack

    layout = session.layout
    rack = layout.racks[0]
    node = next(d for d in rack.devices if d.model == "dgx-b200")
    (link,) = [k for k in session.index.links_of(node.id) if k.a == f"{node.id}:ib1"]
    session.do(RemoveLink(link))
    session.do(AddRack(Rack("z01", row="Z", slot=1)))
    session.do(PlaceDevice("z01", "qm9700", 20, id="fast-switch"))
    session.do(AddLink(link.a, "fast-switch:p1", "dac"))
    found = next(d for d in of(session, "CAB004") if "speed" in d.message)
    assert fix_for(session.layout, found, session.index) is None


def test_cab004_across_technologies_has_no_fix() -> None:
    session = Session(load(ROOT / "tests" / "rules" / "CAB004" / "fires.toml"))
    for finding in of(session, "CAB004"):
        fix = fix_for(session.layout, finding, session.index)
        if finding.severity == "error":
            assert fix is None


def test_cool003_names_a_cdu_with_spare_capacity() -> None:
    session = Session(load(ROOT / "tests" / "rules" / "COOL003" / "fires.toml"))
    for entity in ("rack a01", "rack a02", "rack a03"):
        (finding,) = of(session, "COOL003", entity)
        label = fixed(session, finding)
        assert "to spare" in label
        rack = session.index.rack(entity.split()[1])
        assert rack is not None and rack.cdus
        cdu = session.index.device(rack.cdus[0])
        assert cdu is not None and session.index.type_of(cdu).kind == "cdu"  # type: ignore[union-attr]
    # The overloaded in-rack CDU has none: racks to move or a CDU to buy.
    (overloaded,) = of(session, "COOL003", "device b01-cdu")
    assert fix_for(session.layout, overloaded, session.index) is None
