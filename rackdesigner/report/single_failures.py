"""The report's "single failures" section: the worst single failure of each kind.

Each kind (feed, side, PDU, CDU, switch, rack) is ranked as ``rackdesigner whatif
--each KIND`` ranks it (:meth:`rackdesigner.whatif.WhatIf.rank`) and its worst failure
given in one line. Ranking rebuilds the fabric for every failure that touches it; beyond
:data:`FABRIC_BUDGET` fabric edges in all a kind is left out with a pointer to the command.

This module sits above ``whatif`` (as the report, it imports it; whatif never imports the
report).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

# Fabric edges the section may rebuild per kind: a 1,024-GPU fabric's 48 switches are
# about 120,000; a 100,000-GPU fabric's are left to `whatif --each switch`.
FABRIC_BUDGET = 2_000_000


def single_failures(analysis: Analysis) -> list[dict[str, Any]]:
    """One entry per kind with something to fail: its worst failure (plain data), or
    ``skipped`` where ranking it is more than the report does."""
    from rackdesigner.whatif import EACH_KINDS, WhatIf
    from rackdesigner.whatif.impact import FabricBudget
    from rackdesigner.whatif.render import impact_data, summary

    out: list[dict[str, Any]] = []
    for kind in EACH_KINDS:
        engine = WhatIf(analysis, fabric_budget=FABRIC_BUDGET)
        try:
            ranked = engine.rank(kind)
        except FabricBudget:
            out.append({"kind": kind, "skipped": f"run rackdesigner whatif --each {kind}"})
            continue
        if not ranked:
            continue
        worst = ranked[0]
        out.append(
            {
                "kind": kind,
                "count": len(ranked),
                "worst": str(worst.failures[0]),
                "summary": summary(worst),
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
            out.append(
                f"  {entry['kind'].ljust(width)}  {entry['worst']}: {entry['summary']} "
                f"(worst of {entry['count']})"
            )
    return out
