"""The report's "single failures" section: the worst single failure of each kind.

Each kind (feed, side, PDU, CDU, switch, rack; each kind of power chain element, one
module of an n+1 UPS, a water loop) is ranked as ``rackdesigner whatif --each KIND``
ranks it (:meth:`rackdesigner.whatif.WhatIf.rank`, which runs
:func:`rackdesigner.whatif.what_if` for each failure) and its worst failure given in one
line, with the new findings ``whatif --fail`` gives it (the same function). A failure that
touches a fabric derives it from the fabric before or builds it again; beyond
:data:`FABRIC_BUDGET` units of that work in all (fabric edges built, class-graph arcs
searched) a kind is left out with a pointer to the command.

This module sits above ``whatif`` (as the report, it imports it; whatif never imports the
report).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

# Fabric work the section may do per kind (edges built again, class-graph arcs searched):
# a 1,024-GPU fabric's 48 switches are about 20,000; 8,192 GPUs' 384 switches about
# 2.5 million, left to `whatif --each switch` with a 100,000-GPU fabric's.
FABRIC_BUDGET = 2_000_000


def single_failures(analysis: Analysis) -> list[dict[str, Any]]:
    """One entry per kind with something to fail: its worst failure (plain data), or
    ``skipped`` where ranking it is more than the report does."""
    from rackdesigner.whatif import EACH_KINDS, WhatIf
    from rackdesigner.whatif.impact import FabricBudget
    from rackdesigner.whatif.render import impact_data, new_codes, summary

    out: list[dict[str, Any]] = []
    # The worst of each kind with its findings, as --fail has them: one engine for all, so
    # that the layout is checked once, not once a kind (each kind ranks on its own budget).
    worst_of = WhatIf(analysis)
    for kind in EACH_KINDS:
        engine = WhatIf(analysis, fabric_budget=FABRIC_BUDGET)
        try:
            ranked = engine.rank(kind)
        except FabricBudget:
            out.append({"kind": kind, "skipped": f"run rackdesigner whatif --each {kind}"})
            continue
        if not ranked:
            continue
        worst = worst_of.run(ranked[0].failures)
        out.append(
            {
                "kind": kind,
                "count": len(ranked),
                "worst": str(worst.failures[0]),
                "summary": summary(worst),
                "new_codes": dict(new_codes(worst)),
                "impact": impact_data(worst),
            }
        )
    return out


def single_failures_text(entries: list[dict[str, Any]] | None) -> list[str]:
    if not entries:
        return []
    out = ["", "Single failures (the worst of each kind; rackdesigner whatif --each KIND):"]
    width = max(len(e["kind"]) for e in entries)
    for entry in entries:
        if "skipped" in entry:
            out.append(f"  {entry['kind'].ljust(width)}  not ranked here: {entry['skipped']}")
        else:
            codes = ", ".join(
                f"{code} ×{n}" if n > 1 else code for code, n in entry.get("new_codes", {}).items()
            )
            out.append(
                f"  {entry['kind'].ljust(width)}  {entry['worst']}: {entry['summary']}"
                f"{'; new findings: ' + codes if codes else ''} (worst of {entry['count']})"
            )
    return out
