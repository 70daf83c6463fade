"""The site rules split in parts (``Rule.parts``: COOL003 and COOL009 per rack and per CDU
group) give, kept per part across edits, the findings of a full check from scratch.

After an edit the checker re-runs such a rule only on the racks whose facts the edit
recomputed and on the CDU groups it regrouped (edit/checker.py); the other parts' findings
stand. The random edit sequences of :class:`tests.edit.test_live.LiveFigures` (moves,
cooling and CDU changes that merge and split CDU groups, CDU models changed, racks added
and removed, undo and redo, on layouts with one CDU per rack and with groups of two) check
after every step that every finding equals a full check's.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis.stateful import invariant

from rackdesigner.edit import Session, UpdateRack
from rackdesigner.layout_io.document import load
from rackdesigner.rules.base import RULES
from tests.edit.test_live import LAYOUTS, LiveFigures
from tests.edit.test_stateful import assert_current
from tests.strategies import examples


class SiteFindings(LiveFigures):
    @invariant()
    def findings_equal_a_full_check(self) -> None:
        self.session.check()  # the fabric rules too, as the full check runs them
        assert_current(self.session)


SiteFindings.TestCase.settings = settings(
    max_examples=examples(15),
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestSiteFindings = SiteFindings.TestCase


def test_the_cdu_rules_are_split_in_parts() -> None:
    import rackdesigner.rules  # noqa: F401  (the registrations)

    parts = {code: rule.parts for code, rule in RULES.items()}
    assert parts["COOL003"] == ("racks", "cdu_loads")
    assert parts["COOL009"] == ("cdu_loads",)


def test_a_rack_edit_reruns_only_its_group() -> None:
    """A rack's cooling changed: its CDU group's findings are found again, the other
    groups' are the very objects they were (not a full pass with equal results)."""
    session = Session(load(str(LAYOUTS[0])))  # power.toml: a CDU per liquid rack
    checker = session.checker
    groups = checker._parts["COOL003"].loads
    assert len(groups) >= 2
    before = {key: found for key, (_, found) in groups.items()}
    rack = next(r for r in session.layout.racks if r.cdus)
    session.do(UpdateRack(rack.id, cooling="air"), fabric=False)
    after = checker._parts["COOL003"].loads
    live = session.analysis
    index = next(f.index for f in live.racks if f.rack is rack)
    kept = [key for key, (load, _) in after.items() if index not in load.indexes]
    assert kept and all(after[key][1] is before[key] for key in kept)
    session.check()
    assert_current(session)
