"""The power chain behind the racks' feeds (docs/power-chain.md): ratings and loads.

A layout's ``[[power.elements]]`` form a directed graph from the sources (utility
services, generators) through ATSs, switchgear, UPSs, transformers, RPPs and busways (or
NVIDIA's 800 VDC power racks) down to the feeds that name an element as ``source``. This
module derives, once per analysis and in time linear in the hall:

- each element's **ratings** as continuous watts: a kW rating as written, a kVA rating ×
  the power factor, a current rating × V (× √3 three-phase) × the power factor, each ×
  the element's continuous share (``derate``: 0.8 of a breaker-protected kind's current
  rating by default, NEC 210.20(A)/215.3; else 1). The smallest binds.
- each element's **steady load**: the racks' draw (their devices' power, as PWR001 counts
  it) split over each rack's sides and feeds as they share it with everything working,
  summed up the graph; an element passes its load ÷ ``efficiency`` to the first of its
  ``fed_by`` that is alive (an ATS's normal source; the next one when it is lost).
- its **transient peak**: the same with each device at its peak (``peak_factor`` of its
  type, else the workload's for GPU nodes, less its ``power_smoothing``, never below its
  steady draw).

Failures (one element, several, one UPS module) are :mod:`.power_failures`'. The
:class:`PowerChain` is what rules, the report, diff and what-if read:

    chain = analysis.power_chain               # built once per analysis
    chain.elements, chain.element("ups-a")     # ElementFacts: ratings, load, peak, margin
    chain.rack_elements(rack_index)            # a rack's path up the chain
    from rackdesigner.analysis.power_failures import impact, single_failures
    impact(chain, ["utility-1"])               # what dies, what runs on one path, loads after
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.power_sides import SQRT3, feed_power, side_labels
from rackdesigner.model.layout import POWER_SOURCES, Layout, PowerElement, Workload
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import APPARENT_POWER, CURRENT, REAL_POWER, VOLTAGE, fmt

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import DeviceFacts, RackFacts
    from rackdesigner.layout_io.catalog import PowerModel

# Kinds whose current rating is a breaker's or a bus's: loaded continuously to 80 % of it
# unless listed for 100 % (NEC 210.20(A), 215.3: noncontinuous load + 125 % of continuous).
BREAKER_KINDS = ("utility", "ats", "switchgear", "rpp", "busway")
BREAKER_DERATE = 0.8
# How long one transient peak lasts when the workload does not say: the swings of a
# training job come "every second or two" (Uptime Institute Intelligence, Electrical
# considerations with large AI compute, 2025): one peak is at most that long.
PEAK_DURATION = 2.0  # s
VOLTAGE_MATCH = 0.5  # V: two nominal voltages closer than this are one


@dataclass(frozen=True, slots=True)
class Rating:
    """One of an element's ratings as continuous watts, and how it was reached."""

    watts: float
    key: str  # capacity | apparent_power | current
    text: str  # "1.2 MVA × PF 0.9", "415 V 3-phase 800 A × 0.8"


@dataclass(slots=True, eq=False)
class FeedLink:
    """A rack feed hung on an element."""

    rack: int  # rack index
    feed: int  # the feed's index in its rack
    element: int  # element index, -1 where the feed names no element


@dataclass(slots=True, eq=False)
class ElementFacts:
    """One element of the chain, its figures (the element's own, else its model's) and its
    load with everything working."""

    element: PowerElement
    index: int
    kind: str
    ref: Ref
    parents: tuple[int, ...] = ()
    children: list[int] = field(default_factory=list)
    feeds: list[FeedLink] = field(default_factory=list)
    model: PowerModel | None = None
    voltage: float | None = None  # V, its output (inherited from what feeds it if not given)
    power_factor: float = 1.0
    efficiency: float = 1.0
    efficiency_known: bool = False
    ratings: list[Rating] = field(default_factory=list)
    modules: int | None = None
    redundancy: str | None = None
    runtime: float | None = None
    overload: tuple[tuple[float, float], ...] = ()
    start_time: float | None = None
    step_load: float | None = None
    positions: int | None = None
    unverified: bool = False
    order: int = 0  # its place in the topological order (sources first)
    load: float = 0.0  # W it delivers, everything working
    peak: float = 0.0  # W it delivers at the transient peak
    parent: int = -1  # the element it draws from, everything working (-1: none)

    @property
    def id(self) -> str:
        return self.element.id

    @property
    def name(self) -> str:
        """``ups ups-a``: its kind and id, as findings and reports say it."""
        return f"{self.kind} {self.element.id}"

    @property
    def is_source(self) -> bool:
        return self.kind in POWER_SOURCES

    @property
    def binding(self) -> Rating | None:
        """The smallest of its ratings: the one its load is judged against."""
        return min(self.ratings, key=lambda r: r.watts) if self.ratings else None

    @property
    def rating(self) -> float | None:
        binding = self.binding
        return binding.watts if binding is not None else None

    @property
    def input(self) -> float:
        """W it draws from what feeds it: its load and its losses."""
        return self.load / self.efficiency

    @property
    def margin(self) -> float | None:
        rating = self.rating
        return None if rating is None else rating - self.load

    @property
    def utilisation(self) -> float | None:
        rating = self.rating
        return self.load / rating if rating else None

    def current_at(self, watts: float) -> float | None:
        """A the element carries at ``watts`` (AC: ÷ V √3 PF three-phase; DC: ÷ V)."""
        if not self.voltage:
            return None
        if self.kind == "power-rack":
            return watts / self.voltage
        three = SQRT3 if (self.element.phases or 3) == 3 else 1.0
        return watts / (self.voltage * three * self.power_factor)


@dataclass(slots=True, eq=False)
class RackChain:
    """A rack whose feeds hang on the chain: how its load splits over sides and feeds."""

    rack: int
    sides: dict[str, list[int]]  # side label -> feed indexes ({"": all} without 2 sides)
    redundant: bool  # two sides or more
    load: float  # W, steady
    peak: float  # W, at the transient peak
    gpus: int
    sources: list[int]  # per feed of the rack, element index or -1


def feed_shares(chain: RackChain, dead: Iterable[int] = ()) -> tuple[list[float], str]:
    """Each feed's share of the rack's load with the elements ``dead`` lost, and the rack's
    state: ``ok``, ``one-path`` (a redundant rack that lost a side but runs) or ``down``.

    With k ≥ 2 sides each live side carries the load ÷ (live sides), split evenly over its
    live feeds; without, the live feeds share it. A feed naming no element is never lost.
    """
    dead_set = dead if isinstance(dead, set | frozenset) else set(dead)
    shares = [0.0] * len(chain.sources)
    live_sides: list[list[int]] = []
    for members in chain.sides.values():
        live = [f for f in members if chain.sources[f] < 0 or chain.sources[f] not in dead_set]
        if live:
            live_sides.append(live)
    if not live_sides:
        return shares, "down"
    for live in live_sides:
        share = 1.0 / len(live_sides) / len(live)
        for feed in live:
            shares[feed] = share
    if len(live_sides) < len(chain.sides):
        return shares, "one-path" if chain.redundant else "down"
    return shares, "ok"


class PowerChain:
    """The chain's elements, the racks on it and the loads with everything working.

    Built by :meth:`of`; what a failure does is :mod:`.power_failures`' (which keeps what
    it computes once per chain in :attr:`memo`)."""

    def __init__(self, elements: list[ElementFacts], racks: list[RackChain]) -> None:
        self.elements = elements
        self.racks = racks
        self.by_id = {e.id: e.index for e in reversed(elements)}  # the first of an id
        self._by_rack = {r.rack: r for r in racks}
        self.topo = _topological(elements)
        for position, index in enumerate(self.topo):
            elements[index].order = position
        self.memo: dict[str, object] = {}

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def of(
        cls,
        layout: Layout,
        racks: Sequence[RackFacts],
        models: dict[str, PowerModel],
        power_factor: float,
    ) -> PowerChain:
        """The chain of ``layout`` (empty where it declares none)."""
        elements = [
            _element_facts(element, index, models, power_factor)
            for index, element in enumerate(layout.power_elements)
        ]
        by_id = {e.id: e.index for e in reversed(elements)}
        for facts in elements:
            facts.parents = tuple(by_id[p] for p in facts.element.fed_by or () if p in by_id)
            for parent in facts.parents:
                elements[parent].children.append(facts.index)
        chain_racks = _rack_chains(layout, racks, by_id, elements)
        chain = cls(elements, chain_racks)
        chain._voltages()
        for facts in elements:
            facts.ratings = _ratings(facts)
        chain._normal_loads()
        return chain

    def _voltages(self) -> None:
        """Each element's output voltage: its own, else what feeds it (a transformer's is
        its secondary; sources without one have none)."""
        for index in self.topo:
            facts = self.elements[index]
            own = facts.element.voltage
            if own is None and facts.model is not None:
                own = facts.model.figures.voltage
            if own is not None:
                facts.voltage = float(own)
            elif facts.kind != "transformer" and facts.parents:
                facts.voltage = self.elements[facts.parents[0]].voltage

    def _normal_loads(self) -> None:
        elements = self.elements
        for rack in self.racks:
            shares, _ = feed_shares(rack)
            for feed, source in enumerate(rack.sources):
                if source >= 0 and shares[feed]:
                    elements[source].load += rack.load * shares[feed]
                    elements[source].peak += rack.peak * shares[feed]
        for index in reversed(self.topo):
            facts = elements[index]
            if facts.parents:
                facts.parent = facts.parents[0]
                parent = elements[facts.parent]
                parent.load += facts.load / facts.efficiency
                parent.peak += facts.peak / facts.efficiency

    # -- reading ----------------------------------------------------------------------------

    def __bool__(self) -> bool:
        return bool(self.elements)

    def element(self, ident: str) -> ElementFacts | None:
        index = self.by_id.get(ident)
        return None if index is None else self.elements[index]

    def ids(self, kind: str | None = None) -> list[str]:
        """The element ids (of ``kind``), in file order: what ``--fail KIND:ID`` may name."""
        return [e.id for e in self.elements if kind is None or e.kind == kind]

    def ancestors(self, index: int) -> set[int]:
        """Every element ``index`` can draw power through (every path), not itself."""
        seen: set[int] = set()
        stack = list(self.elements[index].parents)
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(self.elements[node].parents)
        return seen

    def rack_elements(self, rack: int) -> list[int]:
        """The elements a rack's feeds hang on and everything above them: its path up the
        chain, nearest first (the designer's inspector shows it)."""
        found = next((r for r in self.racks if r.rack == rack), None)
        if found is None:
            return []
        out: list[int] = []
        for source in found.sources:
            if source >= 0:
                for node in [source, *sorted(self.ancestors(source), key=self._down)]:
                    if node not in out:
                        out.append(node)
        return out

    def _down(self, index: int) -> int:
        return -self.elements[index].order

    def rack_chain(self, rack: int) -> RackChain:
        """The rack (by its index in the layout) as the chain sees it (KeyError when none
        of its feeds hangs on the chain)."""
        return self._by_rack[rack]

    def on_chain(self, rack: int) -> bool:
        return rack in self._by_rack


def peak_multiplier(device: DeviceFacts, workload: Workload | None) -> float:
    """A device's transient peak ÷ its steady draw: its type's ``peak_factor``, else the
    workload's for a GPU node, else 1; less its ``power_smoothing`` share, never below 1."""
    dtype = device.type
    factor = dtype.peak_factor if dtype is not None else None
    if factor is None and device.is_gpu_node and workload is not None:
        factor = workload.peak_factor
    if factor is None:
        return 1.0
    smoothing = float(dtype.power_smoothing or 0.0) if dtype is not None else 0.0
    return max(1.0, float(factor) * (1.0 - smoothing))


def peak_factor_text(layout: Layout) -> str:
    """The peak factor the chain is checked at, and where it comes from (the report shows
    it always)."""
    workload = layout.workload
    if workload is not None and workload.peak_factor is not None:
        return f"{float(workload.peak_factor):g} ([workload] peak_factor, GPU nodes)"
    return (
        "1 (none declared: no published figure gives one; set [workload] peak_factor, "
        "docs/power-chain.md)"
    )


def _element_facts(
    element: PowerElement, index: int, models: dict[str, PowerModel], power_factor: float
) -> ElementFacts:
    model = models.get(element.model) if element.model else None
    figures = model.figures if model is not None else None

    def pick(key: str) -> object:
        own = getattr(element, key)
        if own is None and figures is not None:
            return getattr(figures, key)
        return own

    efficiency = pick("efficiency")
    pf = pick("power_factor")
    overload = pick("overload") or ()
    return ElementFacts(
        element=element,
        index=index,
        kind=element.kind or "",
        ref=Ref("power", element.id),
        model=model,
        power_factor=float(pf) if isinstance(pf, float) and pf > 0 else power_factor,
        efficiency=float(efficiency) if isinstance(efficiency, float) and efficiency > 0 else 1.0,
        efficiency_known=isinstance(efficiency, float) and efficiency > 0,
        modules=_int(pick("modules")),
        redundancy=element.redundancy,
        runtime=_float(pick("runtime")),
        overload=tuple((float(a), float(b)) for a, b in overload),  # type: ignore[attr-defined]
        start_time=_float(pick("start_time")),
        step_load=_float(pick("step_load")),
        positions=_int(pick("positions")),
        unverified=model is not None and model.unverified,
    )


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, float | int) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _ratings(facts: ElementFacts) -> list[Rating]:
    """The element's ratings as continuous W (the module docstring says how)."""
    element = facts.element
    figures = facts.model.figures if facts.model is not None else None

    def pick(key: str) -> float | None:
        own = getattr(element, key)
        if own is None and figures is not None:
            own = getattr(figures, key)
        return float(own) if own is not None else None

    pf = facts.power_factor
    declared = element.derate if element.derate is not None else None
    share = float(declared) if declared is not None else 1.0
    share_text = f" × {share:g}" if share != 1.0 else ""
    out: list[Rating] = []
    capacity = pick("capacity")
    if capacity is not None:
        out.append(Rating(capacity * share, "capacity", fmt(capacity, REAL_POWER) + share_text))
    apparent = pick("apparent_power")
    if apparent is not None:
        pf_text = f" × PF {pf:g}"
        out.append(
            Rating(
                apparent * pf * share,
                "apparent_power",
                fmt(apparent, APPARENT_POWER) + pf_text + share_text,
            )
        )
    current = pick("current")
    if current is not None and facts.voltage:
        out.append(_current_rating(facts, current, declared))
    return out


def _current_rating(facts: ElementFacts, current: float, declared: float | None) -> Rating:
    share = (
        float(declared)
        if declared is not None
        else BREAKER_DERATE
        if facts.kind in BREAKER_KINDS
        else 1.0
    )
    voltage = float(facts.voltage or 0.0)
    if facts.kind == "power-rack":  # 800 VDC: V × I
        watts = voltage * current * share
        supply = f"{fmt(voltage, VOLTAGE)} DC"
        pf_text = ""
    else:
        three = (facts.element.phases or 3) == 3
        watts = feed_power(voltage, current, 3 if three else 1, power_factor=facts.power_factor)
        watts *= share
        supply = f"{fmt(voltage, VOLTAGE)} {'3-phase' if three else 'single-phase'}"
        pf_text = f" × PF {facts.power_factor:g}" if facts.power_factor != 1.0 else ""
    share_text = f" × {share:g}" if share != 1.0 else ""
    return Rating(watts, "current", f"{supply} {fmt(current, CURRENT)}{share_text}{pf_text}")


def _rack_chains(
    layout: Layout,
    racks: Sequence[RackFacts],
    by_id: dict[str, int],
    elements: list[ElementFacts],
) -> list[RackChain]:
    """The racks with a feed on the chain, their sides and their steady and peak loads."""
    out: list[RackChain] = []
    workload = layout.workload
    for facts in racks:
        feeds = facts.rack.feeds
        if not any(f.source for f in feeds):
            continue
        sources = [by_id.get(f.source, -1) if f.source else -1 for f in feeds]
        labels = side_labels(feeds)
        if len(labels) >= 2:
            sides = {label: [i for i, f in enumerate(feeds) if f.side == label] for label in labels}
        else:
            members = [i for i, f in enumerate(feeds) if not labels or f.side]
            sides = {"": members}
        peak = sum(float(d.power or 0.0) * peak_multiplier(d, workload) for d in facts.devices)
        chain = RackChain(
            facts.index,
            sides,
            len(labels) >= 2,
            facts.load,
            max(peak, facts.load),
            facts.gpus,
            sources,
        )
        for feed, source in enumerate(sources):
            if source >= 0:
                elements[source].feeds.append(FeedLink(facts.index, feed, source))
        out.append(chain)
    return out


def _topological(elements: list[ElementFacts]) -> list[int]:
    """Element indexes, every element after all that feed it (Kahn's order; elements on a
    cycle, refused at load, are left out)."""
    waiting = [len(e.parents) for e in elements]
    ready = deque(e.index for e in elements if not e.parents)
    order: list[int] = []
    while ready:
        index = ready.popleft()
        order.append(index)
        for child in elements[index].children:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return order
