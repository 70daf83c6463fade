"""(v1.4) Edits of a layout with a cable plant keep its findings those of a full check: a
cable added re-runs the plant's site rules (fill), a rack moved re-routes its cables."""

from __future__ import annotations

from rackdesigner.check.engine import check
from rackdesigner.edit import AddLink, RemoveLink, SetField
from rackdesigner.edit.session import Session
from rackdesigner.layout_io.document import load
from tests.conftest import ROOT

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"


def full(session: Session) -> list[tuple[str, str, str]]:
    _, found = check(session.layout, file=session.path or "")
    return sorted((d.code, d.entity, d.message) for d in found if d.code.startswith("CAB"))


def now(session: Session) -> list[tuple[str, str, str]]:
    return sorted(
        (d.code, d.entity, d.message) for d in session.findings if d.code.startswith("CAB")
    )


def test_cable_and_rack_edits_match_a_full_check() -> None:
    document = load(EXAMPLE)
    tray_b = document.layout.pathways[1]
    tray_b.width, tray_b.depth = 0.02, 0.01  # 200 mm²: the trunk's 84.8 mm² is 42.4 %
    session = Session(document)
    session.findings  # noqa: B018 - the first check
    assert now(session) == full(session)
    assert any(code == "CAB006" and "1 cable, 84.8 mm²" in m for code, _, m in now(session))
    # A cable between the rows, routed along the trays: CAB001 on its 7.6 m (drops 2 x
    # 1.255675 m, 1.2 + 2.4 + 0.6 m along, 0.5 m slack).
    session.do(AddLink("a02-leaf1:p41", "b01-spine1:p9", media="mmf"), fabric=False)
    assert now(session) == full(session)
    assert any(e == "link a02-leaf1:p41 -> b01-spine1:p9" for _, e, _ in now(session))
    # ... and in tray-b beside the trunk: 84.8 + 7.07 = 91.9 mm², 45.9 %
    (fill,) = [m for code, e, m in now(session) if code == "CAB006" and e == "pathway tray-b"]
    assert "45.9 % full" in fill and "2 cables" in fill
    # The spine's rack moved along row B: its cables are routed again.
    session.do(SetField(("rack", "b01"), "slot", "5"), fabric=False)
    assert now(session) == full(session)
    session.undo(fabric=False)
    assert now(session) == full(session)
    link = session.layout.links[0]
    session.do(RemoveLink(link), fabric=False)
    assert now(session) == full(session)
