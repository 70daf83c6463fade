"""A rack's power shelves cannot carry its rack-scale trays with one feed side lost.

Why it matters:
    A power shelf has one AC input, on one feed: when a side is lost every shelf on it
    stops, and the shelves on the other sides must carry the trays' DC load alone. The
    NVL72 reference rack has 8 shelves of 33 kW (BCM; NVL72 AI Factory RA) for a rack of
    up to ~132-142 kW, so half of them carry it: 4 on side A and 4 on side B. Shelves
    go over the rack's feeds in order (as PDUs without a `feed` do), so feeds A1, A2, B1,
    B2 put 4 shelves on each side, while A1, A2, A3, B1 put 6 on A and 2 on B. PWR016
    checks one shelf lost; this checks a whole side. Racks with fewer than 2 sides are
    not judged here (PWR016 is their check).

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A1", side = "A", voltage = "415 V", phases = 3, current = "125 A" },
      { id = "a01-A2", side = "A", voltage = "415 V", phases = 3, current = "125 A" },
      { id = "a01-A3", side = "A", voltage = "415 V", phases = 3, current = "125 A" },
      { id = "a01-B1", side = "B", voltage = "415 V", phases = 3, current = "125 A" },
    ]
    # 8 nvl72-power-shelf: 6 on side A, 2 on side B; with side A lost, 66 kW for
    # 100.8 kW of trays

Fix:
    Give the sides as many feeds each, so the shelves split evenly, or fit more shelves.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import rack_dc, side_losses
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import shelf_sides, shelves_by_feed


@rule("PWR019", "error", scope="rack")
def shelves_side_loss(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if not rack.redundant:
            continue
        if rack.index in analysis.running:
            continue  # parts lost (what-if): PWR001 says what losing another side does
        dc = rack_dc(rack)
        if dc is None or not dc.shelves or not dc.trays:
            continue
        shelves = shelves_by_feed(rack)
        per_side = shelf_sides(rack, shelves)
        losses = side_losses(dc, per_side)
        if not losses:
            continue
        worst = min(losses, key=lambda loss: loss.capacity)
        if dc.load <= worst.capacity * (1 + 1e-9):
            continue
        split = " + ".join(f"{n} on {side}" for side, n in per_side.items())
        load_text, capacity_text = fmt_apart(dc.load, worst.capacity, POWER)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"its {plural(len(dc.shelves), 'power shelf', 'power shelves')} are split "
            f"{split}: with side {worst.lost} lost the "
            f"{plural(worst.kept, 'shelf', 'shelves')} left deliver {capacity_text}, below "
            f"the trays' {at_least(dc.load_unknown)}{load_text}",
            hint="give each side as many feeds (the shelves go over the feeds in order), "
            f"or fit more shelves ({fmt(dc.shelf_rating or 0.0, POWER)} each)",
            values={"load": dc.load, "capacity": worst.capacity, "kept": float(worst.kept)},
            related=tuple(dev.ref for dev, f in shelves if f.group == worst.lost),
        )
