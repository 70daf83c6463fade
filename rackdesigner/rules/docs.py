"""How ``rackdesigner rules`` lists and explains rules."""

from __future__ import annotations

from collections.abc import Iterable

from ..thresholds import THRESHOLDS
from ..units import fmt
from .registry import FAMILIES, Rule


def listing(rules: Iterable[Rule]) -> str:
    out: list[str] = []
    family = None
    for rule in rules:
        if rule.family != family:
            family = rule.family
            if out:
                out.append("")
            out.append(f"{FAMILIES.get(family, family)} ({family})")
        severity = "/".join(rule.severities)
        out.append(f"  {rule.code:<8} {severity:<14} {rule.title}")
    out += ["", "`rackdesigner rules CODE` explains one rule, its thresholds and how to "
                "change them."]
    return "\n".join(out) + "\n"


def _threshold_default(key: str) -> str:
    threshold = THRESHOLDS[key]
    return threshold.default_text


def explain(rule: Rule) -> str:
    severity = " / ".join(rule.severities)
    out = [f"{rule.code}: {rule.title}", f"Severity: {severity}", ""]
    out.append(rule.doc)
    if rule.thresholds:
        out += ["", "Thresholds (override in the layout):", "", "    [rules.thresholds]"]
        for key in rule.thresholds:
            t = THRESHOLDS[key]
            if t.dim is None or (t.dim.unit == "" and "%" not in t.default_text):
                value = t.default_text
            elif t.dim.unit == "":
                value = f'"{t.default_text}"'
            else:
                value = f'"{fmt(t.default, t.display or t.dim)}"'
            out.append(f"    {key} = {value:<12} # {t.description}")
    out += ["", f"Turn it off for a layout with `[rules] ignore = [\"{rule.code}\"]`, or for one "
                f"run with `--ignore {rule.code}`."]
    return "\n".join(out) + "\n"


def rule_json(rule: Rule) -> dict[str, object]:
    return {
        "code": rule.code,
        "severity": rule.severity,
        "severities": list(rule.severities),
        "title": rule.title,
        "why": rule.section("Why it matters"),
        "example": rule.section("Example"),
        "fix": rule.section("Fix"),
        "thresholds": {key: {"default": THRESHOLDS[key].default_text,
                             "description": THRESHOLDS[key].description}
                       for key in rule.thresholds},
    }
