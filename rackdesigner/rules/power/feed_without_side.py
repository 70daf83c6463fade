"""A feed has no side while other feeds of its rack have one.

Why it matters:
    Sides are the rack's redundancy plan: with k ≥ 2 sides it must run with any one
    lost, and PSUs go round-robin over the sides. A feed without a side beside sided
    feeds is in no plan: nothing says which PSUs it carries or what is left when it
    fails, so PWR001 counts it for no side rather than guess.

Example:
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "32 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "32 A" },
      { id = "a01-X", voltage = "415 V", phases = 3, current = "32 A" },
    ]

Fix:
    Give the feed the side it belongs to (`side = "C"` for a third side), or remove it.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("PWR013", "error", scope="rack")
def feed_without_side(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        labels = sorted({f.group for f in rack.feeds if f.group})
        if not labels:
            continue
        for facts in rack.feeds:
            if facts.group:
                continue
            yield Finding(
                f"rack {rack.rack.id} feed {facts.feed.id}",
                facts.ref,
                f"feed {facts.feed.id} has no side while the rack's other feeds have one "
                f"({', '.join(labels)}): it counts for no side",
                hint='give it the side it belongs to (e.g. side = "'
                + _next_label(labels)
                + '" for a side of its own), or remove it',
            )


def _next_label(labels: list[str]) -> str:
    last = labels[-1]
    if len(last) == 1 and last.isalpha() and last.upper() != "Z":
        return chr(ord(last) + 1)
    return f"{last}2"
