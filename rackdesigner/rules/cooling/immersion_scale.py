"""Immersion cooling below the GPU count where it pays off, or a cluster above it without.

Why it matters:
    Immersion tanks remove all of a rack's heat but need their own facility work,
    immersion-ready servers and service procedures; the field guide's advice is that
    immersion only makes sense above about 500 GPUs. A layout that uses immersion racks
    for fewer GPUs in total gets one note at its first immersion rack; a layout with
    more GPUs than that and no immersion rack gets one note at its first rack holding
    GPU nodes, that immersion may pay off at this scale.

Example:
    [[racks]]
    id = "t01"
    cooling = "immersion"   # the whole layout holds 32 GPUs

Fix:
    Below the threshold, prefer direct-to-chip liquid (`cooling = "liquid"` with a CDU);
    above it, weigh immersion against direct-to-chip liquid for the new halls.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule(
    "COOL004",
    "info",
    scope="site",
    thresholds=("immersion_min_gpus",),
    reads=("rack.cooling",),
)
def immersion_scale(analysis: Analysis) -> Iterator[Finding]:
    threshold = analysis.thresholds["immersion_min_gpus"]
    total = analysis.total_gpus
    immersion = [r for r in analysis.racks if r.cooling == "immersion"]
    if immersion and total < threshold:
        first = immersion[0]
        yield Finding(
            f"rack {first.rack.id}",
            first.ref,
            f"immersion cooling ({plural(len(immersion), 'rack')}) for {total:,} GPUs in "
            f"total, fewer than the {threshold:,g} GPUs where immersion pays off",
            hint='direct-to-chip liquid (cooling = "liquid" with a CDU) is usually '
            "cheaper at this scale",
            values={
                "gpus": float(total),
                "threshold": float(threshold),
                "racks": float(len(immersion)),
            },
        )
    elif not immersion and total > threshold:
        with_gpus = next((r for r in analysis.racks if r.gpu_nodes), None)
        if with_gpus is None:
            return
        yield Finding(
            f"rack {with_gpus.rack.id}",
            with_gpus.ref,
            f"the layout holds {total:,} GPUs, more than the {threshold:,g} where "
            "immersion cooling may pay off, and uses none",
            hint="weigh immersion tanks against direct-to-chip liquid at this scale",
            values={"gpus": float(total), "threshold": float(threshold)},
        )
