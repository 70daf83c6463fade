"""What the rules declare when they register, and where they live, checked over every rule."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

from rackdesigner.layout_io import schema as s
from rackdesigner.rules.base import FAMILIES, SCOPES, SEVERITIES
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


def test_each_rule_has_a_module_of_its_own_documented_at_its_top() -> None:
    """``rules/<family>/<what it checks>.py``: one rule a module, its docstring the rule's
    documentation; a family package holds nothing else but its ``_common`` helpers."""
    modules: dict[str, str] = {}
    for code, rule in all_rules().items():
        module = sys.modules[rule.check.__module__]
        package = module.__name__.rpartition(".")[0]
        assert package == f"rackdesigner.rules.{FAMILIES[rule.family].lower()}", code
        assert module.__name__ not in modules, (code, modules.get(module.__name__))
        modules[module.__name__] = code
        assert inspect.cleandoc(module.__doc__ or "").startswith(rule.title), code
        assert rule.check.__doc__ is None, code
    for family in FAMILIES.values():
        folder = Path(sys.modules[f"rackdesigner.rules.{family.lower()}"].__file__).parent
        files = {p.stem for p in folder.glob("*.py")} - {"__init__", "_common"}
        names = {m.rpartition(".")[2] for m in modules if m.split(".")[2] == family.lower()}
        assert names == files, family


def test_every_rule_says_why_it_matters_gives_an_example_and_the_fix() -> None:
    for code, rule in all_rules().items():
        for section in ("Why it matters", "Example", "Fix"):
            assert rule.section(section), (code, section)
