"""Site rules say which rack fields they read; a rack edit re-runs only those that read one.

The rules over the whole hall (CDU groups, room air, duplicate ids, the site budget) cost
about 55 ms per run on 100,000 GPUs. Running all of them after a rack's cooling changes
made that edit 110 ms in the designer. These tests hold the narrower re-check to a full one.
"""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check
from rackdesigner.edit import Session, SetField
from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.document import load
from rackdesigner.rules.registry import all_rules
from tests.conftest import ROOT

RACK_FIELDS = {f"rack.{f.key}" for f in s.RACK}


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


def test_every_declared_read_is_a_rack_field_and_only_site_rules_declare_them() -> None:
    for rule in all_rules().values():
        if rule.reads is None:
            continue
        assert rule.scope == "site", rule.code
        assert rule.reads <= RACK_FIELDS, (rule.code, rule.reads - RACK_FIELDS)


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
