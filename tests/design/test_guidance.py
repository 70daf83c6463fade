"""Guidance per rule: the one-line hint is true for the rack it names, the diff of findings
goes by (code, subject), and the announcement names the worst new problem."""

from __future__ import annotations

from dataclasses import replace

from rackdesigner.design.guidance import HINTS, advise, announce, new_problems
from rackdesigner.edit import PlaceDevice, RemoveDevice, Session, UpdateRack
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.refs import Ref
from rackdesigner.rules.registry import all_rules
from tests.builders import FEEDS_AB, HEADER, feed, feeds_line, first, rack_a01, session_of


def loads_text(text: str):  # type: ignore[no-untyped-def]
    from rackdesigner.layout_io.document import loads

    return loads(HEADER + text)


def line(session: Session, code: str) -> str:
    return advise(session.layout, first(session, code), session.index).line


def test_every_rule_has_an_entry_in_the_hint_table() -> None:
    assert set(HINTS) == set(all_rules())


# -- COOL001: true for the rack -------------------------------------------------------------------


def test_cool001_on_dgx_h100_says_rear_door_never_liquid() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)]))
    assert line(session, "COOL001") == (
        "COOL001 rack a01: 20.4 kW on air exceeds 15 kW: cool the rack with a rear door, or "
        "move a node"
    )


def test_cool001_with_cold_plates_offers_liquid() -> None:
    models = [("sys-421ge-tnhr2-lcc", 2), ("sys-421ge-tnhr2-lcc", 6)]
    text = line(session_of(rack_a01(models)), "COOL001")
    assert "18 kW on air exceeds 15 kW" in text
    assert "direct-to-chip liquid (a CDU) or a rear door" in text


def test_cool001_mixed_nodes_do_not_get_liquid() -> None:
    models = [("sys-421ge-tnhr2-lcc", 2), ("dgx-h100", 6)]
    assert "liquid" not in line(session_of(rack_a01(models)), "COOL001")


def test_cool001_too_hot_for_a_door_says_spread_with_the_count() -> None:
    feeds = feeds_line(feed("a01-F", current="400 A"))
    text = rack_a01([("slim", 1 + 5 * n) for n in range(8)], extra=feeds)
    text += '[catalog.slim]\nkind = "gpu-node"\nheight = "5 U"\npower = "10.2 kW"\n'
    said = line(session_of(text), "COOL001")
    assert said.endswith("spread the load over 6 racks (more than a rear door's 75 kW)")


def test_cool001_needing_more_than_one_node_moved_says_how_many_racks() -> None:
    models = [("dgx-h100", 2), ("dgx-h100", 10), ("dgx-h100", 18), ("dgx-h100", 26)]
    said = line(session_of(rack_a01(models)), "COOL001")
    assert said.endswith("cool the rack with a rear door, or spread the load over 3 racks")


def test_cool001_on_a_liquid_rack_names_the_devices_without_cold_plates() -> None:
    text = rack_a01([("dgx-b200", 2), ("dgx-b200", 13)], cooling="liquid")
    said = line(session_of(text), "COOL001")
    assert "residual air heat exceeds 15 kW" in said
    assert "(a01-d1, a01-d2) to an air or rear-door rack" in said


def test_cool002_is_worded_with_the_rack_true_fix() -> None:
    said = line(session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)])), "COOL002")
    assert "20.4 kW on air is past the 20 kW" in said
    assert "rear door" in said and "liquid (" not in said


def test_cool005_for_dgx_names_cold_plate_models_not_a_liquid_rack_of_dgx() -> None:
    text = rack_a01([("dgx-h100", 2)])
    text = '[workload]\nkind = "training"\nmodel_params = 175e9\nparallelism = "fsdp"\n\n' + text
    said = line(session_of(text), "COOL005")
    assert "dgx-h100 has no cold plates" in said
    assert "sys-421ge-tnhr2-lcc" in said


def test_cool007_and_cool008_hints() -> None:
    text = rack_a01([("dgx-h100", 2), ("rear-door-hx", None)], cooling="rear-door")
    assert line(session_of(text), "COOL007").endswith('name its rear door: door = "a01-d2"')
    text = rack_a01([("dgx-b200", 2)], cooling="liquid")
    said = line(session_of(text), "COOL008")
    assert "move it to an air or rear-door rack" in said and "sys-422ga-nbrt-lcc" in said


# -- power and placement --------------------------------------------------------------------------


def test_pwr001_hints() -> None:
    said = line(session_of(rack_a01([("dgx-h100", 2)], extra="feeds = []\n")), "PWR001")
    assert said == (
        "PWR001 rack a01: no feed for 10.2 kW: add two feeds, 415 V 3-phase 63 A on sides A and B"
    )
    small = FEEDS_AB.replace('"63 A"', '"32 A"')
    said = line(session_of(rack_a01([("dgx-h100", 2), ("dgx-h100", 12)], extra=small)), "PWR001")
    assert "load 20.4 kW exceeds the feeds' 18.4 kW: add a feed on each side" in said
    assert "move 2 kW to another rack" in said


def test_pwr008_and_pwr013_hints() -> None:
    said = line(session_of(rack_a01([("dgx-h100", 2)])), "PWR008")
    assert said.endswith(
        "6 PSUs on 2 sides keep 3 of the 4 needed with a side lost: add a third side of feeds "
        "(2 + 2 + 2 PSUs keep 4)"
    )
    feeds = FEEDS_AB.replace("]\n", f"  {feed('a01-X')},\n]\n")
    said = line(session_of(rack_a01([("dgx-h100", 2)], extra=feeds)), "PWR013")
    assert said.endswith("feed a01-X has no side: give it a side (A or B, or one of its own)")


def test_plc006_hint_and_a_rule_hint_passed_through() -> None:
    session = session_of(rack_a01([("dgx-h100", 2), ("qm9700", 40)]))
    assert "33 open units without blanking panels: declare blanking = true on the rack" in line(
        session, "PLC006"
    )
    # PLC003 keeps the rule's own hint: it already names the units to move to.
    assert line(session, "PLC003").endswith("move it to a position between U15 and U28")


# -- the diff -------------------------------------------------------------------------------------


def _finding(code: str, ident: str, message: str, severity: str = "error") -> Diagnostic:
    return Diagnostic(code, severity, message, f"rack {ident}", subject=Ref("rack", ident))


def test_new_problems_go_by_code_and_subject_not_message() -> None:
    before = [_finding("PLC006", "a01", "34 open units", "warning")]
    after = [
        _finding("PLC006", "a01", "26 open units", "warning"),
        _finding("COOL002", "a01", "20.4 kW", "warning"),
        _finding("COOL001", "a01", "20.4 kW"),
        _finding("NET007", "a01", "bandwidth", "info"),
        replace(_finding("PLC004", "a01", "heavy"), suppressed="ignore"),
    ]
    assert [d.code for d in new_problems(before, after)] == ["COOL001", "COOL002"]


def test_an_edit_that_fixes_brings_no_announcement_and_one_that_breaks_names_the_worst() -> None:
    session = session_of(rack_a01([("dgx-h100", 2)]))
    before = list(session.findings)
    session.do(PlaceDevice("a01", "dgx-h100", 12))
    new = new_problems(before, session.findings)
    said = announce(session.layout, new, session.index, fixable=lambda d: d.code == "COOL001")
    assert said is not None
    # NET009 (once per node): the second GPU node makes the uncabled nodes several.
    assert said.severity == "error" and said.title == "5 new problems"
    assert said.message == (
        "COOL001 rack a01: 20.4 kW on air exceeds 15 kW: cool the rack with a rear door, or "
        "move a node (Apply fix: x in Problems); and 4 more (PWR008, COOL002, NET009)"
    )
    before = list(session.findings)
    session.do(RemoveDevice("a01-d1"))
    assert new_problems(before, session.findings) == []
    assert announce(session.layout, [], session.index) is None


def test_the_session_delta_matches_the_whole_list_comparison() -> None:
    session = session_of(rack_a01([("dgx-h100", 2)]))
    _ = session.findings
    before = list(session.findings)
    session.do(PlaceDevice("a01", "dgx-h100", 12), fabric=False)
    changes = session.finding_changes()
    assert changes is not None
    by_delta = new_problems(*changes)
    assert by_delta == new_problems(before, session.findings)
    # A field edit re-checks from scratch where it must; the comparison then is whole.
    before = list(session.findings)
    session.do(UpdateRack("a01", cooling="rear-door"), fabric=False)
    changes = session.finding_changes()
    whole = new_problems(before, session.findings)
    assert [d.code for d in whole] == ["COOL007"]
    if changes is not None:
        assert [d.code for d in new_problems(*changes)] == ["COOL007"]


# -- fabric findings arrive later -----------------------------------------------------------------

FABRIC = """[workload]
kind = "training"

[[racks]]
id = "a01"
row = "A"
slot = 1
cooling = "rear-door"
door = "a01-door"
feeds = [
    { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
    { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
    { id = "a01-C", side = "C", voltage = "415 V", phases = 3, current = "63 A" },
]

[[racks.devices]]
id = "a01-door"
model = "rear-door-hx"

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-leaf"
model = "qm9700"
position = 20

[[racks.devices]]
id = "a01-n02"
model = "dgx-h100"
position = 30

[[links]]
a = "a01-n01:ib1"
b = "a01-leaf:p1"

[[links]]
a = "a01-n02:ib1"
b = "a01-leaf:p2"
"""


class _App:
    """The designer's workspace over a bare session: what its guidance says."""

    def __init__(self, session: Session) -> None:
        from rackdesigner.tui.workspace import Workspace

        self.workspace = Workspace()
        self.workspace.use(session, None)
        self.said: list[str] = []

    def before(self) -> tuple[Diagnostic, ...]:
        return self.workspace.before_edit()

    def edited(self, before: tuple[Diagnostic, ...]) -> None:
        said = self.workspace.edited(None, before).said
        self.said.extend([said.message] if said is not None else [])

    def fabric(self) -> None:
        session = self.workspace.session
        assert session is not None
        _ = session.findings
        job = session.fabric_job()
        job.run()
        result = self.workspace.fabric_done(session, job)
        assert result.accepted
        self.said.extend([result.said.message] if result.said is not None else [])
        _ = session.findings


def test_fabric_findings_after_an_edit_are_announced_but_not_those_of_the_file() -> None:
    from rackdesigner.edit import RemoveLink

    session = Session(loads_text(FABRIC), check=False)
    session.check_fast()
    app = _App(session)
    app.fabric()  # the file's own fabric findings: not news
    assert app.said == []
    before = app.before()
    session.do(RemoveLink("a01-n02:ib1"), fabric=False)
    app.edited(before)
    app.fabric()
    assert any(text.startswith("NET006 device a01-n02") for text in app.said), app.said
    # An edit checked from scratch (a rack to another row) empties the fabric findings
    # until the worker is back: the NET006 it brings back is not news.
    app.said.clear()
    before = app.before()
    session.do(UpdateRack("a01", row="B"), fabric=False)
    assert session.finding_changes() is None
    app.edited(before)
    app.fabric()
    assert app.said == []


def test_a_new_problem_its_entity_ignores_is_not_announced() -> None:
    session = session_of(
        rack_a01([("dgx-h100", 2)]).replace('cooling = "air"', 'cooling = "air"\nignore = ["COOL"]')
    )
    before = list(session.findings)
    session.do(PlaceDevice("a01", "dgx-h100", 12))
    new = new_problems(before, session.findings)
    said = announce(session.layout, new, session.index)
    assert said is not None and said.worst.code == "PWR008"
    assert "COOL" not in said.message
