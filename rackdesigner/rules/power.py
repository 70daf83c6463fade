"""Power rules (PWR): what each rack draws, what its feeds deliver, and how the load lands on
the lines.

The analysis sums every device's draw per rack (:class:`~rackdesigner.analysis.RackFacts`),
computes each feed's usable capacity (V × I × derate, × √3 for 3-phase) and its line
currents when its side carries the whole rack (:class:`~rackdesigner.analysis.FeedFacts`).
Where a rack holds devices of unknown draw its totals are lower bounds ("at least", PWR009);
where a draw is estimated from GPU TDP (PWR006) the messages say "(estimated)".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, FeedFacts, RackFacts
from rackdesigner.analysis.devices import host_overhead, psu_capacity
from rackdesigner.analysis.power_sides import cords_by_side, feed_rating, pdu_feeds
from rackdesigner.model.layout import Feed
from rackdesigner.model.refs import SITE
from rackdesigner.model.units import CURRENT, POWER, RATIO, VOLTAGE, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule

_VOLTAGE_SLACK = 1e-6  # V: float dust when an outlet voltage equals a range limit


def _estimated(estimated: bool) -> str:
    return " (estimated)" if estimated else ""


def _names(items: list[str], limit: int = 3) -> str:
    """``a, b and c`` / ``a, b, c and 4 more``."""
    if len(items) > limit:
        return f"{', '.join(items[:limit])} and {len(items) - limit} more"
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _supply(feed: Feed) -> str:
    """``415 V 3-phase``, ``230 V single-phase``."""
    phases = "3-phase" if feed.phases == 3 else "single-phase"
    return f"{fmt(float(feed.voltage or 0.0), VOLTAGE)} {phases}"


def _pf_text(power_factor: float) -> str:
    return "" if power_factor == 1.0 else f" × PF {power_factor:g}"


def _feed_rating(facts: FeedFacts, power_factor: float = 1.0) -> str:
    """``415 V 3-phase 63 A × 0.8`` (``× PF 0.95`` where the power factor is not 1)."""
    return (
        f"{_supply(facts.feed)} {fmt(float(facts.feed.current or 0.0), CURRENT)} × "
        f"{facts.derate:g}{_pf_text(power_factor)}"
    )


def _feeds_rating(feeds: Iterable[FeedFacts], power_factor: float = 1.0) -> str:
    """The feeds of one side: ``2 × 415 V 3-phase 63 A × 0.8 + 208 V 3-phase 30 A × 0.8``."""
    counts: dict[str, int] = {}
    for facts in feeds:
        text = _feed_rating(facts, power_factor)
        counts[text] = counts.get(text, 0) + 1
    return " + ".join(text if n == 1 else f"{n} × {text}" for text, n in counts.items())


# -- PWR001 ----------------------------------------------------------------------------------


@rule("PWR001", "error", scope="rack", thresholds=("feed_derate", "power_factor"))
def load_over_capacity(analysis: Analysis) -> Iterator[Finding]:
    """A rack draws more than its feeds can carry, or holds powered devices and has no feed.

    Why it matters:
        A breaker may carry only part of its rating continuously: 80 % by default
        (`feed_derate`, or `derate` on a feed). A feed's usable capacity is
        V × I × derate × PF, × √3 for 3-phase (V line-to-line; PF is `power_factor`,
        1.0 by default: a feed of S kVA delivers S × PF kW): 36.2 kW for 415 V 3-phase 63 A.
        Feeds with a `side` ("A", "B", "C", any short label) are redundant: with k ≥ 2
        sides the rack must run with any one side lost. Its PSUs are spread evenly over
        the sides, so each remaining side carries load ÷ (k − 1), and the rack's capacity
        is (k − 1) × its smallest side's capacity: with two sides the smaller side alone,
        with three 18.4 kW sides 36.8 kW. With one side label or none the feeds add up; a
        feed without a side beside sided feeds counts for no side (PWR013). A rack of
        powered devices without any feed cannot run.

    Example:
        [[racks]]
        id = "a01"
        feeds = [
          { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
          { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
        ]
        # four DGX H100 at 10.2 kW = 40.8 kW; each side gives 36.2 kW

    Fix:
        Move load to another rack, or raise the capacity: a larger circuit, or another feed
        on each side.
    """
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        load = rack.load
        bound = at_least(rack.load_unknown)
        estimated = _estimated(rack.estimated_power)
        entity = f"rack {rack.rack.id}"
        if rack.capacity is None:  # no feeds
            if load <= 0 and not rack.load_unknown:
                continue
            powered = sum(
                1
                for d in rack.devices
                if (d.power is None and d.type is not None) or (d.power or 0) > 0
            )
            amount = "unknown" if load <= 0 else f"{bound}{fmt(load, POWER)}{estimated}"
            yield Finding(
                entity,
                rack.ref,
                f"has no feed for its {plural(powered, 'powered device')} (load {amount})",
                hint='add feeds = [ { id = "...", voltage = "415 V", phases = 3, '
                'current = "63 A" } ] (one per side for redundancy)',
                values={"load": load, "capacity": 0.0},
            )
            continue
        capacity = rack.capacity
        if load <= capacity:
            continue
        k = len(rack.side_capacity)
        if k >= 2:
            side = min(rack.side_capacity, key=lambda s: rack.side_capacity[s])
            feeds = [f for f in rack.feeds if f.group == side]
        else:
            side = ""
            labels = {f.group for f in rack.feeds if f.group}
            # One side label: feeds without it count for no side (PWR013).
            feeds = [f for f in rack.feeds if f.group or not labels]
        rating = _feeds_rating(feeds, power_factor)
        if k == 2:
            detail = f"; side {side} alone must carry it: {rating}"
            more = "another feed on each side"
        elif k > 2:
            side_text = fmt(rack.side_capacity[side], POWER)
            detail = (
                f"; with any one of its {k} sides lost the other {k - 1} must carry it, at "
                f"most {k - 1} × {side_text} (side {side}: {rating})"
            )
            more = "another feed on each side"
        else:
            detail = f" ({rating})"
            more = "another feed"
        load_text, capacity_text = fmt_apart(load, capacity, POWER)
        yield Finding(
            entity,
            rack.ref,
            f"load {bound}{load_text}{estimated} exceeds usable feed capacity "
            f"{capacity_text}{detail}",
            hint=f"move {at_least(rack.load_unknown)}{fmt(load - capacity, POWER)} "
            f"of load to another rack, or raise the capacity (a larger "
            f"circuit or {more})",
            values={"load": load, "capacity": capacity},
        )


# -- PWR002 ----------------------------------------------------------------------------------


@rule(
    "PWR002",
    "error",
    scope="rack",
    thresholds=("gpu_feed_min_voltage", "single_phase_max"),
    severities=("error", "warning"),
)
def gpu_rack_low_voltage(analysis: Analysis) -> Iterator[Finding]:
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
            if outlet < minimum - _VOLTAGE_SLACK:
                yield Finding(
                    entity,
                    facts.ref,
                    f"{holds} but feed {feed.id} gives {fmt(outlet, VOLTAGE)} outlets "
                    f"({_source(facts)}), below the {fmt(minimum, VOLTAGE)} minimum",
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
                    f"{holds} and its single-phase feed {feed.id} ({_supply(feed)} "
                    f"{fmt(float(feed.current or 0.0), CURRENT)}) carries "
                    f"{at_least(rack.load_unknown)}{load_text}"
                    f"{_estimated(rack.estimated_power)}, above the {limit_text} one phase "
                    "should carry (single_phase_max)",
                    hint="feed the rack from a 3-phase circuit (e.g. 415 V 3-phase, 240 V "
                    "outlets), or spread its GPU nodes over more racks",
                    values={"load": facts.load, "limit": limit},
                    severity="warning",
                )


# -- PWR003 ----------------------------------------------------------------------------------


@rule("PWR003", "error", scope="site", reads=())
def shared_circuit(analysis: Analysis) -> Iterator[Finding]:
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


# -- PWR004 ----------------------------------------------------------------------------------


_LINE_ORDER = {"L1": 0, "L2": 1, "L3": 2}
_PAIRS = {"L1": "L1-L2 and L3-L1", "L2": "L1-L2 and L2-L3", "L3": "L2-L3 and L3-L1"}


def _amps(value: float, limit: float) -> str:
    return fmt_apart(value, limit, CURRENT)[0]


def _currents(lines: dict[str, float], limit: float) -> str:
    """``L1 40.6 A, L2 13.5 A, L3 13.5 A``."""
    ordered = sorted(lines.items(), key=lambda item: _LINE_ORDER.get(item[0], 9))
    return ", ".join(f"{name} {_amps(amps, limit)}" for name, amps in ordered)


def _caveat(rack: RackFacts) -> str:
    """What the line currents leave out or assume."""
    notes = []
    if rack.estimated_power:
        notes.append("estimated")
    if rack.load_unknown:
        notes.append("lower bounds: devices of unknown draw not counted")
    return f" ({'; '.join(notes)})" if notes else ""


def _rebalance(facts: FeedFacts) -> str:
    heaviest = max(facts.lines, key=lambda name: facts.lines[name])
    if facts.wiring == "delta":
        where = f"line {heaviest} (devices with phase {_PAIRS.get(heaviest, heaviest)})"
    else:
        where = f'line {heaviest} (devices with phase = "{heaviest}")'
    return f"move devices off {where} to the lighter lines, or remove `phase` to spread them"


def _overload(rack: RackFacts, facts: FeedFacts, limit_ratio: float) -> Finding | None:
    feed = facts.feed
    limit = facts.breaker_limit
    over = {name: amps for name, amps in facts.lines.items() if amps > limit}
    imbalance = facts.imbalance
    unbalanced = imbalance is not None and imbalance > limit_ratio
    if not over and not unbalanced:
        return None
    entity = f"rack {rack.rack.id} feed {feed.id}"
    caveat = _caveat(rack)
    if not over:
        assert imbalance is not None
        return Finding(
            entity,
            facts.ref,
            f"line currents {_currents(facts.lines, limit)}{caveat} are "
            f"{fmt(imbalance, RATIO)} imbalanced, over the "
            f"{fmt(limit_ratio, RATIO)} limit",
            hint=_rebalance(facts),
            values={"imbalance": imbalance, "limit": limit_ratio},
            severity="warning",
        )
    k = len(rack.side_capacity)
    if k == 2 and facts.group:
        when = f" when side {facts.group} carries the rack alone"
    elif k > 2 and facts.group:
        when = f" when side {facts.group} carries 1/{k - 1} of the rack with another side lost"
    else:
        when = ""
    rating = f"{fmt(float(feed.current or 0.0), CURRENT)} × {facts.derate:g}"
    worst = max(over.values())
    if facts.wiring is None:
        subject = f"current {_amps(worst, limit)}{caveat}{when} exceeds"
    elif len(over) == 3 and max(over.values()) - min(over.values()) < 1e-9 * worst:
        subject = f"each line carries {_amps(worst, limit)}{caveat}{when}, which exceeds"
    else:
        names = sorted(over, key=lambda name: _LINE_ORDER.get(name, 9))
        listed = _names([f"{name} {_amps(over[name], limit)}" for name in names])
        plural = len(names) > 1
        subject = (
            f"line current{'s' if plural else ''} {listed}{caveat}{when} "
            f"exceed{'' if plural else 's'}"
        )
    message = f"{subject} the breaker's continuous limit {fmt(limit, CURRENT)} ({rating})"
    values = {"current": worst, "limit": limit}
    if unbalanced:
        assert imbalance is not None
        message += (
            f"; the lines are {fmt(imbalance, RATIO)} imbalanced ({_currents(facts.lines, limit)})"
        )
        values["imbalance"] = imbalance
        hint = f"{_rebalance(facts)}; or move load to another rack"
    else:
        hint = "move load to another rack or feed it from a larger circuit"
    return Finding(entity, facts.ref, message, hint=hint, values=values, severity="error")


@rule(
    "PWR004",
    "error",
    scope="rack",
    thresholds=("phase_imbalance_max", "power_factor"),
    severities=("error", "warning"),
)
def line_overload(analysis: Analysis) -> Iterator[Finding]:
    """A feed's line exceeds its breaker limit or the lines are unbalanced, or a phase does not fit.

    Why it matters:
        A 3-phase breaker trips on its most loaded line, not on the total: a rack whose
        total fits its feed can still trip one phase if the devices crowd onto it. Each
        line's current is computed for the worst case: with k ≥ 2 sides another side is
        lost and the feed's side carries load ÷ (k − 1) (two sides: the whole rack), split
        evenly over the side's feeds; without sides the feeds share the load. Current is
        P ÷ (V × PF) (`power_factor`, 1.0 by default): on a wye feed a device with
        `phase = "L1"` loads L1 at V_LL / √3; on a delta feed `phase = "L1-L2"` loads that
        pair, and the line current is
        I_L1 = √(I_12² + I_31² + I_12·I_31); devices without a phase spread evenly. A line
        over the breaker rating × derate is an error; line currents that differ from their
        mean by more than `phase_imbalance_max` (20 %) are a warning (an error that also has
        the imbalance says so). A feed can be over while the rack's total fits its capacity,
        when devices crowd onto one line or unequal feeds share a rack's load evenly. A
        `phase` the feed does not have ("L1" on a delta feed, "L1-L2" on a wye feed, any
        phase on a single-phase feed) is an error on the device.

    Example:
        [[racks]]
        id = "p01"
        feeds = [ { id = "p01-A", voltage = "208 V", phases = 3, current = "60 A" } ]

        [[racks.devices]]
        id = "p01-n01"
        model = "dgx-h100"   # 10.2 kW on one pair: 49 A on L1 and L2, limit 48 A
        position = 2
        phase = "L1-L2"

    Fix:
        Spread devices over the lines (`phase`, or leave it out to spread evenly), use the
        phase names the feed's wiring has, or move load to another rack.
    """
    limit_ratio = analysis.thresholds["phase_imbalance_max"]
    for rack in analysis.racks:
        for facts in rack.feeds:
            finding = _overload(rack, facts, limit_ratio)
            if finding is not None:
                yield finding
        if not rack.phase_conflicts:
            continue
        by_device: dict[int, tuple[DeviceFacts, dict[str, list[str]]]] = {}
        for conflict in rack.phase_conflicts:
            _, reasons = by_device.setdefault(id(conflict.device), (conflict.device, {}))
            reasons.setdefault(conflict.reason, []).append(conflict.feed.id)
        for dev, reasons in by_device.values():
            parts = [
                f"feed{'s' if len(ids) > 1 else ''} {_names(ids)}: {reason}"
                for reason, ids in reasons.items()
            ]
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"phase {dev.device.phase} does not fit {'; '.join(parts)}",
                hint="use a phase the feed has, or remove `phase` to spread the load evenly",
                severity="error",
            )


# -- PWR005 ----------------------------------------------------------------------------------


@rule("PWR005", "error", scope="device")
def power_below_gpu_tdp(analysis: Analysis) -> Iterator[Finding]:
    """A device type declares less power than its GPUs' TDP alone.

    Why it matters:
        A node's maximum draw is its GPUs' TDP plus CPUs, memory, NICs and fans: eight
        H100 SXM at 700 W are 5.6 kW before the host, and a DGX H100 is rated 10.2 kW.
        A declared power below the GPUs' sum is a typo or a per-PSU figure, and every rack
        total, feed and cooling check built on it is too low.

    Example:
        [catalog.my-h100-node]
        kind = "gpu-node"
        gpu = "h100-sxm"
        gpus = 8
        power = "5 kW"       # 8 × 700 W = 5.6 kW

    Fix:
        Set `power` to the vendor's maximum system draw, or leave it out to have it
        estimated from the GPUs' TDP (PWR006).
    """
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        dtype = dev.type
        gpu = dev.gpu
        if dtype is None or dtype.power is None or gpu is None or not gpu.tdp or not dev.gpus:
            continue
        gpu_power = gpu.tdp * dev.gpus
        power = float(dtype.power)
        if power >= gpu_power:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"{key} declares power {fmt(power, POWER)}, below its GPUs' TDP alone: "
            f"{dev.gpus} × {gpu.key} at {fmt(gpu.tdp, POWER)} = "
            f"{fmt(gpu_power, POWER)} (used by {plural(len(devices), 'device')})",
            hint="set power to the vendor's maximum system draw, or remove it to "
            "estimate it from the GPU TDP",
            values={"power": power, "gpu_power": gpu_power},
        )


# -- PWR006 ----------------------------------------------------------------------------------


@rule(
    "PWR006",
    "info",
    scope="device",
    thresholds=("host_overhead", "host_overhead_pcie"),
    severities=("info", "warning"),
)
def power_estimated(analysis: Analysis) -> Iterator[Finding]:
    """A GPU node type declares no power: its draw is estimated from its GPUs' TDP.

    Why it matters:
        Without a declared maximum draw the node's power is estimated as
        GPU TDP × GPUs × (1 + host overhead): `host_overhead` (0.8) by default, the field
        guide's 8-10 kW per 8-GPU node (a DGX H100 is 10.2 kW for 5.6 kW of GPUs), and
        `host_overhead_pcie` (0.4) for a PCIe-slot chassis (`form_factor = "pcie"`), which
        has no NVSwitch baseboard and fewer NICs. The estimate never exceeds what the
        PSUs deliver while redundant, `psus_required` × `psu_rating`: above it the
        estimate is capped and the rule warns, since the GPUs at full TDP would need more
        than the chassis' PSUs give. The estimate is used in every rack, feed, cooling and
        site total, and every finding built on it says "(estimated)".

    Example:
        [catalog.g493-sb0]
        gpu = "rtx-a6000"    # no power: 8 × 300 W × 1.4 = 3.36 kW estimated

    Fix:
        Set `power` to the vendor's maximum draw for the configuration you buy; where the
        GPUs need more than the PSUs give, choose GPUs the chassis is built for or a
        chassis with larger PSUs.
    """
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        if not dev.power_estimated or dev.power is None or dev.gpu is None or not dev.gpu.tdp:
            continue
        if dev.type is None:
            continue
        overhead = host_overhead(dev.type, analysis.thresholds)
        pcie = dev.type.form_factor == "pcie"
        overhead_text = (
            f"{overhead:g} host overhead of a PCIe chassis, host_overhead_pcie"
            if pcie
            else f"{overhead:g} host overhead"
        )
        gpu_power = dev.gpu.tdp * dev.gpus
        demand = dev.power_demand if dev.power_demand is not None else dev.power
        entity, subject = analysis.type_site(key)
        values = {
            "power": dev.power,
            "gpu_power": gpu_power,
            "host_overhead": overhead,
            "devices": float(len(devices)),
        }
        formula = (
            f"{dev.gpus} × {dev.gpu.key} TDP {fmt(dev.gpu.tdp, POWER)} × (1 + {overhead_text})"
        )
        cap = psu_capacity(dev.type)
        if cap is not None and demand > dev.power:
            psus = dev.type.psus_required or dev.type.psus
            rating = float(dev.type.psu_rating or 0.0)
            demand_text, cap_text = fmt_apart(demand, cap, POWER)
            yield Finding(
                entity,
                subject,
                f"{key} declares no power: its GPUs need {demand_text} per node = {formula}, "
                f"more than the {cap_text} its PSUs deliver while redundant ({psus} × "
                f"{fmt(rating, POWER)}, psus_required × psu_rating); the estimate is capped "
                f"at {cap_text} for {plural(len(devices), 'device')}, "
                f"{fmt(demand - cap, POWER)} short",
                hint=f"use GPUs the chassis is built for, a chassis with larger PSUs, or set "
                f"power in [catalog.{key}] to the vendor's maximum draw",
                values={**values, "demand": demand, "psu_capacity": cap, "excess": demand - cap},
                severity="warning",
            )
            continue
        yield Finding(
            entity,
            subject,
            f"{key} declares no power: its draw is estimated at "
            f"{fmt(dev.power, POWER)} per node = {formula}, used for "
            f"{plural(len(devices), 'device')}",
            hint=f"set power in [catalog.{key}] to the vendor's maximum draw",
            values=values,
        )


# -- PWR007 ----------------------------------------------------------------------------------


@rule("PWR007", "error", scope="site", reads=())
def site_over_budget(analysis: Analysis) -> Iterator[Finding]:
    """The site's total load exceeds its power budget.

    Why it matters:
        The site feed (utility service, transformer, UPS) is sized to `site.power_budget`;
        the racks together must fit it, or the site feed must be sized up.

    Example:
        [site]
        power_budget = "160 kW"   # 16 DGX H100 draw 163 kW

    Fix:
        Raise `power_budget` to what the site can deliver (a larger site feed), or remove
        load.
    """
    site = analysis.layout.site
    if site is None or site.power_budget is None:
        return
    budget = float(site.power_budget)
    load = analysis.site_load
    if load <= budget:
        return
    bound = at_least(analysis.site_load_unknown)
    estimated = _estimated(any(r.estimated_power for r in analysis.racks))
    load_text, budget_text = fmt_apart(load, budget, POWER)
    yield Finding(
        "[site]",
        SITE,
        f"site load {bound}{load_text}{estimated} exceeds power_budget {budget_text}",
        hint=f"size the site feed for {bound}{fmt(load, POWER)} or remove "
        f"{fmt(load - budget, POWER)} of load",
        values={"load": load, "budget": budget},
    )


# -- PWR008 ----------------------------------------------------------------------------------


@rule("PWR008", "warning", scope="rack")
def psus_lost_with_side(analysis: Analysis) -> Iterator[Finding]:
    """A device keeps fewer PSUs than it needs at full load when one feed side is lost.

    Why it matters:
        On a rack with k ≥ 2 redundant sides a device's PSUs go round-robin over the sides
        in label order (PSU j on side ((j − 1) mod k) + 1). When the side holding most of
        them is lost the device keeps psus − ⌈psus ÷ k⌉: a DGX H100 has 6 PSUs and needs 4
        at full load, so on A + B (3 + 3) it keeps 3 and runs degraded (power-capped) or
        shuts down, while NVIDIA's three-PDU rack (A, B, C: 2 + 2 + 2) keeps 4. The check
        applies where the type gives both `psus` and `psus_required`.

    Example:
        [[racks]]
        id = "a01"
        feeds = [
          { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
          { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
        ]

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # 6 PSUs, 4 required: 3 + 3
        position = 2

    Fix:
        Accept (and plan for) degraded operation on a side loss, or use a model whose PSUs
        on one side carry its full load (e.g. 3 of 6 required).
    """
    for rack in analysis.racks:
        if not rack.redundant:
            continue
        sides = sorted(rack.side_capacity)
        count = len(sides)
        for dev in rack.devices:
            dtype = dev.type
            if dtype is None or not dtype.psus or not dtype.psus_required:
                continue
            psus, required = dtype.psus, dtype.psus_required
            base, extra = divmod(psus, count)
            shares = [base + 1] * extra + [base] * (count - extra)
            kept = psus - shares[0]
            if kept >= required:
                continue
            losing = "one side" if len(set(shares)) == 1 else f"side {sides[0]}"
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{plural(psus, 'PSU')} split {' + '.join(map(str, shares))} over sides "
                f"{_names(sides)}: losing {losing} leaves {kept}, fewer than the "
                f"{required} it needs at full load",
                hint="plan for degraded operation (power capping) on a side loss, "
                f"or use a model that runs on {kept} PSUs",
                values={"psus": float(psus), "kept": float(kept), "required": float(required)},
            )


# -- PWR009 ----------------------------------------------------------------------------------


@rule("PWR009", "warning", scope="device")
def power_unknown(analysis: Analysis) -> Iterator[Finding]:
    """A device's power draw is unknown, so the totals that include it are lower bounds.

    Why it matters:
        A device type with no `power` (and, for a GPU node, no GPU whose TDP would give an
        estimate) adds nothing to its rack's load, heat and feed checks. Missing data is
        never counted as zero silently: every total that includes such a device is a lower
        bound, shown as "≥" or "at least".

    Example:
        [catalog.ups-shelf]
        kind = "other"
        height = "2 U"       # no power

    Fix:
        Set `power` in the type's `[catalog.KEY]` table (for a GPU node, `gpu` also lets
        the draw be estimated).
    """
    for key, devices in analysis.types_used.items():
        unknown = [d for d in devices if d.power is None]
        if not unknown:
            continue
        dev = unknown[0]
        racks: dict[int, str] = {}
        for d in unknown:
            racks.setdefault(d.rack_index, d.rack.id)
        gpu_node = dev.is_gpu_node
        why = "no power and no GPU TDP to estimate it from" if gpu_node else "no power"
        entity, subject = analysis.type_site(key)
        names = _names(list(racks.values()))
        totals = (
            f"the load of rack {names} is a lower bound (≥)"
            if len(racks) == 1
            else f"the loads of racks {names} are lower bounds (≥)"
        )
        yield Finding(
            entity,
            subject,
            f"the draw of {key} is unknown ({why}) for {plural(len(unknown), 'device')}: {totals}",
            hint=f"set power in [catalog.{key}]"
            + (" or its gpu so the draw can be estimated" if gpu_node else ""),
            values={"devices": float(len(unknown)), "racks": float(len(racks))},
        )


# -- PWR010 ----------------------------------------------------------------------------------


def _source(facts: FeedFacts) -> str:
    """Where a feed's outlet voltage comes from: ``480 V 3-phase wye``."""
    feed = facts.feed
    if feed.outlet_voltage is not None:
        return f"outlet_voltage of a {_supply(feed)} feed"
    return f"{_supply(feed)} {facts.wiring}" if facts.wiring else _supply(feed)


def _outlets(feeds: list[FeedFacts]) -> str:
    """``the 277 V outlets of feeds a01-A and a01-B (480 V 3-phase wye)``, grouped by voltage."""
    groups: dict[tuple[str, str], list[str]] = {}
    for facts in feeds:
        key = (fmt(facts.outlet_voltage, VOLTAGE), _source(facts))
        groups.setdefault(key, []).append(facts.feed.id)
    return "; ".join(
        f"the {volts} outlets of feed{'s' if len(ids) > 1 else ''} {_names(ids)} ({source})"
        for (volts, source), ids in groups.items()
    )


def _range(low: float, high: float) -> str:
    """``200-240 V``."""
    a, b = fmt(low, VOLTAGE), fmt(high, VOLTAGE)
    unit_a, unit_b = a.rpartition(" ")[2], b.rpartition(" ")[2]
    return f"{a.rpartition(' ')[0]}-{b}" if unit_a == unit_b else f"{a}-{b}"


@rule("PWR010", "error", scope="rack")
def input_voltage_mismatch(analysis: Analysis) -> Iterator[Finding]:
    """A device's PSUs do not accept its rack's outlet voltage.

    Why it matters:
        A PSU accepts a range of input voltage (`input_voltage`, e.g. 200-240 V). A rack's
        outlets give the feed's `outlet_voltage` where a PDU steps down, else V_LL / √3 on
        a wye feed (415 V → 240 V, 480 V → 277 V) and V_LL on a delta or single-phase feed
        (208 V). A 200-240 V PSU on a 480 V wye feed sees 277 V and fails; on 120 V it
        does not start.

    Example:
        [[racks]]
        id = "a01"
        feeds = [ { id = "a01-A", voltage = "480 V", phases = 3, current = "60 A" } ]

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # 200-240 V PSUs on 277 V outlets
        position = 2

    Fix:
        Feed the rack at a voltage whose outlets suit the PSUs (415 V wye for 240 V, 208 V
        delta), use a step-down PDU (`outlet_voltage` on the feed), or order PSUs rated for
        the outlet voltage.
    """
    for rack in analysis.racks:
        if not rack.feeds:
            continue
        for dev in rack.devices:
            dtype = dev.type
            if dtype is None or dtype.input_voltage is None:
                continue
            low, high = (float(v) for v in dtype.input_voltage)
            bad = [
                f
                for f in rack.feeds
                if f.outlet_voltage < low - _VOLTAGE_SLACK
                or f.outlet_voltage > high + _VOLTAGE_SLACK
            ]
            if not bad:
                continue
            rng = _range(low, high)
            examples = (
                " (415 V wye gives 240 V, 208 V delta 208 V)"
                if low <= 208.0 and high >= 240.0
                else ""
            )
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} PSUs accept {rng}, not {_outlets(bad)}",
                hint=f"feed the rack so its outlets give {rng}{examples}, use a "
                "step-down PDU (outlet_voltage on the feed), or PSUs rated for "
                "the outlet voltage",
                values={"outlet_voltage": bad[0].outlet_voltage, "low": low, "high": high},
            )


# -- PWR011 ----------------------------------------------------------------------------------


def _pdus_by_feed(rack: RackFacts) -> list[tuple[DeviceFacts, FeedFacts]]:
    """The rack's PDUs (kind pdu) and the feed each is on (rules.md v1.1, PSUs and PDUs)."""
    pdus = [d for d in rack.devices if d.kind == "pdu"]
    if not pdus or not rack.feeds:
        return []
    by_id = {f.feed.id: f for f in rack.feeds}
    where = pdu_feeds([d.device for d in pdus], [f.feed for f in rack.feeds])
    return [(d, by_id[where[d.device.id]]) for d in pdus if where.get(d.device.id) in by_id]


def _side_groups(rack: RackFacts) -> tuple[list[str], float]:
    """The rack's sides ("" alone without k ≥ 2 sides) and the share of the load each
    carries with another side lost."""
    labels = list(rack.side_capacity)
    if len(labels) >= 2:
        return labels, 1.0 / (len(labels) - 1)
    return [""], 1.0


def _side_name(label: str) -> str:
    return f"side {label}'s PDUs" if label else "its PDUs"


@rule("PWR011", "error", scope="rack", thresholds=("power_factor",))
def pdu_rating(analysis: Analysis) -> Iterator[Finding]:
    """A side's PDUs are rated below what the side carries, or a PDU is rated above its feed.

    Why it matters:
        A PDU is a limit of its own: its `capacity` is its continuous rating (the vendor's;
        European 32 A units carry their full current, North American units 80 % of their
        plug). With k ≥ 2 sides each side must carry load ÷ (k − 1) when another side is
        lost, and the PDUs on its feeds must be rated for that together; without sides the
        rack's PDUs carry its whole load. A PDU rated above its feed's rating (V × I × PF,
        × √3 for 3-phase, no derate) was built for a larger circuit: its plug does not fit
        the receptacle, and its branch breakers cannot trip before the feed's. A PDU sits
        on the feed its `feed` names; PDUs without one go over the rack's feeds in order.
        Racks that list no PDUs, and sides with a PDU of unknown rating, are not judged.

    Example:
        [[racks]]
        id = "a01"
        feeds = [
          { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
          { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
        ]

        [[racks.devices]]
        id = "a01-pdu-A"
        model = "pdu-3ph-415v-32a"   # APC AP8886, 22 kW, for a 25 kW rack
        feed = "a01-A"

    Fix:
        Add a PDU on the side or use a larger one (within the circuit's rating), and match
        each PDU to its circuit: a 32 A PDU on a 32 A circuit.
    """
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        pdus = _pdus_by_feed(rack)
        if not pdus:
            continue
        labels, share = _side_groups(rack)
        carried = rack.load * share
        for label in labels:
            members = [d for d, f in pdus if not label or f.group == label]
            ratings = [d.type.capacity if d.type is not None else None for d in members]
            if any(r is None for r in ratings):
                continue
            rating = sum(float(r) for r in ratings if r is not None)
            if carried <= rating:
                continue
            lost = " it carries with another side lost" if label else " the rack draws"
            load_text, rating_text = fmt_apart(carried, rating, POWER)
            yield Finding(
                f"rack {rack.rack.id}",
                rack.ref,
                f"{_side_name(label)} are rated {rating_text} in all, below the "
                f"{at_least(rack.load_unknown)}{load_text}{_estimated(rack.estimated_power)}"
                f"{lost}",
                hint=f"add a PDU on {'side ' + label if label else 'the rack'} or use a "
                "larger one (within its circuit's rating)",
                values={"rating": rating, "load": carried},
                related=tuple(d.ref for d in members),
            )
        for dev, feed in pdus:
            if dev.type is None or dev.type.capacity is None:
                continue
            rating = float(dev.type.capacity)
            limit = feed_rating(feed.feed, power_factor)
            if rating <= limit * (1 + 1e-9):
                continue
            rating_text, limit_text = fmt_apart(rating, limit, POWER)
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} is rated {rating_text}, above the {limit_text} rating "
                f"of feed {feed.feed.id} ({_supply(feed.feed)} "
                f"{fmt(float(feed.feed.current or 0.0), CURRENT)}{_pf_text(power_factor)}): "
                "it is built for a larger circuit",
                hint="use a PDU made for the circuit (its plug fits the receptacle), or "
                "feed it from the circuit it is made for",
                values={"rating": rating, "feed_rating": limit},
                related=(feed.ref,),
            )


# -- PWR012 ----------------------------------------------------------------------------------


@rule("PWR012", "warning", scope="rack")
def pdu_outlets(analysis: Analysis) -> Iterator[Finding]:
    """The PSU cords on a side outnumber its PDUs' outlets.

    Why it matters:
        Every PSU needs an outlet of its class: a C20 inlet (16 A, 3 kW PSUs) a C19
        outlet, a C14 inlet (10 A) a C13 outlet, or a spare C19 with a C20-to-C13 cord,
        never the reverse. A device's PSUs go round-robin over the rack's sides, so a DGX
        H100's six C20 cords are 3 per side on A and B. A side (without sides: the rack)
        is short when its C19-class cords (`psu_inlet` c20 or c19) exceed its PDUs' C19
        outlets, or all its cords exceed C13 + C19 outlets. Count them before ordering
        PDUs. A side with a PDU whose `outlets` are not given is not counted; devices
        without `psu_inlet` are not counted.

    Example:
        [[racks.devices]]
        id = "a01-pdu-A"
        model = "pdu-3ph-415v-32a"   # APC AP8886: 30 x C13, 12 x C19
        feed = "a01-A"

        # five DGX H100 on sides A and B: 15 C20 cords per side

    Fix:
        Use PDUs with more C19 outlets (or add one on the side), or move devices to
        another rack.
    """
    for rack in analysis.racks:
        pdus = _pdus_by_feed(rack)
        if not pdus:
            continue
        labels, _ = _side_groups(rack)
        cords = cords_by_side(
            (
                (d.type.psus, d.type.psu_inlet)
                for d in rack.devices
                if d.type is not None and d.kind != "pdu"
            ),
            labels if labels != [""] else [],
        )
        for label in labels:
            members = [d for d, f in pdus if not label or f.group == label]
            if not members or any(d.type is None or d.type.outlets is None for d in members):
                continue
            c13 = sum((d.type.outlets or {}).get("c13", 0) for d in members if d.type)
            c19 = sum((d.type.outlets or {}).get("c19", 0) for d in members if d.type)
            big, total = cords.get(label, (0, 0))
            where = f"side {label}: " if label else ""
            related = tuple(d.ref for d in members)
            if big > c19:
                yield Finding(
                    f"rack {rack.rack.id}",
                    rack.ref,
                    f"{where}{big} C19-class PSU cords (C20 inlets) for {c19} C19 outlets "
                    "on its PDUs",
                    hint="use PDUs with more C19 outlets or add one, or move devices to "
                    "another rack",
                    values={"cords": float(big), "outlets": float(c19)},
                    related=related,
                )
            elif total > c13 + c19:
                yield Finding(
                    f"rack {rack.rack.id}",
                    rack.ref,
                    f"{where}{total} PSU cords for {c13 + c19} outlets on its PDUs "
                    f"({c13} C13 + {c19} C19)",
                    hint="use PDUs with more outlets or add one, or move devices to another rack",
                    values={"cords": float(total), "outlets": float(c13 + c19)},
                    related=related,
                )


# -- PWR013 ----------------------------------------------------------------------------------


@rule("PWR013", "error", scope="rack")
def feed_without_side(analysis: Analysis) -> Iterator[Finding]:
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
