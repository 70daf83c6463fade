"""(v1.4) The cable plant as it will be installed: every cable's parts and route, each
pathway's fill, each channel's loss, the transceivers and the physical cables.

:class:`CablePlant` (``analysis.plant``) is built once per analysis from its links, the
layout's pathways (:mod:`.pathways`), trunks and channels (:mod:`.channels`) and the
transceiver parts (:mod:`.optics`). What it gives, all plain data for rules, exports and
drawings:

- :meth:`CablePlant.route` - a link's :class:`Run` s (one cable, or patch cord, trunk,
  patch cord), each with its length, stock length and the :class:`~.pathways.Leg` s of the
  pathways it runs in (a rack's vertical manager first and last);
- :meth:`CablePlant.fills` - each pathway's :class:`PathwayFill`: its cables' cross-section
  at its busiest point against its capacity;
- :meth:`CablePlant.losses` - each fibre link's :class:`~.channels.ChannelLoss` against its
  transceivers' budget;
- :meth:`CablePlant.optics` - the transceiver at each end of a fibre link;
- :meth:`CablePlant.cables` - the physical cables: a twin-port copper cable carries two
  links, a channel is two patch cords and a share of a trunk;
- :meth:`CablePlant.unrouted` - rack pairs cabled to each other that no pathway joins.

Routes are computed per rack pair, never per cable: a hall of 3,000 racks and 200,000
cables has a few tens of thousands of rack pairs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rackdesigner.analysis.channels import ChannelLoss, channel_loss, channel_of, fibres_per_link
from rackdesigner.analysis.facts import DeviceFacts, LinkFacts, run_between
from rackdesigner.analysis.optics import OPTICAL, Optic, end_optics, link_shape
from rackdesigner.analysis.pathways import Leg
from rackdesigner.analysis.reach import STRAIGHT, TWIN_PORT_BANDS, medium, speed_band
from rackdesigner.analysis.stock import stock_length
from rackdesigner.layout_io.catalog import Medium, part_for, transceivers
from rackdesigner.model.hall_grid import UNDER
from rackdesigner.model.layout import Pathway, Rack, Trunk

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import RackFacts
    from rackdesigner.analysis.geometry import SiteGeometry
    from rackdesigner.analysis.pathways import PathwayGraph
    from rackdesigner.model.layout import Layout


class PlantSource(Protocol):
    """What the plant reads of an analysis (:class:`rackdesigner.analysis.Analysis`)."""

    layout: Layout
    geometry: SiteGeometry
    racks: list[RackFacts]
    device_by_id: dict[str, DeviceFacts]

    @property
    def links(self) -> list[LinkFacts]: ...

    @property
    def pathway_graph(self) -> PathwayGraph | None: ...


# How a run's route was found.
BY_PATHWAYS = "pathways"  # along the declared pathways
BY_ROWS = "rows"  # the row-and-slot model: no pathway joins the racks (or none declared)
IN_RACK = "rack"  # inside one rack
DECLARED = "declared"  # a trunk's declared length
UNKNOWN = ""  # no place to measure from

# A cable whose media the table does not size: NVIDIA's copper diameter (the larger).
_UNSIZED_DIAMETER = 0.00943
# An MPO cord (3.0 mm) per 12 fibres of a trunk that states no diameter: an estimate.
_CORD_DIAMETER = 0.003


@dataclass(frozen=True, slots=True)
class Run:
    """One physical part of a link's way: the cable, or a channel's patch cord or trunk."""

    kind: str  # "cable" | "cord" | "trunk"
    name: str  # "trunk t1", "cord a01-n01:ib1 -> a01-pp1:f3"
    media: str | None
    route: float | None  # m without slack
    length: float | None  # m to order for: route plus slack, or declared
    stock: float | None  # m, the stock length to order
    part: str | None  # the ordering number at that stock length, where the table has it
    legs: tuple[Leg, ...]  # the pathways it runs in, vertical managers included
    how: str  # BY_PATHWAYS | BY_ROWS | IN_RACK | DECLARED | UNKNOWN

    @property
    def route_text(self) -> str:
        """The pathways it runs in, in order: ``vm-a01 > tray-a > cross-0 > tray-b``."""
        return " > ".join(leg.pathway for leg in self.legs)


@dataclass(frozen=True, slots=True)
class LinkRoute:
    """A link's way through the plant: its runs (one, or cord, trunk, cord)."""

    facts: LinkFacts
    runs: tuple[Run, ...]

    @property
    def legs(self) -> tuple[Leg, ...]:
        return tuple(leg for run in self.runs for leg in run.legs)

    @property
    def routed(self) -> bool:
        """Whether every run between racks follows the pathways."""
        return all(run.how != BY_ROWS for run in self.runs)

    @property
    def route_text(self) -> str:
        """The pathways its runs lie in, in order (a channel's cord, trunk and cord):
        what the cable schedule's ``route`` and a work order's say."""
        return " > ".join(leg.pathway for leg in self.legs)


@dataclass(frozen=True, slots=True)
class PathwayFill:
    """A pathway's cables at its busiest point against its capacity."""

    pathway: Pathway
    capacity: float  # m², width x depth
    area: float  # m² of cable cross-section at the busiest point
    cables: int  # cables there
    at: float  # m along the pathway from its start
    limit: float  # the fill ratio allowed there

    @property
    def ratio(self) -> float:
        return self.area / self.capacity if self.capacity > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Unrouted:
    """Two racks cabled to each other that no pathway joins, and how many links."""

    a: Rack
    b: Rack
    links: int
    first: LinkFacts


@dataclass(frozen=True, slots=True)
class Cable:
    """A physical cable to order: its links (two for a twin-port copper cable), media,
    stock length and part."""

    kind: str  # "cable" | "cord"
    media: str
    links: tuple[LinkFacts, ...]
    length: float | None
    stock: float | None
    part: str | None
    # The run it is (a cord's, or the longer link's of a twin-port cable): its ends,
    # route and legs, for the pull sheets and labels.
    run: Run | None = None
    end: str = ""  # a cord's side of its channel: "a" (end a to panel a) or "b"


@dataclass(slots=True)
class _Pair:
    """The runs between two racks (or inside one): cables and cross-section."""

    a: Rack
    b: Rack
    first: LinkFacts  # the first link between them, in file order
    area: float = 0.0
    cables: int = 0


class CablePlant:
    """The cable plant of one analysis (see the module's docstring)."""

    def __init__(self, analysis: PlantSource):
        self.analysis = analysis
        self.layout = analysis.layout
        self.geometry = analysis.geometry
        self.graph = analysis.pathway_graph
        self.parts = transceivers(self.layout)
        self._rows: dict[tuple[str, float | None, str | None, str, str | None], Medium | None] = {}
        self._routes: dict[int, LinkRoute] = {}
        self._pairs: dict[tuple[int, int], _Pair] | None = None
        self._trunk_runs: dict[str, Run] = {}

    # -- the media table ------------------------------------------------------------------

    def medium_of(self, facts: LinkFacts) -> Medium | None:
        """The media table's row for a link (its media at its speed, form, grade)."""
        media = facts.link.media
        if media is None:
            return None
        tech, form = link_shape(facts)
        key = (media, facts.speed, facts.link.grade, form, tech)
        if key not in self._rows:
            self._rows[key] = medium(media, facts.speed, facts.link.grade, form, tech)
        return self._rows[key]

    def area_of(self, facts: LinkFacts) -> float:
        """m² of cross-section one link puts in a pathway (half a twin-port copper cable)."""
        row = self.medium_of(facts)
        diameter = row.diameter if row is not None and row.diameter else _UNSIZED_DIAMETER
        area = math.pi * diameter * diameter / 4
        if self._twin_copper(facts, row) == STRAIGHT:
            area /= 2
        return area

    def _twin_copper(self, facts: LinkFacts, row: Medium | None) -> str | None:
        """``straight`` or ``split`` for a twin-port copper cable (two links a cable at
        400G and more: MCP4Y10 between switches, MCP7Y00 from a switch to two adapters)."""
        if facts.link.media not in ("dac", "acc") or row is None:
            return None
        if speed_band(facts.speed, link_shape(facts)[0]) not in TWIN_PORT_BANDS:
            return None
        return row.form if row.form in ("straight", "split") else None

    # -- routes ---------------------------------------------------------------------------

    def route(self, facts: LinkFacts) -> LinkRoute:
        """A link's runs: one cable, or a channel's cord, trunk and cord."""
        found = self._routes.get(facts.index)
        if found is None or found.facts is not facts:
            found = self._routes[facts.index] = self._route(facts)
        return found

    def routes(self) -> Iterator[LinkRoute]:
        for facts in self.analysis.links:
            yield self.route(facts)

    def _route(self, facts: LinkFacts) -> LinkRoute:
        da, db = facts.a.device, facts.b.device
        media = facts.link.media
        row = self.medium_of(facts)
        channel = channel_of(facts)
        if channel is None or da is None or db is None or not channel.resolved:
            run = self._run("cable", facts.link.name, media, da, db, row, facts.index)
            if facts.link.length is not None:
                length = float(facts.link.length)
                stock = stock_length(length, row.stock if row is not None else ())
                run = Run(
                    run.kind,
                    run.name,
                    media,
                    run.route,
                    length,
                    stock,
                    part_for(row, stock),
                    run.legs,
                    run.how,
                )
            return LinkRoute(facts, (run,))
        pa, pb = channel.panel_a.device, channel.panel_b.device
        assert pa is not None and pb is not None
        cord_a = self._run(
            "cord", f"{facts.link.a} -> {channel.panel_a.text}", media, da, pa, row, facts.index
        )
        cord_b = self._run(
            "cord", f"{channel.panel_b.text} -> {facts.link.b}", media, pb, db, row, facts.index
        )
        return LinkRoute(facts, (cord_a, self.trunk_run(channel.trunk, pa, pb), cord_b))

    def trunk_run(self, trunk: Trunk | None, pa: DeviceFacts, pb: DeviceFacts) -> Run:
        """The run of a trunk between two panels (routed once per trunk)."""
        key = trunk.id if trunk is not None else f"{pa.id}|{pb.id}"
        found = self._trunk_runs.get(key)
        if found is None:
            run = self._run(
                "trunk", f"trunk {key}", trunk.media if trunk else None, pa, pb, None, 0
            )
            if trunk is not None and trunk.length is not None:
                length = float(trunk.length)
                run = Run(
                    "trunk", run.name, run.media, run.route, length, None, None, run.legs, DECLARED
                )
            else:
                run = Run(
                    "trunk",
                    run.name,
                    run.media,
                    run.route,
                    run.length,
                    None,
                    None,
                    run.legs,
                    run.how,
                )
            found = self._trunk_runs[key] = run
        return found

    def _run(
        self,
        kind: str,
        name: str,
        media: str | None,
        a: DeviceFacts | None,
        b: DeviceFacts | None,
        row: Medium | None,
        spread: int,
    ) -> Run:
        """A run between two devices' ports: its route, legs and stock length."""
        if a is None or b is None or a.place is None or b.place is None:
            return Run(kind, name, media, None, None, None, None, (), UNKNOWN)
        route = run_between(a, b, self.geometry, self.graph)
        legs: tuple[Leg, ...] = ()
        how = UNKNOWN if route is None else (IN_RACK if a.rack is b.rack else BY_ROWS)
        graph = self.graph
        if graph is not None and route is not None:
            if a.rack is b.rack:
                legs = self._manager(a, None, spread)
            else:
                hall = graph.route(a.rack, b.rack)
                if hall is not None:
                    how = BY_PATHWAYS
                    legs = (
                        self._manager(a, hall.planes[0], spread)
                        + hall.legs
                        + self._manager(b, hall.planes[1], spread)
                    )
        length = None if route is None else route + self.geometry.slack
        stock = stock_length(length, row.stock if row is not None else ())
        return Run(kind, name, media, route, length, stock, part_for(row, stock), legs, how)

    def _manager(self, device: DeviceFacts, plane: str | None, spread: int) -> tuple[Leg, ...]:
        """The leg up (or down) a rack's vertical manager, one of its managers in turn."""
        graph = self.graph
        managers = graph.managers.get(device.rack.id) if graph is not None else None
        if not managers or device.port_height is None or device.place is None:
            return ()
        top = device.place.top
        height = device.port_height
        if plane == UNDER:
            return (Leg(managers[spread % len(managers)], height, 0.0),)
        return (Leg(managers[spread % len(managers)], height, top),)

    # -- rack pairs and unrouted links -----------------------------------------------------

    def _pair_table(self) -> dict[tuple[int, int], _Pair]:
        """Every rack pair cabled together (a pair of one rack for inside it): its links,
        cables and cross-section, aggregated once."""
        if self._pairs is not None:
            return self._pairs
        pairs: dict[tuple[int, int], _Pair] = {}
        # The cross-section a link puts in a pathway depends on its media and its ends'
        # port groups: worked out once for each such kind of link.
        areas: dict[tuple[object, ...], float] = {}
        add = self._add
        for facts in self.analysis.links:
            a, b = facts.a, facts.b
            da, db = a.device, b.device
            if da is None or db is None:
                continue
            key = (facts.link.media, facts.link.grade, id(a.group), id(b.group), da.kind, db.kind)
            area = areas.get(key)
            if area is None:
                area = areas[key] = self.area_of(facts)
            channel = channel_of(facts)
            if channel is not None and channel.resolved:
                pa, pb = channel.panel_a.device, channel.panel_b.device
                assert pa is not None and pb is not None
                add(pairs, da, pa, facts, area)
                add(pairs, pb, db, facts, area)
                continue
            add(pairs, da, db, facts, area)
        self._pairs = pairs
        return pairs

    @staticmethod
    def _add(
        pairs: dict[tuple[int, int], _Pair],
        a: DeviceFacts,
        b: DeviceFacts,
        facts: LinkFacts,
        area: float,
    ) -> None:
        ka, kb = a.rack_index, b.rack_index
        key = (ka, kb) if ka <= kb else (kb, ka)
        pair = pairs.get(key)
        if pair is None:
            first, second = (a.rack, b.rack) if ka <= kb else (b.rack, a.rack)
            pair = pairs[key] = _Pair(first, second, facts)
        pair.area += area
        pair.cables += 1

    def unrouted(self) -> list[Unrouted]:
        """Rack pairs cabled together that no pathway joins (their cables fall back to the
        row-and-slot model); none where the layout declares no pathway."""
        graph = self.graph
        if graph is None:
            return []
        out = []
        for pair in self._pair_table().values():
            if pair.a is pair.b or pair.a.slot is None or pair.b.slot is None:
                continue
            if graph.route(pair.a, pair.b) is None:
                out.append(Unrouted(pair.a, pair.b, pair.cables, pair.first))
        return out

    # -- fill -----------------------------------------------------------------------------

    def fills(self, limit: float) -> list[PathwayFill]:
        """Each sized pathway's fill at its busiest point (``limit``: the tray_fill_max
        threshold, where a pathway declares no fill_max of its own)."""
        graph = self.graph
        if graph is None:
            return []
        # Cross-section by stretch (pathway, from, to), summed before the sweep: the racks
        # of a row share the stretches to their nearest junctions.
        stretches: dict[tuple[str, float, float], list[float]] = {}

        def add(leg: Leg, area: float, cables: int) -> None:
            low, high = (leg.start, leg.end) if leg.start <= leg.end else (leg.end, leg.start)
            if high - low <= 1e-9:
                return  # a rack at a junction: no stretch of its own
            found = stretches.get((leg.pathway, low, high))
            if found is None:
                stretches[leg.pathway, low, high] = [area, float(cables)]
            else:
                found[0] += area
                found[1] += cables

        # The middle of a way between two racks runs between two graph nodes: cables that
        # share those nodes share that stretch, walked once for them all.
        middles: dict[tuple[int, int], list[float]] = {}
        for pair in self._pair_table().values():
            managers = []
            if pair.a is pair.b:
                managers = [pair.a.id]
            else:
                hall = graph.route(pair.a, pair.b)
                if hall is not None:
                    add(hall.first, pair.area, pair.cables)
                    if hall.nodes is not None and hall.last is not None:
                        add(hall.last, pair.area, pair.cables)
                        shared = middles.setdefault(hall.nodes, [0.0, 0.0])
                        shared[0] += pair.area
                        shared[1] += pair.cables
                    managers = [pair.a.id, pair.b.id]
            for rack_id in managers:
                names = graph.managers.get(rack_id, [])
                for name in names:  # the rack's cables split evenly over its managers
                    add(Leg(name, 0.0, 1.0), pair.area / len(names), -(-pair.cables // len(names)))
        for (source, target), (area, cables) in middles.items():
            for leg in graph.middle(source, target):
                add(leg, area, int(cables))
        for trunk, run in self.trunk_runs():
            area = _trunk_area(trunk)
            for leg in run.legs:
                add(leg, area, 1)
        events: dict[str, list[tuple[float, float, int]]] = {}
        for (pathway_id, low, high), (area, cables) in stretches.items():
            found = events.setdefault(pathway_id, [])
            found.append((low, area, int(cables)))
            found.append((high, -area, -int(cables)))
        out = []
        for pathway in graph.pathways:
            if pathway.width is None or pathway.depth is None:
                continue
            capacity = float(pathway.width) * float(pathway.depth)
            area, cables, at = _busiest(events.get(pathway.id, []))
            own = pathway.fill_max
            out.append(
                PathwayFill(
                    pathway, capacity, area, cables, at, float(own) if own is not None else limit
                )
            )
        return out

    def trunk_runs(self) -> Iterator[tuple[Trunk, Run]]:
        """Every trunk between two known panels, with its run."""
        by_id = self.analysis.device_by_id
        for trunk in self.layout.trunks:
            pa, pb = by_id.get(trunk.a), by_id.get(trunk.b)
            if pa is not None and pb is not None:
                yield trunk, self.trunk_run(trunk, pa, pb)

    # -- optics, losses, physical cables ---------------------------------------------------

    def optics(self, facts: LinkFacts) -> tuple[Optic | None, Optic | None]:
        """The transceivers at a fibre link's two ends."""
        return end_optics(facts, self.parts)

    def least_budget(self, media: str) -> float | None:
        """The smallest loss budget of any transceiver part for ``media`` (dB), or None."""
        budgets = [
            float(p.loss_budget)
            for p in self.parts.values()
            if p.media == media and p.loss_budget is not None
        ]
        return min(budgets) if budgets else None

    def loss(self, facts: LinkFacts) -> ChannelLoss | None:
        """A fibre link's channel loss against the smaller of its ends' budgets (None for
        other media, or where its fibre length is unknown)."""
        media = facts.link.media
        if media not in OPTICAL:
            return None
        route = self.route(facts)
        fibre = sum(run.length for run in route.runs if run.length is not None)
        if any(run.length is None for run in route.runs):
            return None
        budgets = []
        for optic in self.optics(facts):
            spec = optic.spec if optic is not None else None
            if spec is not None and spec.loss_budget is not None:
                budgets.append((float(spec.loss_budget), spec.key))
        assert media is not None
        return channel_loss(media, fibre, channel_of(facts), min(budgets) if budgets else None)

    def trunk_use(self) -> dict[str, list[LinkFacts]]:
        """The links each trunk carries, by trunk id."""
        use: dict[str, list[LinkFacts]] = {t.id: [] for t in self.layout.trunks}
        for facts in self.analysis.links:
            channel = channel_of(facts)
            if channel is not None and channel.trunk is not None:
                use.setdefault(channel.trunk.id, []).append(facts)
        return use

    def trunk_fibres_used(self, trunk: Trunk) -> int:
        return len(self.trunk_use().get(trunk.id, [])) * fibres_per_link(trunk)

    def cables(self) -> list[Cable]:
        """The physical cables to order: one per link, except a twin-port copper cable
        (two links of one switch cage) and a channel (two patch cords; its trunk is the
        trunk's). A cable of two links is as long as the longer."""
        out: list[Cable] = []
        twins: dict[tuple[object, ...], list[LinkFacts]] = {}
        for facts in self.analysis.links:
            media = facts.link.media or "unspecified"
            row = self.medium_of(facts)
            route = self.route(facts)
            if facts.channel is not None and len(route.runs) == 3:
                for run, side in ((route.runs[0], "a"), (route.runs[2], "b")):
                    out.append(
                        Cable("cord", media, (facts,), run.length, run.stock, run.part, run, side)
                    )
                continue
            twin = self._twin_key(facts, row)
            if twin is not None:
                twins.setdefault(twin, []).append(facts)
                continue
            run = route.runs[0]
            out.append(Cable("cable", media, (facts,), run.length, run.stock, run.part, run))
        for members in twins.values():
            runs = [self.route(f).runs[0] for f in members]
            lengths = [r.length for r in runs]
            length = None if any(x is None for x in lengths) else max(x for x in lengths if x)
            row = self.medium_of(members[0])
            stock = stock_length(length, row.stock if row is not None else ())
            media = members[0].link.media or "unspecified"
            longest = max(runs, key=lambda r: r.length or 0.0)
            out.append(
                Cable("cable", media, tuple(members), length, stock, part_for(row, stock), longest)
            )
        return out

    def _twin_key(self, facts: LinkFacts, row: Medium | None) -> tuple[object, ...] | None:
        """The cable a twin-port copper link shares: (switch, cage) for a splitter, both
        ends' cages for a straight cable; None for a link that is a cable of its own."""
        form = self._twin_copper(facts, row)
        if form is None:
            return None
        ends = []
        for end in (facts.a, facts.b):
            device, group = end.device, end.group
            if device is None or group is None:
                return None
            per_cage = group.per_cage or (2 if device.kind == "switch" else 1)
            ends.append((device.id, group.name, (end.index - 1) // per_cage, device.kind))
        if form == STRAIGHT:
            return (facts.link.media, *ends[0][:3], *ends[1][:3])
        switch = next((e for e in ends if e[3] == "switch"), None)
        if switch is None:
            return None
        return (facts.link.media, *switch[:3])


def _busiest(events: list[tuple[float, float, int]]) -> tuple[float, int, float]:
    """The largest running sum of cross-section along a pathway (area, cables, where)."""
    if not events:
        return 0.0, 0, 0.0
    # Where one stretch ends and the next begins, the cables leaving are not counted with
    # those arriving: at one position, ends before starts.
    events.sort(key=lambda e: (e[0], e[1]))
    area = best = 0.0
    cables = best_cables = 0
    at = 0.0
    for position, delta, count in events:
        area += delta
        cables += count
        if area > best + 1e-15:
            best, best_cables, at = area, cables, position
    return best, best_cables, at


def _trunk_area(trunk: Trunk) -> float:
    """m² of a trunk's cross-section: its diameter's, else (an estimate) as many 3.0 mm MPO
    cords as its fibres fill 12-fibre legs."""
    if trunk.diameter is not None:
        d = float(trunk.diameter)
        return math.pi * d * d / 4
    legs = max(1, math.ceil((trunk.fibres or 12) / 12))
    return legs * math.pi * _CORD_DIAMETER * _CORD_DIAMETER / 4


def trunk_stock(trunk: Trunk, run: Run) -> float | None:
    """The length a trunk is ordered at (m): its declared length, else the stock length
    (the generic series: trunks are made to length) that fits its route; the bill and the
    pull sheets alike."""
    if trunk.length is not None:
        return float(trunk.length)
    return stock_length(run.length)


# A trunk bends no tighter than 10 x its diameter installed (the media table's fibre multiple).
TRUNK_BEND_MULTIPLE = 10.0


def trunk_bend_radius(trunk: Trunk) -> float:
    """The tightest radius a trunk may be bent to (m): 10 x its diameter, the diameter of
    its cross-section where it declares none."""
    diameter = (
        float(trunk.diameter)
        if trunk.diameter is not None
        else 2 * math.sqrt(_trunk_area(trunk) / math.pi)
    )
    return TRUNK_BEND_MULTIPLE * diameter
