"""Every rule has a fixture where it fires and one, just under its threshold, where it does not.

Fixtures live in ``tests/rules/<CODE>/``: ``fires.toml`` lists the findings it must
produce in its free-form ``[meta]`` table, ``silent.toml`` must produce none of the
rule's code. Adding a rule means adding that folder; nothing here changes.

    [meta]
    expect = [
      { code = "PLC001", entity = "device a01-n02", line = 25, severity = "error",
        contains = "overlaps", values = { unit = 8.0 } },
    ]
"""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check_document
from rackdesigner.layout_io.document import load
from rackdesigner.rules.registry import all_rules
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "rules"
CODES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name[0].isupper())


def test_every_rule_has_fixtures() -> None:
    assert sorted(all_rules()) == CODES


@pytest.mark.parametrize("code", CODES)
def test_rule_fires(code: str) -> None:
    document = load(FIXTURES / code / "fires.toml")
    expected = (document.layout.meta or {}).get("expect")
    assert expected, f"{code}/fires.toml has no [meta] expect list"
    diagnostics = check_document(document, select=[code]).diagnostics
    found = [d for d in diagnostics if d.code == code]
    assert sorted((d.code, d.entity, d.line) for d in found) == sorted(
        (e["code"], e["entity"], e["line"]) for e in expected
    ), "\n".join(f"{d.line}: {d.severity} {d.code} {d.text()}" for d in found)
    for want in expected:
        match = next(d for d in found if (d.entity, d.line) == (want["entity"], want["line"]))
        if "severity" in want:
            assert match.severity == want["severity"], match
        if "contains" in want:
            assert want["contains"] in match.message, match.message
        for name, value in want.get("values", {}).items():
            assert match.values.get(name) == pytest.approx(value, rel=1e-3), (name, match.values)


@pytest.mark.parametrize("code", CODES)
def test_rule_silent_just_under_threshold(code: str) -> None:
    diagnostics = check_document(load(FIXTURES / code / "silent.toml"), select=[code]).diagnostics
    assert [d for d in diagnostics if d.code == code] == []
