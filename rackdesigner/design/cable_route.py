"""(v1.4) A cable's way through the plant, for the designer: the inspector's lines (its
segments, routed and stock lengths, a channel's parts) and the points the floor view draws
it through. Plain functions of an analysis (no Textual).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis.channels import channel_of
from rackdesigner.analysis.plant import BY_PATHWAYS, BY_ROWS, DECLARED, IN_RACK, trunk_stock
from rackdesigner.analysis.stock import metres

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, LinkFacts
    from rackdesigner.analysis.plant import LinkRoute, Run
    from rackdesigner.model.layout import Link

HOW = {
    BY_PATHWAYS: "along the pathways",
    BY_ROWS: "along the rows: no pathway joins its racks (CAB007)",
    IN_RACK: "inside the rack",
    DECLARED: "its declared length",
}


@dataclass(frozen=True, slots=True)
class FloorRoute:
    """A cable's way on the floor: the points it passes (slot position, row index), first
    and last its racks', its racks' ids, whether it follows the pathways, and a line that
    names it."""

    link: str
    points: tuple[tuple[float, int], ...]
    racks: tuple[str, str]
    routed: bool
    summary: str


def facts_of(analysis: Analysis, link: Link) -> LinkFacts | None:
    """The analysis's facts of ``link`` (a designer's live analysis keeps them by link)."""
    by_link = getattr(analysis, "link_facts", None)
    if by_link is not None:
        found: LinkFacts | None = by_link.get(id(link))
        return found
    return next((facts for facts in analysis.links if facts.link is link), None)


def _length(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f} m"


def _run_line(run: Run) -> str:
    stock = f", {metres(run.stock)} m stock" if run.stock is not None else ""
    part = f" {run.part}" if run.part else ""
    name = run.name if run.kind == "trunk" else run.kind  # "trunk t1"; "cord"
    return f"{name} {_length(run.length)}{stock}{part}"


def route_lines(analysis: Analysis, facts: LinkFacts) -> list[str]:
    """The inspector's lines for a cable's route: how it was measured, its routed and
    stock lengths (a channel's parts each), and each pathway segment with its length."""
    route = analysis.plant.route(facts)
    runs = route.runs
    lines: list[str] = []
    if len(runs) == 1:
        run = runs[0]
        stock = f" · stock {metres(run.stock)} m" if run.stock is not None else ""
        part = f" ({run.part})" if run.part else ""
        lines.append(f"routed {_length(run.length)}{stock}{part}")
        lines.append(f"  {HOW.get(run.how, 'not measured: an end has no place')}")
    else:
        total = [run.length for run in runs]
        known = None if any(x is None for x in total) else sum(x for x in total if x)
        lines.append(f"channel {_length(known)}: cord, trunk, cord")
        channel = channel_of(facts)
        for run in runs:
            if run.kind == "trunk" and channel is not None and channel.trunk is not None:
                run = replace(run, stock=trunk_stock(channel.trunk, run))
            lines.append(f"  {_run_line(run)}")
    legs = route.legs
    if legs:
        lines.append(f"segments ({len(legs)}):")
        lines.extend(f"  {leg.pathway} {leg.length:.2f} m" for leg in legs)
    return lines


def floor_route(analysis: Analysis, facts: LinkFacts) -> FloorRoute | None:
    """The points the floor view draws a cable's way through: its first rack, the ends of
    each pathway segment on the floor (a vertical manager has none), its last rack. None
    where an end is in no rack."""
    da, db = facts.a.device, facts.b.device
    if da is None or db is None:
        return None
    route = analysis.plant.route(facts)
    graph = analysis.pathway_graph
    geometry = analysis.geometry
    pa, pb = da.place, db.place
    if pa is None or pb is None or pa.slot is None or pb.slot is None:
        return None
    points: list[tuple[float, int]] = [(float(pa.slot), pa.row_index)]
    if graph is not None:
        for leg in route.legs:
            for along in (leg.start, leg.end):
                point = graph.point(leg.pathway, along)
                if point is not None:
                    x, y = point
                    points.append((x / geometry.rack_pitch, round(y / geometry.row_pitch)))
    points.append((float(pb.slot), pb.row_index))
    return FloorRoute(
        facts.link.a,
        tuple(points),
        (da.rack.id, db.rack.id),
        route.routed and bool(route.legs),
        _summary(facts, route),
    )


def _summary(facts: LinkFacts, route: LinkRoute) -> str:
    runs = route.runs
    lengths = [run.length for run in runs]
    length = None if any(x is None for x in lengths) else sum(x for x in lengths if x)
    way = route.route_text or HOW.get(runs[0].how, "")
    return f"{facts.link.a} → {facts.link.b}: {way} · {_length(length)}"
