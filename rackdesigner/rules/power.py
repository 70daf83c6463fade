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

from ..analysis import Analysis, DeviceFacts, FeedFacts, RackFacts
from ..model import Feed
from ..refs import SITE
from ..units import CURRENT, POWER, RATIO, VOLTAGE, fmt, fmt_apart
from ..wording import at_least, plural
from .base import Finding, rule

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


def _feed_rating(facts: FeedFacts) -> str:
    """``415 V 3-phase 63 A × 0.8``."""
    return (
        f"{_supply(facts.feed)} {fmt(float(facts.feed.current or 0.0), CURRENT)} × {facts.derate:g}"
    )


def _feeds_rating(feeds: Iterable[FeedFacts]) -> str:
    """The feeds of one side: ``2 × 415 V 3-phase 63 A × 0.8 + 208 V 3-phase 30 A × 0.8``."""
    counts: dict[str, int] = {}
    for facts in feeds:
        text = _feed_rating(facts)
        counts[text] = counts.get(text, 0) + 1
    return " + ".join(text if n == 1 else f"{n} × {text}" for text, n in counts.items())


# -- PWR001 ----------------------------------------------------------------------------------


@rule("PWR001", "error", scope="rack", thresholds=("feed_derate",))
def load_over_capacity(analysis: Analysis) -> Iterator[Finding]:
    """A rack draws more than its feeds can carry, or holds powered devices and has no feed.

    Why it matters:
        A breaker may carry only part of its rating continuously: 80 % by default
        (`feed_derate`, or `derate` on a feed). A feed's usable capacity is
        V × I × derate, × √3 for 3-phase (V line-to-line): 36.2 kW for 415 V 3-phase 63 A.
        Feeds with a `side` are redundant: when side A is lost, side B alone must carry the
        whole rack, so the rack's capacity is its smallest side's total, not the sum.
        Feeds without a side add up. A rack of powered devices without any feed cannot run.

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
        if rack.side_capacity:
            side = min(sorted(rack.side_capacity), key=lambda s: rack.side_capacity[s])
            feeds = [f for f in rack.feeds if f.group in (side, "")]
        else:
            side = ""
            feeds = rack.feeds
        rating = _feeds_rating(feeds)
        if rack.redundant:
            detail = f"; side {side} alone must carry it: {rating}"
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


@rule("PWR002", "error", scope="rack", thresholds=("gpu_feed_min_voltage",))
def gpu_rack_low_voltage(analysis: Analysis) -> Iterator[Finding]:
    """A rack holding GPU nodes is fed by single phase or by 3-phase below the minimum voltage.

    Why it matters:
        A GPU node draws 10-14 kW: on one 230 V phase that is 45-60 A, at 120 V over 80 A,
        more than a branch circuit carries, and a rack holds several nodes. GPU racks
        belong on 3-phase 208 V or more (415 V; 480 V with 277 V-rated PSUs or a step-down
        PDU), never on standard 120 V outlets. The limit is the line-to-line voltage
        (`gpu_feed_min_voltage`, 208 V).

    Example:
        [[racks]]
        id = "g01"
        feeds = [ { id = "g01-A", voltage = "230 V", phases = 1, current = "32 A" } ]

        [[racks.devices]]
        id = "g01-n01"
        model = "dgx-h100"
        position = 2

    Fix:
        Feed the rack from a 3-phase circuit at 208 V or more (e.g. 415 V 3-phase with
        240 V outlets, or 208 V 3-phase).
    """
    minimum = analysis.thresholds["gpu_feed_min_voltage"]
    for rack in analysis.racks:
        if rack.gpu_nodes == 0:
            continue
        holds = f"rack {rack.rack.id} holds {plural(rack.gpu_nodes, 'GPU node')}"
        need = f"3-phase at {fmt(minimum, VOLTAGE)} or more"
        for facts in rack.feeds:
            feed = facts.feed
            voltage = float(feed.voltage or 0.0)
            if feed.phases == 3 and voltage >= minimum:
                continue
            if feed.phases == 3:
                message = (
                    f"{holds} but the feed is 3-phase {fmt(voltage, VOLTAGE)}, below the "
                    f"{fmt(minimum, VOLTAGE)} minimum"
                )
            else:
                message = (
                    f"{holds} but the feed is single-phase {fmt(voltage, VOLTAGE)}; GPU "
                    f"racks need {need}"
                )
            yield Finding(
                f"rack {rack.rack.id} feed {feed.id}",
                facts.ref,
                message,
                hint=f"feed it from a 3-phase circuit at {fmt(minimum, VOLTAGE)} or "
                "more (e.g. 415 V 3-phase with 240 V outlets)",
                values={
                    "voltage": voltage,
                    "min_voltage": minimum,
                    "phases": float(feed.phases or 0),
                },
            )


# -- PWR003 ----------------------------------------------------------------------------------


@rule("PWR003", "error", scope="site")
def shared_circuit(analysis: Analysis) -> Iterator[Finding]:
    """Two racks are fed from the same circuit.

    Why it matters:
        Each rack needs a dedicated circuit: two racks on one breaker share its capacity
        (each rack's check assumes it has the circuit to itself), and one fault or one
        trip takes both down. Circuits are compared by name, ignoring case and
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
            if other_rack is rack:  # the same rack twice: not two racks
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
    when = (
        f" when side {facts.group} carries the rack alone" if rack.redundant and facts.group else ""
    )
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
    thresholds=("phase_imbalance_max",),
    severities=("error", "warning"),
)
def line_overload(analysis: Analysis) -> Iterator[Finding]:
    """A feed's line exceeds its breaker limit or the lines are unbalanced, or a phase does not fit.

    Why it matters:
        A 3-phase breaker trips on its most loaded line, not on the total: a rack whose
        total fits its feed can still trip one phase if the devices crowd onto it. Each
        line's current is computed for the worst case, its side carrying the whole rack:
        on a wye feed a device with `phase = "L1"` loads L1 at V_LL / √3; on a delta feed
        `phase = "L1-L2"` loads that pair, and the line current is
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


@rule("PWR006", "info", scope="device", thresholds=("host_overhead",))
def power_estimated(analysis: Analysis) -> Iterator[Finding]:
    """A GPU node type declares no power: its draw is estimated from its GPUs' TDP.

    Why it matters:
        Without a declared maximum draw the node's power is estimated as
        GPU TDP × GPUs × (1 + `host_overhead`), host overhead 0.8 by default: the field
        guide's 8-10 kW per 8-GPU node, and a DGX H100 is 10.2 kW for 5.6 kW of GPUs. The
        estimate is used in every rack, feed, cooling and site total, and every finding
        built on it says "(estimated)".

    Example:
        [catalog.g493-sb0]
        gpu = "rtx-a6000"    # no power: 8 × 300 W × 1.8 = 4.32 kW estimated

    Fix:
        Set `power` to the vendor's maximum draw for the configuration you buy.
    """
    overhead = analysis.thresholds["host_overhead"]
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        if not dev.power_estimated or dev.power is None or dev.gpu is None or not dev.gpu.tdp:
            continue
        gpu_power = dev.gpu.tdp * dev.gpus
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"{key} declares no power: its draw is estimated at "
            f"{fmt(dev.power, POWER)} per node = {dev.gpus} × {dev.gpu.key} TDP "
            f"{fmt(dev.gpu.tdp, POWER)} × (1 + {overhead:g} host overhead), used for "
            f"{plural(len(devices), 'device')}",
            hint=f"set power in [catalog.{key}] to the vendor's maximum draw",
            values={
                "power": dev.power,
                "gpu_power": gpu_power,
                "host_overhead": overhead,
                "devices": float(len(devices)),
            },
        )


# -- PWR007 ----------------------------------------------------------------------------------


@rule("PWR007", "error", scope="site")
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
        On a rack with redundant sides (A and B) a device's PSUs are split evenly over the
        sides. When one side is lost the device keeps only the PSUs on the other: a DGX
        H100 has 6 PSUs and needs 4 at full load, so on 3 + 3 it keeps 3 and runs degraded
        (power-capped) or shuts down. The check applies where the type gives both `psus`
        and `psus_required`.

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
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{psus} PSUs split {' + '.join(map(str, shares))} over sides "
                f"{_names(sides)}: losing one side leaves {kept}, fewer than the "
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
