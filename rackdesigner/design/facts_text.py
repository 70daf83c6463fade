"""The few read-only lines the designer's inspector shows at its top: a rack's load, heat and
units and its path up the power chain, a device's model, power and cables, a feed's
capacity and the element it hangs on, a cable's run.

Pure functions of a session's layout, index and analysis (no Textual): the app only shows
the lines. Heights go through :func:`rackdesigner.model.units.fmt`; power is shown in
kilowatts with fixed decimals (``0.00 kW``, ``39.5 kW``), so that the figures of a rack and of
its devices line up and read alike from one rack to the next (``fmt`` would pick ``W`` for
a small device and ``kW`` for its rack).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.model.units import HEIGHT, fmt
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import DeviceFacts, RackFacts
    from rackdesigner.analysis.rack_scale import Domain
    from rackdesigner.edit import Session
    from rackdesigner.model.layout import Layout, PowerElement, Rack

# Links listed in a device's inspector; the rest are counted.
LINKS_SHOWN = 8

Ref = tuple[str, str]


def kilowatts(watts: float, decimals: int = 1) -> str:
    """``39.5 kW``, ``1,234.0 kW``, ``0.00 kW`` (``decimals=2``): watts as kilowatts."""
    return f"{watts / 1000:,.{decimals}f} kW"


def layout_lines(layout: Layout) -> list[str]:
    """What the inspector says when nothing is under the cursor."""
    if not layout.racks:
        return [
            f"{layout.name}: no racks yet.",
            "Add the first rack: ctrl+p → Add rack (enter takes its defaults);",
            "then a places devices at the cursor. ctrl+p → Open opens a layout.",
        ]
    return ["Nothing selected."]


def facts_lines(session: Session, ref: Ref) -> list[str]:
    """A few figures from the session's analysis for the entity ``ref`` names (none before
    the first check)."""
    analysis = session.analysis
    kind, ident = ref
    if analysis is None:
        return []
    if kind == "device":
        facts = analysis.device_by_id.get(ident)
        if facts is None:
            return []
        dtype = facts.type
        if dtype is None:
            return [f"model {facts.device.model} is not in the catalog"]
        line = [dtype.name or facts.device.model, facts.kind or "", fmt(facts.height_u, HEIGHT)]
        if facts.power is not None:
            line.append(f"{kilowatts(facts.power, 2)}{' (est.)' if facts.power_estimated else ''}")
        if facts.gpus:
            line.append(f"{facts.gpus} × {dtype.gpu or 'GPU'}")
        from rackdesigner.design.liquid_text import cold_plate_lines, device_lines

        return [
            " · ".join(x for x in line if x),
            f"in rack {facts.rack.id}",
            *tray_lines(session, facts),
            *device_lines(analysis, facts),
            *link_lines(session, ident),
            *cold_plate_lines(analysis, facts),
        ]
    if kind == "rack":
        from rackdesigner.design.liquid_text import rack_lines

        for rack in analysis.racks:
            if rack.rack.id == ident:
                capacity = kilowatts(rack.capacity) if rack.capacity is not None else "no feeds"
                return [
                    f"load {kilowatts(rack.load)} of {capacity}",
                    f"heat {kilowatts(rack.heat)} ({kilowatts(rack.air_heat)} air)"
                    f" · cooling {analysis.cooling_verdict(rack)}",
                    f"{rack.units_used:g} of {fmt(rack.rack.height_u, HEIGHT)} used"
                    f" · {plural(rack.gpus, 'GPU')} · {plural(len(rack.rack.feeds), 'feed')}",
                    *rack_lines(analysis, rack),
                    *domain_lines(analysis.racks, rack),
                    *chain_lines(session.layout, rack.rack),
                ]
    if kind == "feed":
        for rack in analysis.racks:
            for feed in rack.feeds:
                if feed.feed.id == ident:
                    on = feed.feed.source
                    where = feed.feed.position
                    return [
                        f"in rack {rack.rack.id} · usable {kilowatts(feed.capacity)}",
                        f"carries {kilowatts(feed.load)} when its side runs alone",
                        *(
                            [f"on {on}" + (f", position {where}" if where is not None else "")]
                            if on
                            else []
                        ),
                    ]
    if kind == "link":
        return link_run_lines(session, ident)
    return []


def domain_lines(racks: list[RackFacts], rack: RackFacts) -> list[str]:
    """A rack's NVLink domain (docs/rack-scale.md): its GPUs and its trays against the
    shape's counts (an NVL72 holds 18 compute and 9 switch trays: ``compute 18/18``), or
    the rack-scale trays a rack without ``nvlink_domain`` holds (NVL002). Short lines: the
    inspector is 26 columns wide at 80x24."""
    from rackdesigner.analysis.rack_scale import tray_role

    name = rack.rack.nvlink_domain
    if name is None:
        count = sum(1 for dev in rack.devices if tray_role(dev) is not None)
        if not count:
            return []
        return [f"{count} NVLink trays, no domain:", "set nvlink_domain (NVL002)"]
    domain = _domain(racks, name)
    shape = domain.shape
    compute, switches = len(domain.compute), len(domain.switches)
    if shape is not None:
        what = shape.name
        trays = f"compute {compute}/{shape.compute_trays} · switch {switches}/{shape.switch_trays}"
    else:
        shapes = domain.shapes
        what = f"mixed {'+'.join(shapes)}" if shapes else "no trays"
        trays = f"compute {compute} · switch {switches}"
    lines = [f"NVLink domain {name}", f"{what} · {plural(domain.gpus, 'GPU')}", trays]
    if len(domain.racks) > 1:
        lines.append(f"over racks {', '.join(r.rack.id for r in domain.racks)}")
    return lines


def tray_lines(session: Session, facts: DeviceFacts) -> list[str]:
    """A rack-scale tray's domain: the one its rack names, or none (NVL002)."""
    from rackdesigner.analysis.rack_scale import tray_role

    role = tray_role(facts)
    if role is None:
        return []
    name = facts.rack.nvlink_domain
    if name is None:
        return [f"{role} tray in no NVLink", "domain (NVL002): the rack", "names no nvlink_domain"]
    analysis = session.analysis
    if analysis is None:
        return [f"in NVLink domain {name}"]
    domain = _domain(analysis.racks, name)
    trays = len(domain.compute) + len(domain.switches)
    return [
        f"in NVLink domain {name}",
        f"{plural(trays, 'tray')} · {plural(domain.gpus, 'GPU')} in it",
    ]


def _domain(racks: list[RackFacts], name: str) -> Domain:
    """The domain the racks naming ``name`` form (one pass over the racks' ids)."""
    from rackdesigner.analysis.rack_scale import domains

    found, _ = domains([r for r in racks if r.rack.nvlink_domain == name])
    return found[0]


def link_lines(session: Session, device_id: str) -> list[str]:
    """A device's cables for its inspector: ``ib1 → a01-leaf1:p3 · dac 1.6 m``."""
    from rackdesigner.analysis.geometry import rack_places
    from rackdesigner.design.connect import cable_length

    links = session.index.links_of(device_id)
    if not links:
        return []
    out = [f"cables: {len(links)}"]
    # Once for every cable listed: the analysis keeps each rack's place (a fresh pass over
    # the racks is 6 ms on 100,000 GPUs, and the inspector shows a device after each edit).
    analysis = session.analysis
    places = analysis.places if analysis is not None else rack_places(session.layout)
    shown = links
    if len(links) > LINKS_SHOWN:
        # The first ones by the order they were added, and the latest (a cable just
        # connected is always in view).
        shown = [*links[: LINKS_SHOWN - 1], links[-1]]
    for number, link in enumerate(shown):
        mine, other = (link.a, link.b) if link.a.startswith(f"{device_id}:") else (link.b, link.a)
        if link.length is not None:
            length: float | None = float(link.length)
        else:
            length = cable_length(session.layout, session.index, link.a, link.b, places)
        where = f" {length:.1f} m" if length is not None else ""
        if len(links) > LINKS_SHOWN and number == len(shown) - 1:
            out.append(f"  … {len(links) - LINKS_SHOWN} more; the latest:")
        out.append(f"  {mine.partition(':')[2]} → {other} · {link.media or '?'}{where}")
    return out


def link_run_lines(session: Session, link_id: str) -> list[str]:
    """A cable's inspector lines: its run, its speed and what medium reaches it."""
    from rackdesigner.design.connect import (
        cable_length,
        ends_tech,
        link_form,
        propose_media,
        speed_text,
    )

    link = session.index.link(link_id)
    if link is None:
        return ["a cable between two ports"]
    analysis = session.analysis
    facts = None
    if analysis is not None:
        from rackdesigner.design.cable_route import facts_of

        facts = facts_of(analysis, link)
    if facts is not None and link.length is None:
        computed = facts.length  # (v1.4) as the rules measure it: a channel's three parts
    else:
        computed = cable_length(session.layout, session.index, link.a, link.b)
    declared = float(link.length) if link.length is not None else None
    length = declared if declared is not None else computed
    known = [s for end in (link.a, link.b) if (s := port_speed(session, end)) is not None]
    speed = min(known) if known else None
    overrides = dict(session.layout.rules.thresholds) if session.layout.rules else {}
    proposed = propose_media(
        length,
        speed,
        overrides,
        link_form(session.index, link.a, link.b),
        ends_tech(session.index, link.a, link.b),
    )
    run = (
        f"{length:.1f} m {'declared' if declared is not None else 'computed'}"
        if length is not None
        else "length unknown"
    )
    lines = [
        f"{link.a} → {link.b}",
        f"{link.media or 'no media'} · {run} · {speed_text(speed) or 'speed unknown'}",
    ]
    if proposed.media is not None and proposed.media != link.media:
        lines.append(f"proposed for this run: {proposed.media} ({proposed.reason})")
    if analysis is not None and facts is not None:  # (v1.4) its way: segments, stock length
        from rackdesigner.design.cable_route import route_lines

        lines.extend(route_lines(analysis, facts))
    return lines


def port_speed(session: Session, end: str) -> float | None:
    """The speed of the port group a link end names (None when unknown)."""
    index = session.index
    device_id, _, port = end.partition(":")
    device = index.device(device_id)
    dtype = index.type_of(device) if device is not None else None
    group = dtype.port_group(port.rstrip("0123456789")) if dtype is not None else None
    return float(group.speed) if group is not None and group.speed is not None else None


def chain_path(layout: Layout, source: str) -> list[PowerElement]:
    """The elements from ``source`` up the power chain, nearest first, each through its
    normal source (the first of its ``fed_by``); read from the layout alone, so the
    inspector never waits for the chain's loads."""
    by_id = {e.id: e for e in layout.power_elements}
    out: list[PowerElement] = []
    seen: set[str] = set()
    element = by_id.get(source)
    while element is not None and element.id not in seen:  # a cycle is refused at load
        seen.add(element.id)
        out.append(element)
        element = by_id.get(element.fed_by[0]) if element.fed_by else None
    return out


def chain_lines(layout: Layout, rack: Rack) -> list[str]:
    """A rack's path up the power chain, one line per side (per feed without a side):
    ``power A: busway-a1-a ← ups-b1-a ← swbd-a ← ats-a ← utility-1 (or gen-a)``; an
    element with other sources names them. None where no feed names an element."""
    lines: list[str] = []
    for feed in rack.feeds:
        if not feed.source:
            continue
        steps = []
        for element in chain_path(layout, feed.source):
            others = (element.fed_by or [])[1:]
            steps.append(element.id + (f" (else {', '.join(others)})" if others else ""))
        line = f"power {feed.side or feed.id}: {' ← '.join(steps)}"
        if line not in lines:
            lines.append(line)
    return lines
