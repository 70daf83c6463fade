"""The power chain ``rackdesigner new`` writes behind the racks it builds (docs/power-chain.md,
"What new writes"): sized for the hall's load, its worst single failure and its transient
peak, so that PWR021-PWR029 are silent on it.

The shape, by ``--power-redundancy``:

- ``2n`` (the default): one utility service; per feed side a generator, an ATS (utility,
  then the side's generator), a switchboard, and per block of racks a UPS; per block, row
  and side a busway the racks' feeds tap off. Each side's path is its own up to the
  utility, which each ATS can replace by its generator: no rack's sides meet (PWR024).
  2N is the default because the racks' A and B feeds promise it (the layout format reads
  sides as independent sources) and because "it is common to have two sets of panels and
  feeds arranged in parallel to provide redundant power to each rack" (NetBox, Power Panel
  model documentation).
- ``n+1``: per block one UPS of 4 modules, 3 of which carry the block (redundancy n+1), on
  the A side; the B sides on their switchboard without a UPS (a UPS-backed A feed and a
  utility-and-generator B feed).
- ``block``: per block a generator, an ATS and a UPS carrying the block, and one reserve
  UPS (with its own) for all blocks; each block side's busway hangs on a static transfer
  switch (an ``ats`` element) that prefers the block's UPS and falls back on the reserve
  ("catcher") when it is lost: the reserve is sized for the largest block.

A block is consecutive racks whose transient peak fits ``BLOCK_MAX`` (1.2 MW, the largest
UPS frame in the built-in power catalog, the Liebert EXL S1 1200 kVA at unity power
factor). Ratings are what the design needs, not a product's: each element's load with its
worst single failure and at the transient peak, rounded up (currents to the standard
ratings of NEC 240.6(A), powers to the next 50 kW); the elements' notes say so, to be
replaced by the chosen equipment's datasheet figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import BREAKER_DERATE, SQRT3, peak_multiplier
from rackdesigner.analysis.power_failures import impact, single_failures
from rackdesigner.model.layout import Layout, PowerElement, Q, Rack
from rackdesigner.model.units import REAL_POWER, VOLTAGE, canonical_text, fmt

REDUNDANCIES = ("2n", "n+1", "block")
DEFAULT_REDUNDANCY = "2n"
BLOCK_MAX = 1.2e6  # W at the transient peak: one Liebert EXL S1 1200 kVA frame (power.toml)
# NEC 240.6(A): the standard ampere ratings of fuses and inverse-time breakers.
STANDARD_AMPS = (
    100, 110, 125, 150, 175, 200, 225, 250, 300, 350, 400, 450, 500, 600, 700, 800,
    1000, 1200, 1600, 2000, 2500, 3000, 4000, 5000, 6000,
)  # fmt: skip
POWER_STEP = 50e3  # W: powers are rounded up to the next 50 kW
NPLUS1_MODULES = 4  # n+1: three modules carry the block, one is spare
# The kinds judged at the transient peak (PWR023, PWR028); the others on steady load.
_AT_PEAK = ("ups", "generator")
UTILITY = "utility-1"
SIZED = "sized by rackdesigner new for its worst single failure and transient peak"


class ChainError(ValueError):
    """A hall ``new`` cannot put behind a chain (a block too large for one busway)."""


@dataclass(slots=True)
class _Plan:
    """The elements being written, and the busway each feed taps off."""

    elements: list[PowerElement] = field(default_factory=list)
    feeds: list[tuple[Rack, int, str]] = field(default_factory=list)  # rack, feed, element

    def add(self, element: PowerElement) -> PowerElement:
        self.elements.append(element)
        return element


def add_power_chain(layout: Layout, redundancy: str = DEFAULT_REDUNDANCY) -> list[str]:
    """Writes the chain behind ``layout``'s feeds (sources set on every feed with a side,
    or of a rack without sides); returns the header comment's lines about it."""
    if redundancy not in REDUNDANCIES:
        raise ChainError(f"--power-redundancy {redundancy}: choose {', '.join(REDUNDANCIES)}")
    racks = [rack for rack in layout.racks if rack.feeds]
    if not racks:
        return []
    analysis = Analysis(layout)
    peaks = {facts.rack.id: _peak(analysis, facts.index) for facts in analysis.racks}
    voltage = _main_voltage(racks)
    sides = sorted({f.side or "A" for rack in racks for f in rack.feeds})
    plan = _Plan()
    _sources(plan, sides, redundancy)
    blocks = _blocks(racks, peaks)
    for number, block in enumerate(blocks, 1):
        _block(plan, number, block, _sides_of(block, sides), voltage, redundancy)
    layout.power_elements = plan.elements
    for rack, index, element in plan.feeds:
        rack.feeds[index].source = element
    _size(layout)
    return _comment(layout, redundancy, len(blocks))


def _peak(analysis: Analysis, index: int) -> float:
    facts = analysis.racks[index]
    peak = sum(float(d.power or 0.0) * peak_multiplier(d, analysis.workload) for d in facts.devices)
    return max(peak, facts.load)


def _main_voltage(racks: list[Rack]) -> float:
    """The voltage most feeds are at: the UPSs' output (others go through a transformer)."""
    counts: dict[float, int] = {}
    for rack in racks:
        for feed in rack.feeds:
            counts[float(feed.voltage or 0.0)] = counts.get(float(feed.voltage or 0.0), 0) + 1
    return max(counts, key=lambda v: (counts[v], v))


def _sides_of(block: list[Rack], sides: list[str]) -> list[str]:
    """The hall's sides a block's feeds use: a block of racks on two sides gets no UPS for
    the other two, which would feed nothing (a hall's four-sided node racks and two-sided
    network racks fall in different blocks)."""
    used = {feed.side or "A" for rack in block for feed in rack.feeds}
    return [side for side in sides if side in used]


def _blocks(racks: list[Rack], peaks: dict[str, float]) -> list[list[Rack]]:
    """Consecutive racks in as few blocks as BLOCK_MAX allows, their peaks about even (a
    hall of 1.3 MW is two blocks of 650 kW, not 1.2 MW and 100 kW)."""
    total = sum(peaks.get(rack.id, 0.0) for rack in racks)
    target = total / max(1, math.ceil(total / BLOCK_MAX - 1e-9))
    blocks: list[list[Rack]] = [[]]
    load = 0.0
    for rack in racks:
        peak = peaks.get(rack.id, 0.0)
        if blocks[-1] and (load + peak > BLOCK_MAX or load >= target - 1e-6):
            blocks.append([])
            load = 0.0
        blocks[-1].append(rack)
        load += peak
    return blocks


def _sources(plan: _Plan, sides: list[str], redundancy: str) -> None:
    """The utility, and behind it per side (2N, N+1) a generator, an ATS and a
    switchboard; block redundancy gives each block (and the reserve) its own instead."""
    plan.add(PowerElement(UTILITY, "utility", notes=SIZED))
    if redundancy == "block":
        _source_path(plan, "reserve")
        plan.add(PowerElement("ups-reserve", "ups", ["ats-reserve"], notes=SIZED))
        return
    for side in sides:
        _source_path(plan, side.lower())
        plan.add(
            PowerElement(f"swbd-{side.lower()}", "switchgear", [f"ats-{side.lower()}"], notes=SIZED)
        )


def _source_path(plan: _Plan, name: str) -> None:
    """A generator and an ATS that prefers the utility and falls back on it."""
    plan.add(PowerElement(f"gen-{name}", "generator", notes=SIZED))
    plan.add(PowerElement(f"ats-{name}", "ats", [UTILITY, f"gen-{name}"], notes=SIZED))


def _ups(plan: _Plan, ident: str, parent: str, voltage: float, **keys: object) -> PowerElement:
    element = plan.add(PowerElement(ident, "ups", [parent], notes=SIZED, **keys))  # type: ignore[arg-type]
    element.voltage = Q(voltage, canonical_text(voltage, VOLTAGE))
    return element


def _block(
    plan: _Plan, number: int, racks: list[Rack], sides: list[str], voltage: float, mode: str
) -> None:
    """One block's UPSs (or transfer switches), and a busway per row, side and voltage."""
    upstream: dict[str, str] = {}
    if mode == "block":  # its own generator, ATS and UPS; each side's STS falls back on
        _source_path(plan, f"b{number}")  # the reserve
        _ups(plan, f"ups-b{number}", f"ats-b{number}", voltage)
    for index, side in enumerate(sides):
        s = side.lower()
        if mode == "2n":
            upstream[side] = _ups(plan, f"ups-b{number}-{s}", f"swbd-{s}", voltage).id
        elif mode == "n+1":
            if index == 0:
                ups = _ups(
                    plan,
                    f"ups-b{number}",
                    f"swbd-{s}",
                    voltage,
                    modules=NPLUS1_MODULES,
                    redundancy="n+1",
                )
                upstream[side] = ups.id
            else:
                upstream[side] = f"swbd-{s}"
        else:
            sts = plan.add(
                PowerElement(
                    f"sts-b{number}-{s}",
                    "ats",
                    [f"ups-b{number}", "ups-reserve"],
                    label="static transfer switch",
                    notes=SIZED,
                )
            )
            upstream[side] = sts.id
    _busways(plan, number, racks, sides, voltage, upstream)


def _busways(
    plan: _Plan,
    number: int,
    racks: list[Rack],
    sides: list[str],
    voltage: float,
    upstream: dict[str, str],
) -> None:
    made: dict[tuple[str, str, float], PowerElement] = {}
    transformers: dict[tuple[str, float], str] = {}
    for rack in racks:
        for index, feed in enumerate(rack.feeds):
            side = feed.side or sides[0]
            feed_voltage = float(feed.voltage or 0.0)
            key = (rack.row or "", side, feed_voltage)
            busway = made.get(key)
            if busway is None:
                parent = upstream[side]
                if abs(feed_voltage - voltage) > 0.5:
                    parent = _transformer(
                        plan, transformers, number, side, parent, voltage, feed_voltage
                    )
                row = (rack.row or "").lower() or "x"
                suffix = "" if abs(feed_voltage - voltage) <= 0.5 else f"-{feed_voltage:g}v"
                busway = plan.add(
                    PowerElement(
                        f"busway-{row}{number}-{side.lower()}{suffix}",
                        "busway",
                        [parent],
                        voltage=Q(feed_voltage, canonical_text(feed_voltage, VOLTAGE)),
                        positions=0,
                        notes=SIZED,
                    )
                )
                made[key] = busway
            busway.positions = (busway.positions or 0) + 1
            feed.position = busway.positions
            plan.feeds.append((rack, index, busway.id))


def _transformer(
    plan: _Plan,
    made: dict[tuple[str, float], str],
    number: int,
    side: str,
    parent: str,
    primary: float,
    secondary: float,
) -> str:
    key = (side, secondary)
    if key not in made:
        element = plan.add(
            PowerElement(
                f"tx-b{number}-{side.lower()}-{secondary:g}v",
                "transformer",
                [parent],
                primary_voltage=Q(primary, canonical_text(primary, VOLTAGE)),
                voltage=Q(secondary, canonical_text(secondary, VOLTAGE)),
                notes=SIZED,
            )
        )
        made[key] = element.id
    return made[key]


def _size(layout: Layout) -> None:
    """Each element rated for its worst load: with everything working, after its worst
    single failure, at the transient peak, and (generators) with the utility lost."""
    for element in layout.power_elements:  # unrated while the loads are worked out
        element.capacity = Q(1e10, "10 GW") if element.kind != "busway" else None
    analysis = Analysis(layout)
    chain = analysis.power_chain
    most = [max(f.load, f.peak) for f in chain.elements]  # with everything, at the peak
    for _, result in single_failures(chain):  # and after each single failure (a UPS or a
        for index, load in result.loads.items():  # generator at its peak, PWR023/PWR028)
            peak = result.peaks.get(index, load) if chain.elements[index].kind in _AT_PEAK else load
            most[index] = max(most[index], load, peak)
    outage = impact(chain, [e.index for e in chain.elements if e.kind == "utility"])
    for facts in chain.elements:
        need = most[facts.index]
        if facts.kind == "generator":
            need = max(need, outage.load(chain, facts.index), outage.peak(chain, facts.index))
        element = facts.element
        element.capacity = None
        if element.kind == "busway":
            _rate_current(element, need, facts.voltage or 0.0)
        elif element.kind == "ups" and element.modules:
            spare = element.modules / (element.modules - 1)
            element.capacity = _power(need * spare)
        elif element.kind == "transformer":
            element.apparent_power = _apparent(need)
        else:
            element.capacity = _power(need)


def _rate_current(element: PowerElement, watts: float, voltage: float) -> None:
    amps = watts / (voltage * SQRT3) / BREAKER_DERATE if voltage else 0.0
    rating = next((a for a in STANDARD_AMPS if a >= amps - 1e-9), None)
    if rating is None:
        raise ChainError(
            f"{element.id} would carry {amps:,.0f} A, more than a 6,000 A bus (NEC 240.6(A))"
        )
    element.current = Q(float(rating), f"{rating} A")


def _power(watts: float) -> Q:
    value = max(POWER_STEP, math.ceil(watts / POWER_STEP - 1e-9) * POWER_STEP)
    return Q(value, fmt(value, REAL_POWER, 6))


def _apparent(watts: float) -> Q:
    value = max(POWER_STEP, math.ceil(watts / POWER_STEP - 1e-9) * POWER_STEP)
    text = f"{value / 1e3:g} kVA"
    return Q(value, text)


def _comment(layout: Layout, redundancy: str, blocks: int) -> list[str]:
    kinds: dict[str, int] = {}
    for element in layout.power_elements:
        kinds[element.kind or ""] = kinds.get(element.kind or "", 0) + 1
    shape = {
        "2n": "2N: each side its own generator, ATS, switchboard and UPS",
        "n+1": "N+1: one UPS of 4 modules (3 carry the load) on side A, side B on its switchboard",
        "block": "block redundant: a UPS a block, one reserve UPS behind static transfer switches",
    }[redundancy]
    parts = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
    utility = layout.power_elements[0].capacity
    amps = fmt(float(utility or 0.0), REAL_POWER)
    return [
        f" Power chain ({shape}; --power-redundancy 2n|n+1|block): {parts} in "
        f"{blocks} block{'s' if blocks != 1 else ''}; a {amps} utility service. Ratings are "
        "what the design needs at its worst single failure and transient peak (currents "
        "at NEC 240.6(A) sizes): replace them with your equipment's datasheet figures.",
    ]


__all__ = ["DEFAULT_REDUNDANCY", "REDUNDANCIES", "ChainError", "add_power_chain"]
