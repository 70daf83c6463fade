"""The designer's summary: per rack, power and heat against their limits, worst first.

Plain data from :func:`rackdesigner.report.report.build` (the same figures ``rackdesigner report``
prints) and the analysis; no Textual here. A rack's *worst* share is the largest of its
power used ÷ usable capacity, its limited heat ÷ that limit and its busiest line's current
÷ the breaker's continuous limit, so the racks nearest to (or over) a limit come first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.report.report import Report, build
from rackdesigner.report.workload_brief import (
    storage_brief,
    storage_lines,
    workload_brief,
    workload_lines,
)

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, RackFacts


@dataclass(frozen=True, slots=True)
class RackSummary:
    rack: str
    load: float  # W
    load_is_lower_bound: bool
    capacity: float | None  # W usable with every side working; None without feeds
    one_side_lost: float | None  # W usable with one side lost (k ≥ 2 sides), else None
    heat: float  # W of the heat the limit below applies to
    heat_what: str  # "air", "residual air", "door"
    heat_limit: float | None  # W; None where no limit applies (immersion)
    cooling: str
    verdict: str
    current: float  # A on the busiest line of any feed (its side alone)
    current_limit: float  # A, that feed's breaker × derate
    phase: str  # "a01-A L2"
    gpus: int
    lines: dict[str, float] = field(default_factory=dict)  # that feed's current per line, A

    @property
    def shares(self) -> list[float]:
        out = []
        if self.capacity:
            out.append(self.load / self.capacity)
        elif self.load > 0:
            out.append(float("inf"))  # load without a feed
        if self.heat_limit:
            out.append(self.heat / self.heat_limit)
        if self.current_limit:
            out.append(self.current / self.current_limit)
        return out

    @property
    def worst(self) -> float:
        return max(self.shares, default=0.0)


@dataclass(frozen=True, slots=True)
class CduSummary:
    cdu: str
    cdus: list[str]
    load: float
    capacity: float | None
    n_plus_one: float | None  # W the group carries with its largest CDU lost
    margin: float | None  # W left at N+1; negative: short


@dataclass(frozen=True, slots=True)
class LiquidGroupSummary:
    """A CDU group under its loop: heat against its CDUs' capacity at the approach they
    run at, the margin with one lost, the flow its cold plates need against its pumps'."""

    cdus: list[str]
    heat: float  # W
    capacity: float | None  # W at approach; None: not rated there, or unknown
    approach: float | None  # K, its first CDU's
    margin_one_lost: float | None  # W
    flow_needed: float  # m³/s
    pump_flow: float | None  # m³/s
    supply: float | None  # °C
    return_temperature: float | None  # °C


@dataclass(frozen=True, slots=True)
class LoopSummary:
    """A water loop (report's ``liquid_loops``): heat against its plant's capacity, its
    flow, supply and return; the CDU groups on it. ``loop`` None: the groups on none."""

    loop: str | None
    kind: str
    grade: str | None  # its ASHRAE class
    supply: float | None  # °C
    return_temperature: float | None  # °C
    heat: float  # W
    capacity: float | None  # W
    flow: float | None  # m³/s
    groups: list[LiquidGroupSummary] = field(default_factory=list)

    @property
    def margin(self) -> float | None:
        return None if self.capacity is None else self.capacity - self.heat


@dataclass(slots=True)
class Summary:
    racks: list[RackSummary] = field(default_factory=list)  # worst first
    cdus: list[CduSummary] = field(default_factory=list)  # smallest margin first
    loops: list[LoopSummary] = field(default_factory=list)  # (v1.4) as the layout lists them
    gpus: int = 0
    gpus_by_model: dict[str, int] = field(default_factory=dict)
    cost: float = 0.0
    per_gpu: float | None = None
    unpriced: int = 0
    site_load: float = 0.0
    site_budget: float | None = None
    # The workload's memory fit and gradient sync: (label, text, level) lines, and in one
    # phrase (with the checkpoint's time) where there is no room for them.
    workload: list[tuple[str, str, str]] = field(default_factory=list)
    workload_brief: str = ""
    # The storage a GPU and the checkpoint's time, where there is room after the workload's
    # lines and the loops' detail; else in one phrase.
    storage: list[tuple[str, str, str]] = field(default_factory=list)
    storage_brief: str = ""


def heat_limit(analysis: Analysis, facts: RackFacts) -> tuple[float, str, float | None]:
    """The heat a rack's cooling must remove and its limit, as the cooling verdict reads
    them: air racks and the residual air of liquid racks against ``air_cooling_max``, a
    rear-door rack's heat against its door."""
    limit = analysis.thresholds["air_cooling_max"]
    if facts.cooling == "air":
        return facts.air_heat, "air", limit
    if facts.cooling == "liquid":
        return facts.air_heat, "residual air", limit
    if facts.cooling == "rear-door":
        door = facts.door
        capacity = None
        if door is not None and door.type is not None and door.type.kind == "rear-door":
            capacity = float(door.type.capacity or 0.0) or None
        return facts.heat, "door", capacity
    return facts.heat, facts.cooling, None


def loop_summaries(section: dict[str, Any] | None) -> list[LoopSummary]:
    """The report's ``liquid_loops`` section as the summary's loops, each with the CDU
    groups whose first CDU hangs on it (groups on no loop last, under ``loop`` None)."""
    if not section:
        return []
    loops = [
        LoopSummary(
            d["loop"],
            d["kind"],
            d["ashrae_class"],
            d["supply_temperature"],
            d["return_temperature"],
            d["heat"],
            d["capacity"],
            d["flow"],
        )
        for d in section["loops"]
    ]
    by_id = {loop.loop: loop for loop in loops}
    for g in section["cdu_groups"]:
        first = g["cdus"][0] if g["cdus"] else None
        group = LiquidGroupSummary(
            [c["cdu"] for c in g["cdus"]],
            g["heat"],
            g["capacity"],
            first["approach"] if first else None,
            g["margin_one_lost"],
            g["flow_needed"],
            g["pump_flow"],
            g["supply_temperature"],
            g["return_temperature"],
        )
        home = by_id.get(first["loop"] if first else None)
        if home is None:
            home = by_id[None] = LoopSummary(None, "none", None, None, None, 0.0, None, None)
            loops.append(home)
        home.groups.append(group)
    return loops


def summarise(analysis: Analysis, report: Report | None = None) -> Summary:
    # Power, cooling, compute and cost only: the fabric figures are the topology view's.
    report = report if report is not None else build(analysis, network=False, cords=False)
    power = {r["rack"]: r for r in report["power"]["racks"]}
    cooling = {r["rack"]: r for r in report["cooling"]["racks"]}
    busiest: dict[str, tuple[float, float, str, dict[str, float]]] = {}
    for feed in report["power"]["feeds"]:
        limit = feed["current"] * feed["derate"]
        for line, amps in feed["lines"].items():
            share = amps / limit if limit else 0.0
            best = busiest.get(feed["rack"])
            if best is None or share > (best[0] / best[1] if best[1] else 0.0):
                busiest[feed["rack"]] = (amps, limit, f"{feed['feed']} {line}", feed["lines"])
    racks = []
    for facts in analysis.racks:
        rid = facts.rack.id
        p, c = power[rid], cooling[rid]
        heat, what, limit = heat_limit(analysis, facts)
        amps, breaker, phase, lines = busiest.get(rid, (0.0, 0.0, "", {}))
        racks.append(
            RackSummary(
                rid,
                p["load"],
                p["load_is_lower_bound"],
                p["capacity"],
                p["one_side_lost"],
                heat,
                what,
                limit,
                c["cooling"],
                c["verdict"],
                amps,
                breaker,
                phase,
                facts.gpus,
                dict(lines),
            )
        )
    order = {r.rack: i for i, r in enumerate(racks)}
    racks.sort(key=lambda r: (-r.worst, order[r.rack]))
    cdus = [
        CduSummary(c["cdu"], c["cdus"], c["load"], c["capacity"], c["n_plus_one"], c["margin"])
        for c in report["cooling"]["cdus"]
    ]
    cdus.sort(key=lambda c: (c.margin if c.margin is not None else float("inf"), c.cdu))
    compute, cost, site = report["compute"], report["cost"], report["power"]["site"]
    return Summary(
        racks,
        cdus,
        loop_summaries(report.get("liquid_loops")),
        compute["gpus"],
        dict(sorted(compute["gpus_by_model"].items(), key=lambda kv: (-kv[1], kv[0]))),
        cost["total"],
        cost["per_gpu"],
        cost["unpriced_devices"],
        site["load"],
        site["budget"],
        workload_lines(report.get("workload"), analysis),
        workload_brief(report.get("workload"), report.get("storage")),
        storage_lines(report.get("storage"), analysis),
        storage_brief(report.get("storage")),
    )
