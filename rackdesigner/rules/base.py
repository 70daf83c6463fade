"""What a rule is: its registration, its findings. The leaf every rule module imports.

A rule is a function that reads the shared analysis and yields findings.
Decorating it with :func:`rule` registers it. Each rule has a module of its own,
``rules/<family>/<what it checks>.py`` (like ruff's and yamllint's one file per
rule), whose docstring is the rule's documentation, in the shape ruff uses: a
title line, then sections ``Why it matters``, ``Example`` and ``Fix`` (a
function's own docstring would come first). ``rackdesigner rules CODE`` prints
it. Adding a rule is adding one module (and its fixtures).
:mod:`.registry` imports every rule module and selects among them; rule
modules import this one only, so that nothing imports back.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from rackdesigner.model.diagnostics import Severity
from rackdesigner.model.refs import Ref
from rackdesigner.model.thresholds import THRESHOLDS

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

FAMILIES = {
    "PWR": "Power",
    "COOL": "Cooling",
    "CAB": "Cabling",
    "NET": "Network",
    "CMP": "Compute",
    "PLC": "Placement",
    "STO": "Storage",
    "NVL": "NVLink",
}


@dataclass(slots=True)
class Finding:
    """What a rule reports; the engine adds the code, severity, file and line.

    ``subject`` names the entity the finding is about and ``related`` the others it
    mentions (the other device of an overlap). Findings never carry lines: the output
    looks the subject up in the document's source map, so a finding stays right after
    an edit moves every line below it.
    """

    entity: str  # the subject as people read it: "device a01-n01", "link a -> b"
    subject: Ref
    message: str
    hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    severity: Severity | None = None  # overrides the rule's default (rules with two severities)
    related: tuple[Ref, ...] = ()


RuleFunction = Callable[["Analysis"], Iterable[Finding]]

# What a rule looks at, for incremental checking (editing.md): rack, device and link rules
# re-run on the entities an edit touched, site rules on the site totals, fabric rules when
# the fabric's cabling or switches changed.
Scope = Literal["rack", "device", "link", "site", "fabric"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
SEVERITIES: tuple[Severity, ...] = get_args(Severity)
# What a site rule's findings may be split by (Rule.parts): each rack, each CDU group.
PARTS = ("racks", "cdu_loads")


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: Severity  # default; "error" for rules that may also warn
    title: str
    thresholds: tuple[str, ...]
    check: RuleFunction
    doc: str
    severities: tuple[Severity, ...]
    scope: Scope
    # A site rule's rack fields (``rack.cooling``): an edit of other rack fields leaves its
    # findings as they are. None: it reads every field (an edit of any re-runs it).
    reads: frozenset[str] | None = None
    # A site rule whose findings are the union of what it finds for each rack alone and for
    # each CDU group alone (``"racks"``, ``"cdu_loads"``): run on one rack or one group, it
    # finds exactly that one's findings, so an edit re-runs it on the racks and groups it
    # changed only (edit/checker.py). Empty: it is run on the whole layout.
    parts: tuple[str, ...] = ()

    @property
    def fabric(self) -> bool:
        """Reads the fabric graph (analysis.fabrics)."""
        return self.scope == "fabric"

    @property
    def family(self) -> str:
        return re.sub(r"\d+$", "", self.code)

    def section(self, name: str) -> str:
        """One section of the docstring (``Why it matters``, ``Example``, ``Fix``)."""
        found = re.search(
            rf"^{re.escape(name)}:?\s*\n(.*?)(?=^\S[^\n]*:?\s*\n\s*\n?|\Z)", self.doc, re.M | re.S
        )
        return inspect.cleandoc(found.group(1)) if found else ""


RULES: dict[str, Rule] = {}


def rule(
    code: str,
    severity: Severity,
    *,
    thresholds: tuple[str, ...] = (),
    severities: tuple[Severity, ...] = (),
    scope: Scope,
    reads: tuple[str, ...] | None = None,
    parts: tuple[str, ...] = (),
) -> Callable[[RuleFunction], RuleFunction]:
    """Register a rule. Its docstring (else its module's) is its documentation, the first
    line its title.

    ``scope`` says what the rule looks at (:data:`SCOPES`): ``fabric`` rules read
    ``analysis.fabrics``, the most expensive fact; the others never build it. ``reads``
    (site rules) names the rack fields the rule depends on, directly or through the facts
    (``rack.cooling`` sets the heat split): an edit of a rack's other fields does not run
    it again. Leave it out when unsure: the rule then runs after any rack edit. ``parts``
    (site rules) names the collections, of :data:`PARTS`, the rule walks each item of
    independently: its findings for one rack (``analysis.racks`` narrowed to it) or one CDU
    group (``analysis.cdu_loads`` narrowed) depend on that item's facts alone.
    """
    if reads is not None and scope != "site":
        raise ValueError(f"{code}: only site rules say which rack fields they read")
    if parts and (scope != "site" or not set(parts) <= set(PARTS)):
        raise ValueError(f"{code}: a site rule's parts are some of {', '.join(PARTS)}")
    if scope not in SCOPES:
        raise ValueError(f"{code}: scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    for value in (severity, *severities):
        if value not in SEVERITIES:
            raise ValueError(
                f"{code}: severity must be one of {', '.join(SEVERITIES)}, not {value!r}"
            )
    for key in thresholds:
        if key not in THRESHOLDS:
            raise ValueError(f"{code}: unknown threshold {key}")

    def register(check: RuleFunction) -> RuleFunction:
        module = sys.modules.get(check.__module__)
        doc = inspect.cleandoc(check.__doc__ or (module.__doc__ if module else None) or "")
        title, _, body = doc.partition("\n")
        if code in RULES:
            raise ValueError(f"rule {code} registered twice")
        RULES[code] = Rule(
            code,
            severity,
            title.strip().rstrip("."),
            thresholds,
            check,
            body.strip(),
            severities or (severity,),
            scope,
            frozenset(reads) if reads is not None else None,
            tuple(parts),
        )
        return check

    return register
