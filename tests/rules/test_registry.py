"""What the rules declare when they register, checked over every rule."""

from __future__ import annotations

import re

import pytest

from rackdesigner.layout_io import schema as s
from rackdesigner.rules.base import SCOPES, SEVERITIES
from rackdesigner.rules.base import rule as register
from rackdesigner.rules.registry import all_rules

RACK_FIELDS = {f"rack.{f.key}" for f in s.RACK}


def test_every_declared_read_is_a_rack_field_and_only_site_rules_declare_them() -> None:
    for rule in all_rules().values():
        if rule.reads is None:
            continue
        assert rule.scope == "site", rule.code
        assert rule.reads <= RACK_FIELDS, (rule.code, rule.reads - RACK_FIELDS)


def test_every_rule_has_a_known_severity_and_scope() -> None:
    for rule in all_rules().values():
        assert rule.scope in SCOPES, rule.code
        assert rule.severity in SEVERITIES and rule.severity in rule.severities, rule.code
        assert set(rule.severities) <= set(SEVERITIES), rule.code


@pytest.mark.parametrize(
    ("severity", "severities", "scope", "problem"),
    [
        ("fatal", (), "rack", "severity must be one of error, warning, info, not 'fatal'"),
        (
            "error",
            ("error", "notice"),
            "rack",
            "severity must be one of error, warning, info, not 'notice'",
        ),
        ("error", (), "row", "scope must be one of rack, device, link, site, fabric, not 'row'"),
    ],
)
def test_registration_refuses_an_unknown_severity_or_scope(
    severity: str, severities: tuple[str, ...], scope: str, problem: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(f"XYZ001: {problem}")):
        register("XYZ001", severity, severities=severities, scope=scope)  # type: ignore[arg-type]
    assert "XYZ001" not in all_rules()
