"""The trial: a plan applied to a copy of the finding's rack (and cable), kept only when
the finding is gone and no error is new.
"""

from __future__ import annotations

import copy

from rackdesigner.check.engine import rules_for, run_rules
from rackdesigner.design.fixes.base import Context, Plan
from rackdesigner.edit import Batch, EditError
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout, Link, Rack
from rackdesigner.model.refs import KindId, Ref
from rackdesigner.rules.base import Rule

# The rules a trial on one rack re-runs: what the rack's own contents decide.
TRIAL_SCOPES = ("rack", "device", "link")


def works(context: Context, plan: Plan) -> bool:
    """Apply the plan to a copy of the rack alone (a cable's: both its racks and the cable):
    the finding must be gone and no error new. Rack, device and cable rules decide what a
    rack's contents and a cable do; the copy costs a rack or two."""
    trial = _trial(context, plan.racks)
    rules = [rule for rule in rules_for(context.layout) if rule.scope in TRIAL_SCOPES]
    before = _keys(_check(trial, rules), errors=True)
    try:
        Batch(plan.build(), plan.label).apply(trial)
    except EditError:
        return False
    after = _check(trial, rules)
    if _names(after, context.finding):
        return False
    return not (_keys(after, errors=True) - before)


def still_found(context: Context) -> bool:
    """Whether the finding's rule still finds it, on a copy of its rack (and cable)."""
    code = context.finding.code
    rules = [r for r in rules_for(context.layout) if r.scope in TRIAL_SCOPES and r.code == code]
    return not rules or _names(_check(_trial(context, ()), rules), context.finding)


def _names(found: list[Diagnostic], finding: Diagnostic) -> bool:
    target = (finding.code, _plain(finding.subject))
    return any((d.code, _plain(d.subject)) == target for d in found if not d.suppressed)


def _trial(context: Context, extra: tuple[Rack, ...]) -> Layout:
    """A layout of copies of the context's racks (and ``extra``) and its cable."""
    layout = context.layout
    racks = context.racks
    racks += [r for r in extra if all(r is not other for other in racks)]
    return Layout(
        name=layout.name,
        site=layout.site,
        workload=layout.workload,
        rules=layout.rules,
        # A copy of the dict: a fix may set a [catalog] entry (CAB004), never in place.
        catalog=dict(layout.catalog),
        gpus=layout.gpus,
        racks=copy.deepcopy(racks),
        links=[_trial_link(context)] if context.link is not None else [],
    )


def _trial_link(context: Context) -> Link:
    """The cable, copied with the length the finding measured: the trial holds only its
    two racks, not the rows between them that its route runs past."""
    assert context.link is not None
    link = copy.deepcopy(context.link)
    if link.length is None and "length" in context.finding.values:
        link.length = float(context.finding.values["length"])
    return link


def _check(layout: Layout, rules: list[Rule]) -> list[Diagnostic]:
    from rackdesigner.analysis import Analysis

    return run_rules(rules, Analysis(layout))


def _plain(subject: Ref | None) -> KindId | None:
    return subject.kind_id if subject is not None else None


def _keys(found: list[Diagnostic], *, errors: bool) -> set[tuple[str, object]]:
    return {
        (d.code, _plain(d.subject))
        for d in found
        if not d.suppressed and (not errors or d.severity == "error")
    }
