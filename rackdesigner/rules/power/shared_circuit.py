"""Two feeds name the same circuit, in two racks or in one.

Why it matters:
    Each rack needs a dedicated circuit: two racks on one breaker share its capacity
    (each rack's check assumes it has the circuit to itself), and one fault or one
    trip takes both down. Within one rack, two feeds on one circuit are one feed: sides
    A and B on the same breaker are not redundant, and two feeds of one side share a
    capacity counted twice. Circuits are compared by name, ignoring case and
    surrounding spaces.

Example:
    [[racks]]
    id = "a01"
    feeds = [ { id = "a01-A", circuit = "PP1-01", voltage = "415 V", phases = 3,
                current = "63 A" } ]

    [[racks]]
    id = "a02"
    feeds = [ { id = "a02-A", circuit = "PP1-01", voltage = "415 V", phases = 3,
                current = "63 A" } ]

Fix:
    Give each rack's feeds circuits of their own (`circuit` names the panel circuit).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, FeedFacts, RackFacts
from rackdesigner.rules.base import Finding, rule


@rule("PWR003", "error", scope="site", reads=())
def shared_circuit(analysis: Analysis) -> Iterator[Finding]:
    first: dict[str, tuple[RackFacts, FeedFacts]] = {}
    for rack in analysis.racks:
        for facts in rack.feeds:
            feed = facts.feed
            if not feed.circuit or not feed.circuit.strip():
                continue
            key = feed.circuit.strip().casefold()
            owner = first.get(key)
            if owner is None:
                first[key] = (rack, facts)
                continue
            other_rack, other = owner
            if other_rack is rack:
                # Two feeds of one rack on one circuit: one breaker, one fault (v1.1).
                sides = (other.group, facts.group)
                why = (
                    f"sides {sides[0]} and {sides[1]} on one circuit are not redundant"
                    if sides[0] and sides[1] and sides[0] != sides[1]
                    else "both feeds share one breaker's capacity and trip together"
                )
                yield Finding(
                    f"rack {rack.rack.id} feed {feed.id}",
                    facts.ref,
                    f"circuit {feed.circuit.strip()} also feeds {other.feed.id} of the same "
                    f"rack: {why}",
                    hint="give each feed of the rack a circuit of its own, from separate "
                    "panels for separate sides",
                    related=(other.ref,),
                )
                continue
            yield Finding(
                f"rack {rack.rack.id} feed {feed.id}",
                facts.ref,
                f"circuit {feed.circuit.strip()} already feeds rack "
                f"{other_rack.rack.id} (feed {other.feed.id})",
                hint="give each rack a dedicated circuit",
                related=(other.ref, other_rack.ref),
            )
