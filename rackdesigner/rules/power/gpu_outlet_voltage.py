"""A rack holding GPU nodes has outlets below the minimum voltage, or too much load on one
phase.

Why it matters:
    A GPU node draws 10-14 kW and its PSUs want 200-240 V: standard 120 V outlets (from
    a 120 V feed, or the line-to-neutral of a 208 V wye feed) would need twice the
    current and most GPU PSUs do not run on them at all. The check is on the outlet
    voltage: the feed's `outlet_voltage` where a PDU steps down, else V_LL / √3 on a wye
    feed (415 V → 240 V) and V_LL on a delta or single-phase feed (208 V, and 200 V
    3-phase in Japan): an error below `gpu_feed_min_voltage` (200 V). Single phase is
    fine for a small GPU rack (a 3.4 kW starter server on 208 V 30 A), but above
    `single_phase_max` (8 kW) one phase needs 35 A and more at 230 V: a warning when a
    single-phase feed of a GPU rack carries more in its worst case (its side carrying
    the rack with another side lost).

Example:
    [[racks]]
    id = "g01"
    feeds = [ { id = "g01-A", voltage = "208 V", phases = 3, current = "60 A",
                wiring = "wye" } ]   # 120 V outlets

    [[racks.devices]]
    id = "g01-n01"
    model = "dgx-h100"
    position = 2

Fix:
    Feed the rack at 200 V or more at the outlets (415 V wye gives 240 V, 208 V delta
    208 V), and put racks above 8 kW on 3-phase power.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import CURRENT, POWER, VOLTAGE, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import VOLTAGE_SLACK, estimated_text, outlet_source, supply


@rule(
    "PWR002",
    "error",
    scope="rack",
    thresholds=("gpu_feed_min_voltage", "single_phase_max"),
    severities=("error", "warning"),
)
def gpu_rack_low_voltage(analysis: Analysis) -> Iterator[Finding]:
    minimum = analysis.thresholds["gpu_feed_min_voltage"]
    limit = analysis.thresholds["single_phase_max"]
    for rack in analysis.racks:
        if rack.gpu_nodes == 0:
            continue
        holds = f"rack {rack.rack.id} holds {plural(rack.gpu_nodes, 'GPU node')}"
        for facts in rack.feeds:
            feed = facts.feed
            entity = f"rack {rack.rack.id} feed {feed.id}"
            outlet = facts.outlet_voltage
            if outlet < minimum - VOLTAGE_SLACK:
                yield Finding(
                    entity,
                    facts.ref,
                    f"{holds} but feed {feed.id} gives {fmt(outlet, VOLTAGE)} outlets "
                    f"({outlet_source(facts)}), below the {fmt(minimum, VOLTAGE)} minimum",
                    hint="feed it so that its outlets give 200-240 V (415 V 3-phase wye "
                    "gives 240 V, 208 V delta 208 V), or step down with outlet_voltage",
                    values={"voltage": outlet, "min_voltage": minimum},
                    severity="error",
                )
            elif feed.phases == 1 and facts.load > limit:
                load_text, limit_text = fmt_apart(facts.load, limit, POWER)
                yield Finding(
                    entity,
                    facts.ref,
                    f"{holds} and its single-phase feed {feed.id} ({supply(feed)} "
                    f"{fmt(float(feed.current or 0.0), CURRENT)}) carries "
                    f"{at_least(rack.load_unknown)}{load_text}"
                    f"{estimated_text(rack.estimated_power)}, above the {limit_text} one phase "
                    "should carry (single_phase_max)",
                    hint="feed the rack from a 3-phase circuit (e.g. 415 V 3-phase, 240 V "
                    "outlets), or spread its GPU nodes over more racks",
                    values={"load": facts.load, "limit": limit},
                    severity="warning",
                )
