"""What the rules declare when they register, checked over every rule."""

from __future__ import annotations

from rackdesigner.layout_io import schema as s
from rackdesigner.rules.registry import all_rules

RACK_FIELDS = {f"rack.{f.key}" for f in s.RACK}


def test_every_declared_read_is_a_rack_field_and_only_site_rules_declare_them() -> None:
    for rule in all_rules().values():
        if rule.reads is None:
            continue
        assert rule.scope == "site", rule.code
        assert rule.reads <= RACK_FIELDS, (rule.code, rule.reads - RACK_FIELDS)
