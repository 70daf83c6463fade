"""The hall from above: racks at their row and slot, coloured by power density.

Rows run left to right in the order they first appear, ``row_pitch`` apart; racks sit
``rack_pitch`` apart by slot, as cable lengths are computed (layout-format.md, Geometry).
Each rack shows its id, load, cooling (a letter and its word in the tooltip) and the
utilisation of its feeds as a bar (its tooltip names the power chain element each feed hangs
on); racks with findings are outlined by severity. The longest cable routes are drawn as
the length model runs them: along the tray over the first rack's row, then across the rows
to the other rack.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from rackdesigner.analysis import Analysis, LinkFacts, RackFacts
from rackdesigner.export.render import svg
from rackdesigner.export.render.findings import Marks, by_subject
from rackdesigner.export.render.floor_pathways import (
    FULLEST,
    drawn,
    fill_legend,
    fill_style,
    fullest_table,
    pathway_parts,
)
from rackdesigner.export.render.palette import (
    DENSITY_RACK_SCALE_STEP,
    DENSITY_STEPS_KW,
    SEVERITY_SYMBOLS,
)
from rackdesigner.export.render.svg import SEVERITY_CLASS, clip, kw, num, text
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.hall_grid import RACK, UNDER
from rackdesigner.model.layout import Rack
from rackdesigner.model.progress import each

SCALE = 80.0  # px per metre
RACK_WIDTH_M = 0.6
RACK_DEPTH_M = 1.2
ROUTES = 10  # the longest cable routes drawn
COOLING_LETTER = {"air": "A", "liquid": "L", "rear-door": "D", "immersion": "I"}
MARGIN = 30  # px round the page
LABEL_W = 70  # px: row names left of the racks
TOP = 200  # px: title block, legend and the routes' lanes above the first row


def density_class(load_w: float) -> str:
    """``d0`` .. ``d6``: the step of :data:`palette.DENSITY_STEPS_KW` a load falls in."""
    kw_load = load_w / 1000
    for i, limit in enumerate(DENSITY_STEPS_KW):
        if kw_load < limit:
            return f"d{i}"
    return f"d{len(DENSITY_STEPS_KW)}"


def _scale_labels() -> list[str]:
    steps = DENSITY_STEPS_KW
    labels = [f"< {steps[0]:g}"]
    labels.extend(f"{a:g}–{b:g}" for a, b in pairwise(steps))
    labels.append(f"≥ {steps[-1]:g} kW")
    return labels


def _longest(analysis: Analysis, count: int) -> list[LinkFacts]:
    candidates = []
    for link in analysis.links:
        da, db = link.a.device, link.b.device
        if da is None or db is None or da.rack is db.rack:
            continue
        length = link.length
        if length is None:
            continue
        candidates.append((-length, link.index, link))
    candidates.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in candidates[:count]]


def _racks(link: LinkFacts) -> tuple[Rack, Rack]:
    """The racks at the ends of a route :func:`_longest` chose (both ends resolve)."""
    da, db = link.a.device, link.b.device
    assert da is not None and db is not None
    return da.rack, db.rack


def floorplan(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    theme: str = "light",
    date: str | None = None,
) -> str:
    width, height, parts = floorplan_parts(analysis, diagnostics, date=date, theme=theme)
    return svg.document(
        width, height, parts, theme=theme, title=f"{analysis.layout.name}: floor plan"
    )


@dataclass(slots=True)
class _Plan:
    """Where things go on the plan, in px: each rack's slot, the racks' drawn size, the
    pitches, the origin of the first row and the page's size."""

    slots: dict[int, int]  # by rack index
    pitch: float
    row_pitch: float
    width_px: float
    depth_px: float
    x0: float
    y0: float
    plan_h: float
    width: float
    height: float
    label_x: float  # the rows' names end here (left of any pathway before the first slot)

    def centre(self, facts: RackFacts) -> tuple[float, float]:
        x = self.x0 + (self.slots[facts.index] - 1) * self.pitch + self.pitch / 2
        y = self.y0 + facts.place.row_index * self.row_pitch + self.depth_px / 2
        return x, y

    def at(self, x: float, y: float, plane: str = "") -> tuple[float, float]:
        """A point of the hall's grid in metres (along the rows, across them) on the plan:
        overhead, in the lane above the row's racks; under the floor, through their middle."""
        px = self.x0 + x * SCALE - self.pitch / 2
        top = self.y0 + y * SCALE
        return px, top + self.depth_px / 2 if plane == UNDER else top - 12


def floorplan_parts(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    date: str | None = None,
    theme: str = "light",
) -> tuple[float, float, list[str]]:
    """The floor plan's size and elements, for a document or a print page (``theme``: the
    pathways' fill colours, where the layout declares pathways)."""
    plan = _plan(analysis)
    rack_marks = by_subject(diagnostics, "rack")
    pathways = drawn(analysis, plan.at)
    body = _rows(analysis, plan, trays=not pathways)
    for facts in each(analysis.racks, "drawing the floor plan"):
        body.append(_rack(analysis, facts, plan, rack_marks.get(facts.rack.id)))
    if pathways:
        body.insert(0, fill_style(theme))
        body.extend(pathway_parts(pathways))
    table_y = plan.y0 + plan.plan_h + 40
    longest = _longest(analysis, ROUTES)
    body.extend(_routes(analysis, plan, longest, table_y))
    height = plan.height
    if pathways:
        fullest_y = table_y + (16 + 12 * len(longest) + 20 if longest else 0)
        body.extend(fullest_table(pathways, MARGIN, fullest_y))
        height = max(height, fullest_y + 16 + 12 * FULLEST + MARGIN)
    head = _title_block(analysis, plan.width, MARGIN, date)
    head.extend(_legend(MARGIN, 100, trays=not pathways))
    if pathways:
        head.extend(fill_legend(MARGIN, 156))
    return plan.width, height, [*head, *body]


def _plan(analysis: Analysis) -> _Plan:
    """The plan's geometry: racks at their slot; racks without a slot after the row's last
    (in layout order)."""
    geometry = analysis.geometry
    pitch = geometry.rack_pitch * SCALE
    row_pitch = geometry.row_pitch * SCALE
    width_px = max(8.0, min(RACK_WIDTH_M * SCALE, pitch - 4))
    depth_px = max(16.0, min(RACK_DEPTH_M * SCALE, row_pitch * 0.6))
    slots: dict[int, int] = {}
    last_slot: dict[int, int] = {}
    for facts in analysis.racks:
        if facts.rack.slot is not None:
            row = facts.place.row_index
            last_slot[row] = max(last_slot.get(row, 0), facts.rack.slot)
    for facts in analysis.racks:
        row = facts.place.row_index
        if facts.rack.slot is not None:
            slots[facts.index] = facts.rack.slot
        else:
            last_slot[row] = last_slot.get(row, 0) + 1
            slots[facts.index] = last_slot[row]
    max_slot = max(slots.values(), default=1)
    rows = max((f.place.row_index for f in analysis.racks), default=0) + 1
    # Pathways may run beyond the racks (to the aisles at the rows' ends): room for them.
    low, high = _pathway_slots(analysis)
    before = max(0.0, 1.0 - low) * pitch
    x0 = MARGIN + LABEL_W + before
    y0 = TOP + MARGIN
    plan_w = max(float(max_slot), high) * pitch
    plan_h = (rows - 1) * row_pitch + depth_px
    width = max(x0 + plan_w + MARGIN, 980)
    height = y0 + plan_h + MARGIN + 60 + 12 * ROUTES
    return _Plan(
        slots, pitch, row_pitch, width_px, depth_px, x0, y0, plan_h, width, height, x0 - before
    )


def _pathway_slots(analysis: Analysis) -> tuple[float, float]:
    """The lowest and highest slot position a drawn pathway reaches (1, 0 without any)."""
    graph = analysis.pathway_graph
    if graph is None:
        return 1.0, 0.0
    xs = [x for e in graph.extents if e.axis != RACK for x in (e.x0, e.x1)]
    return (min(xs), max(xs)) if xs else (1.0, 0.0)


def _rows(analysis: Analysis, plan: _Plan, *, trays: bool = True) -> list[str]:
    """Each row: its name; a tray over the racks' centres as the row-and-slot model runs
    cables (``trays``: where the layout declares no pathway of its own)."""
    body: list[str] = []
    row_names: dict[int, str] = {}
    row_extent: dict[int, tuple[float, float]] = {}
    for facts in analysis.racks:
        row = facts.place.row_index
        row_names.setdefault(row, facts.rack.row if facts.rack.row is not None else "–")
        x, _ = plan.centre(facts)
        lo, hi = row_extent.get(row, (x, x))
        row_extent[row] = (min(lo, x), max(hi, x))
    for row in sorted(row_names):
        y = plan.y0 + row * plan.row_pitch
        lo, hi = row_extent[row]
        tray = (
            f'<path class="tray" d="M{num(lo - plan.pitch / 2)} {num(y - 12)}'
            f'H{num(hi + plan.pitch / 2)}"/>'
            if trays
            else ""
        )
        body.append(
            f'<text class="h3 r" x="{num(plan.label_x - 12)}" '
            f'y="{num(y + plan.depth_px / 2 + 5)}">'
            f"{text(clip('Row ' + row_names[row], 9))}</text>{tray}\n"
        )
    return body


def _rack(analysis: Analysis, facts: RackFacts, plan: _Plan, marks: Marks | None) -> str:
    """One rack: its box in its density's colour with its id, load and cooling letter, a
    tooltip, its feeds' utilisation bar, and its findings' outline and symbol."""
    width_px, depth_px = plan.width_px, plan.depth_px
    x, y = plan.centre(facts)
    left, upper = x - width_px / 2, y - depth_px / 2
    rack = facts.rack
    util = facts.utilisation
    cooling = facts.cooling
    tip = _rack_tip(analysis, facts)
    if marks is not None:
        tip.extend(marks.lines)
    dash = ' stroke-dasharray="4 2"' if rack.slot is None else ""
    font_chars = int((width_px - 4) / 6.02)
    part = [
        f'<g class="{density_class(facts.load)}"><title>{text(chr(10).join(tip))}</title>'
        f'<rect class="b" x="{num(left)}" y="{num(upper)}" width="{num(width_px)}" '
        f'height="{num(depth_px)}"{dash}/>'
        f'<text x="{num(left + 3)}" y="{num(upper + 12)}">{text(clip(rack.id, font_chars))}'
        f"</text>"
        f'<text class="sm" x="{num(left + 3)}" y="{num(upper + 24)}">'
        f"{text(clip(kw(facts.load), int((width_px - 4) / 4.82)))}</text>"
        f'<text class="sm" x="{num(left + 3)}" y="{num(upper + depth_px - 12)}">'
        f"{COOLING_LETTER.get(cooling, '?')}</text></g>"
    ]
    # Feed utilisation: a bar along the rack's front edge, full width = 100 %.
    bar_w = width_px - 6
    part.append(
        f'<rect class="sl" x="{num(left + 3)}" y="{num(upper + depth_px - 8)}" '
        f'width="{num(bar_w)}" height="5"/>'
    )
    if util is not None:
        fill = "se" if util > 1 else ("sw" if util > 0.8 else "si")
        part.append(
            f'<rect class="{fill}" x="{num(left + 3)}" y="{num(upper + depth_px - 8)}" '
            f'width="{num(bar_w * min(util, 1.0))}" height="5"/>'
        )
    if marks is not None:
        sev = SEVERITY_CLASS[marks.severity]
        part.append(
            f'<rect class="f{sev}" x="{num(left - 2)}" y="{num(upper - 2)}" '
            f'width="{num(width_px + 4)}" height="{num(depth_px + 4)}"/>'
            f'<use href="#s{sev}" x="{num(left + width_px - 12)}" y="{num(upper + 2)}"/>'
        )
    return "".join(part) + "\n"


def _rack_tip(analysis: Analysis, facts: RackFacts) -> list[str]:
    """A rack's tooltip lines: id and label, row and slot, load of its usable capacity,
    cooling and its verdict, GPUs."""
    rack = facts.rack
    util = facts.utilisation
    tip = [
        rack.id + (f" ({rack.label})" if rack.label else ""),
        f"row {rack.row if rack.row is not None else '–'} · slot "
        + (str(rack.slot) if rack.slot is not None else "none (drawn at the row's end)"),
        f"load {'≥ ' if facts.load_unknown else ''}{kw(facts.load)}"
        + (f" of {kw(facts.capacity)} usable ({util:.0%})" if util is not None else ""),
        f"cooling {facts.cooling} · {analysis.cooling_verdict(facts)}",
    ]
    if facts.gpus:
        tip.append(f"{facts.gpus} GPUs")
    # The power chain: what each feed hangs on (the fill stays the power density).
    sources = [f"{f.side or f.id} on {f.source}" for f in rack.feeds if f.source]
    if sources:
        tip.append("power " + ", ".join(sources))
    return tip


def _routes(analysis: Analysis, plan: _Plan, longest: list[LinkFacts], table_y: float) -> list[str]:
    """The longest routes, over everything else: up from the rack to the tray above its
    row (each route in a lane of its own), along it, and across the rows to the other;
    and their table under the plan."""
    body: list[str] = []
    racks_by_id = {id(f.rack): f for f in analysis.racks}
    if longest:
        body.append(
            f'<text class="h3" x="{MARGIN}" y="{num(table_y)}">Longest cable routes</text>\n'
        )
    # Routes between the same two racks run the same way: one line for them, numbered with
    # their ranks ("1–8"), each in the table below (ten lanes of one pair, numbered each,
    # were a stack of overlapping digits).
    groups: dict[tuple[int, int], list[int]] = {}
    for rank, link in enumerate(longest):
        ends = sorted(id(rack) for rack in _racks(link))
        groups.setdefault((ends[0], ends[1]), []).append(rank)
    labels = []
    for rank, link in enumerate(longest):
        length = link.length or 0.0
        media = link.link.media or "media not given"
        labels.append(f"{length:.1f} m: {link.link.a} ↔ {link.link.b} ({media})")
        body.append(
            f'<text class="sm" x="{MARGIN}" y="{num(table_y + 16 + rank * 12)}">'
            f"{rank + 1:>2}  {text(labels[-1])}</text>\n"
        )
    for lane_number, ranks in enumerate(groups.values()):
        link = longest[ranks[0]]
        a, b = (racks_by_id[id(rack)] for rack in _racks(link))
        ax, ay = plan.centre(a)
        bx, by = plan.centre(b)
        ay -= plan.depth_px / 2
        by -= plan.depth_px / 2
        lane = ay - 8 - lane_number * 3
        ranked = "\n".join(f"{rank + 1}  {labels[rank]}" for rank in ranks)
        way = _along_pathways(analysis, plan, link, (ax, ay), (bx, by), 3 * lane_number)
        if way is None:  # the row-and-slot model: up, along the rows, down
            way = f"M{num(ax)} {num(ay)}V{num(lane)}H{num(bx)}V{num(by)}"
        body.append(
            f"<g><title>{text(ranked)}</title>"
            f'<path class="route" d="{way}"/>'
            f'<circle class="si" cx="{num(ax)}" cy="{num(ay)}" r="2.5"/>'
            f'<circle class="si" cx="{num(bx)}" cy="{num(by)}" r="2.5"/>'
            f'<text class="xs" x="{num(ax + 2)}" y="{num(lane - 1)}">{ranges(ranks)}</text></g>\n'
        )
    return body


def _along_pathways(
    analysis: Analysis,
    plan: _Plan,
    link: LinkFacts,
    a: tuple[float, float],
    b: tuple[float, float],
    offset: float,
) -> str | None:
    """(v1.4) A routed cable's way on the plan, leg by leg along its pathways (each point
    moved ``offset`` px, so that routes sharing a tray stay apart); None where it does not
    follow pathways."""
    graph = analysis.pathway_graph
    if graph is None:
        return None
    route = analysis.plant.route(link)
    if not route.routed:
        return None
    kinds = {p.id: p.kind_name for p in graph.pathways}
    points = [a]
    for leg in route.legs:
        plane = UNDER if kinds.get(leg.pathway) == "under-floor" else ""
        for along in (leg.start, leg.end):
            point = graph.point(leg.pathway, along)
            if point is not None:
                x, y = plan.at(*point, plane)
                points.append((x + offset, y + offset))
    if len(points) == 1:
        return None
    points.append(b)
    return "M" + "L".join(f"{num(x)} {num(y)}" for x, y in points)


def ranges(ranks: list[int]) -> str:
    """Ranks counted from 0, shown from 1 as runs: [0, 1, 2, 3, 5] -> "1–4, 6"."""
    runs: list[list[int]] = []
    for rank in sorted(ranks):
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    return ", ".join(
        f"{run[0] + 1}" if len(run) == 1 else f"{run[0] + 1}–{run[-1] + 1}" for run in runs
    )


def _title_block(analysis: Analysis, width: float, margin: float, date: str | None) -> list[str]:
    layout = analysis.layout
    site = layout.site
    load = ("≥ " if analysis.site_load_unknown else "") + kw(analysis.site_load)
    totals = [f"{len(analysis.racks)} racks", f"{analysis.total_gpus} GPUs", f"load {load}"]
    if site is not None and site.power_budget:
        totals.append(f"power budget {kw(float(site.power_budget))}")
    if site is not None and site.cooling_capacity:
        totals.append(f"cooling {kw(float(site.cooling_capacity))}")
    geometry = analysis.geometry
    second = [
        "Floor plan, from above",
        f"rack pitch {geometry.rack_pitch:g} m",
        f"row pitch {geometry.row_pitch:g} m",
    ]
    if layout.revision:
        second.insert(1, f"revision {layout.revision}")
    if date:
        second.append(date)
    return [
        f'<rect class="tb" x="{margin - 10}" y="{margin - 10}" '
        f'width="{num(width - 2 * margin + 20)}" height="70"/>',
        # 22 px bold monospaced: cut to the title block (a long name ran off the page).
        f'<text class="h1" x="{margin}" y="{margin + 16}">'
        f"{text(clip(layout.name, int((width - 2 * margin) / 13.25)))}</text>",
        f'<text x="{margin}" y="{margin + 34}">{text(" · ".join(second))}</text>',
        f'<text x="{margin}" y="{margin + 50}">{text(" · ".join(totals))}</text>\n',
    ]


def _legend(x: float, y: float, *, trays: bool = True) -> list[str]:
    out = [f'<text class="sm mu" x="{x}" y="{y + 9}">power density per rack (kW)</text>']
    cx = x + 160
    for i, label in enumerate(_scale_labels()):
        if i == DENSITY_RACK_SCALE_STEP:
            # The orange ramp is the rack-scale range: said, not only coloured.
            out.append(f'<text class="sm mu" x="{num(cx)}" y="{y + 9}">rack-scale:</text>')
            cx += 11 * 4.82 + 6
        out.append(
            f'<rect class="d{i} b" x="{num(cx)}" y="{y}" width="18" height="12"/>'
            f'<text class="sm" x="{num(cx + 22)}" y="{y + 9}">{text(label)}</text>'
        )
        cx += 26 + len(label) * 4.82 + 10
    y2 = y + 20
    letters = "cooling: " + " · ".join(f"{c} {mode}" for mode, c in COOLING_LETTER.items())
    util = "feed utilisation (full bar = 100 %; amber above 80 %, red above 100 %)"
    bar_x = x + len(letters) * 4.82 + 24
    route_x = bar_x + 36 + len(util) * 4.82 + 24
    out.append(
        f'<text class="sm mu" x="{x}" y="{y2 + 9}">{text(letters)}</text>'
        f'<rect class="sl" x="{num(bar_x)}" y="{y2 + 4}" width="30" height="5"/>'
        f'<rect class="si" x="{num(bar_x)}" y="{y2 + 4}" width="18" height="5"/>'
        f'<text class="sm mu" x="{num(bar_x + 36)}" y="{y2 + 9}">{text(util)}</text>'
        f'<path class="route" d="M{num(route_x)} {y2 + 6}h30"/>'
        # The row-and-slot model's tray (a layout's own pathways have their own legend).
        + (f'<path class="tray" d="M{num(route_x + 150)} {y2 + 6}h30"/>' if trays else "")
        + f'<text class="sm mu" x="{num(route_x + 36)}" y="{y2 + 9}">longest routes</text>'
        + (
            f'<text class="sm mu" x="{num(route_x + 186)}" y="{y2 + 9}">tray</text>'
            if trays
            else ""
        )
    )
    y3 = y2 + 18
    cx = x
    for severity in ("error", "warning", "info"):
        sev = SEVERITY_CLASS[severity]
        out.append(
            f'<rect class="f{sev}" x="{cx}" y="{y3}" width="18" height="10"/>'
            f'<use href="#s{sev}" x="{cx + 22}" y="{y3}"/>'
            f'<text class="sm mu" x="{cx + 36}" y="{y3 + 8}">{severity} '
            f"{SEVERITY_SYMBOLS[severity]}</text>"
        )
        cx += 110
    out.append("\n")
    return out
