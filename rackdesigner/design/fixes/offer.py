"""A finding's fix as one undoable step (:func:`fix_for`), and the fixes of many
findings as one (:func:`fix_all`): what the designer and scripts call.
"""

from __future__ import annotations

import copy

from rackdesigner.design.fixes.base import FIXERS, Context, has_fixer
from rackdesigner.design.fixes.trial import still_found, works
from rackdesigner.edit import Batch, EditError, LayoutIndex
from rackdesigner.edit.index import end_device
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout, Rack


def fix_for(layout: Layout, finding: Diagnostic, index: LayoutIndex | None = None) -> Batch | None:
    """The mechanical fix of ``finding`` as one Batch, or None. ``index`` (the session's)
    saves building one; the layout is not changed."""
    function = FIXERS.get(finding.code)
    if function is None or finding.suppressed:
        return None
    context = _context(layout, finding, index or LayoutIndex(layout))
    if context is None:
        return None
    for plan in function(context):
        if works(context, plan):
            return Batch(plan.build(), plan.label)
    return None


def _context(layout: Layout, finding: Diagnostic, index: LayoutIndex) -> Context | None:
    """What a fixer reads about ``finding``; None where it names no rack (or cable)."""
    if finding.subject is None:
        return None
    link = index.link(finding.subject[1]) if finding.subject[0] == "link" else None
    rack = index.rack_of(end_device(link.a)) if link is not None else _rack_of(index, finding)
    if rack is None:
        return None
    return Context(layout, index, finding, rack, link)


def fix_all(
    layout: Layout, findings: list[Diagnostic], index: LayoutIndex | None = None
) -> tuple[Batch | None, int]:
    """The mechanical fixes of ``findings`` as one Batch (one undoable step), and how many
    of the findings are gone after it; None when none has a fix. Each fix is found on a
    copy of the layout with the fixes before it applied: two findings of one rack do not
    both add its feeds, and a finding an earlier fix already took away (one port group's
    speed for 32 cables) gets none. The Batch then applies to ``layout`` step by step as
    it did to the copy. The layout is not changed."""
    if not any(has_fixer(f.code) for f in findings):
        return None, 0
    trial = copy.deepcopy(layout)
    trial_index = LayoutIndex(trial)
    steps: list[Batch] = []
    gone = 0
    for finding in findings:
        context = _context(trial, finding, trial_index) if has_fixer(finding.code) else None
        if context is None:
            continue
        if steps and not still_found(context):
            gone += 1  # an earlier fix took it away
            continue
        try:
            fix = fix_for(trial, finding, trial_index)
        except Exception:  # a fix is an offer: one that cannot be found is left out
            fix = None
        if fix is None:
            continue
        fresh = copy.deepcopy(fix)  # commands keep state: the layout gets its own copy
        try:
            fix.apply(trial, trial_index)
        except EditError:
            continue
        steps.append(fresh)
        gone += 1
    if not steps:
        return None, 0
    if len(steps) == 1:
        return steps[0], gone
    codes = sorted({f.code for f in findings})
    return Batch(steps, f"Fix {gone} {', '.join(codes)} findings"), gone


def _rack_of(index: LayoutIndex, finding: Diagnostic) -> Rack | None:
    assert finding.subject is not None
    kind, ident = finding.subject[0], finding.subject[1]
    if kind == "rack":
        return index.rack(ident)
    if kind == "device":
        return index.rack_of(ident)
    if kind == "feed":
        return index.rack_of_feed(ident)
    return None
