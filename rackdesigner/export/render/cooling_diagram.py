"""The liquid cooling as a diagram (``export --cooling-diagram``, the print pack's
``cooling`` page): facility water loops → CDU groups → racks, and the chilled water loops
→ the racks' rear doors.

Left to right: the loops that feed CDUs (their supply and return, heat against capacity,
margin, flow); each CDU group (its CDUs' rating at the approach they run at, heat against
capacity, the margin with one CDU lost, the secondary flow needed against its pumps,
supply and return); its racks in a frame (each rack's cold-plate heat and flow, what its
rear door or in-row coolers take); right of the racks the loops that feed only rear doors
and in-row coolers, a line to each frame whose racks' doors hang on them. A box's outline
and its margin are coloured by how near its limit it is (cooling_plan.py: short, tight,
ok, not judged), each with its mark too, so print without colour still says it.

What it draws is :func:`.cooling_plan.cooling_plan`; what it says is the report's
``liquid_loops`` figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import Rating
from rackdesigner.export.render import palette, svg
from rackdesigner.export.render.cooling_plan import (
    RACKS_DRAWN,
    SHORT,
    TIGHT,
    UNJUDGED,
    Band,
    CoolingPlan,
    LoopBox,
    RackBox,
    cooling_plan,
    share_level,
)
from rackdesigner.export.render.pdf import PackInput, Page, drawing_pages
from rackdesigner.export.render.svg import clip, num, text
from rackdesigner.model.units import FLOW, fmt
from rackdesigner.model.wording import plural

MARGIN = 30
TOP = 176  # below the title block and the legend
LOOP_W = 236
GROUP_W = 284
CHANNEL = 48  # between the columns: the lines' lanes
RACK_W = 122
RACK_H = 48
RACK_GAP = 8
RACK_COLS = 4  # racks a line in the SVG
PRINT_COLS = 3  # on a print page: a narrower drawing, larger on the paper
MIN_PRINT_SCALE = 0.5  # 10 px text at 5 pt or more; wider drawings tile across
FRAME_PAD = 8
LINE = 12.5  # a line of 10 px text
SM_LINE = 10.5  # a line of 8 px text
BAND_GAP = 22
LOOP_GAP = 16
CH10 = 6.02  # a 10 px monospaced character
CH8 = 4.82
CH13 = 7.83

LEVEL_CLASS = {"ok": "q0", TIGHT: "q1", SHORT: "q2", UNJUDGED: "q3"}
LEVEL_MARK = {TIGHT: "sw", SHORT: "se", UNJUDGED: "si"}
LEVEL_WORDS = {
    SHORT: "short: over its limit, or a flow or temperature a rule rejects",
    TIGHT: "tight: 90 % of its limit or more",
    UNJUDGED: "not judged: no capacity to judge against",
    "ok": "within its limit",
}
# The water's colours: facility water blue, chilled water teal (dashed), the CDUs'
# secondary to the racks purple; the levels' as the severities', and green for ok.
WATER = {
    "light": {"fws": "#2a7fd4", "chw": "#1f8f8b", "tcs": "#7b4fb0", "ok": "#2e7d32"},
    "dark": {"fws": "#4f9be8", "chw": "#4fd1cb", "tcs": "#b48ee8", "ok": "#66bb6a"},
}


def cooling_style(theme: str) -> str:
    """The diagram's own classes (a ``<style>`` in its definitions)."""
    water = WATER.get(theme, WATER["light"])
    severity = palette.SEVERITY_COLOURS.get(theme, palette.SEVERITY_COLOURS["light"])
    surfaces = palette.SURFACES.get(theme, palette.SURFACES["light"])
    levels = {
        "q0": water["ok"],
        "q1": severity["warning"],
        "q2": severity["error"],
        "q3": surfaces["muted"],
    }
    rules = [
        f".lf{{fill:none;stroke:{water['fws']};stroke-width:2}}",
        f".lc{{fill:none;stroke:{water['chw']};stroke-width:2;stroke-dasharray:6 3}}",
        f".ls{{fill:none;stroke:{water['tcs']};stroke-width:3}}",
        f".bx{{fill:{surfaces['frame_fill']};stroke:{surfaces['frame']};stroke-width:1}}",
        f".dr{{fill:{surfaces['door']}}}",
    ]
    for cls, colour in levels.items():
        rules.append(f".{cls}{{fill:none;stroke:{colour};stroke-width:2.2}}")
        rules.append(f"text.{cls},.{cls} text{{fill:{colour};stroke:none;font-weight:bold}}")
    return "<style>" + "".join(rules) + "</style>"


@dataclass(slots=True)
class _Placed:
    x: float
    y: float
    w: float
    h: float

    @property
    def mid(self) -> float:
        return self.y + self.h / 2


def cooling_diagram(
    analysis: Analysis,
    *,
    theme: str = "light",
    date: str | None = None,
    plan: CoolingPlan | None = None,
) -> str:
    width, height, parts = cooling_parts(analysis, date=date, plan=plan)
    return svg.document(
        width,
        height,
        parts,
        theme=theme,
        title=f"{analysis.layout.name}: liquid cooling",
        defs=cooling_style(theme),
    )


def cooling_parts(
    analysis: Analysis,
    *,
    date: str | None = None,
    plan: CoolingPlan | None = None,
    columns: int = RACK_COLS,
) -> tuple[float, float, list[str]]:
    """The diagram's size and elements, for a document or a print page; ``columns`` racks
    a line in each group's frame."""
    plan = plan if plan is not None else cooling_plan(analysis)
    left = [b for b in plan.loops if b.left]
    right = [b for b in plan.loops if not b.left]
    x_group = MARGIN + (LOOP_W + CHANNEL if left else 0)
    x_racks = x_group + GROUP_W + CHANNEL
    racks_w = _frame_width(columns)
    x_right = x_racks + racks_w + CHANNEL
    width = max(x_right + (LOOP_W if right else 0) + MARGIN - (0 if right else CHANNEL), 980)
    body: list[str] = []
    loops_at: dict[str, _Placed] = {}
    y: float = TOP
    for box in left:
        y = _loop(body, box, MARGIN, y, loops_at) + LOOP_GAP
    y_right: float = TOP
    for box in right:
        y_right = _loop(body, box, x_right, y_right, loops_at) + LOOP_GAP
    bottom = max(y, y_right)
    y = TOP
    lines: list[str] = []
    for band in plan.bands:
        group_at, frame_at = _band(body, band, x_group, x_racks, y, columns)
        _connect(lines, band, group_at, frame_at, loops_at)
        y = max(group_at.y + group_at.h, frame_at.y + frame_at.h) + BAND_GAP
    if not plan.bands:
        body.append(
            f'<text class="mu" x="{num(x_group)}" y="{num(TOP + 14)}">'
            "No CDU and no rack on a loop: nothing hangs on these loops yet.</text>\n"
        )
    height = max(bottom, y) + MARGIN
    per_kw = analysis.thresholds["coolant_flow_per_kw"]
    head = _title(analysis, plan, width, date) + _legend(plan, per_kw, MARGIN, 100)
    return width, height, [*head, *lines, *body]


# -- the boxes ---------------------------------------------------------------------------


def kw(watts: float | None) -> str:
    """Watts as kilowatts with one decimal and thousands marked: ``2,250.0 kW``."""
    return "?" if watts is None else f"{watts / 1000:,.1f} kW"


def _temperature(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} °C"


def _mark(level: str, x: float, y: float) -> str:
    symbol = LEVEL_MARK.get(level)
    return f'<use href="#{symbol}" x="{num(x)}" y="{num(y)}"/>' if symbol else ""


def _box(
    body: list[str],
    at: _Placed,
    level: str | None,
    lines: list[tuple[str, str]],
    tip: list[str],
    chars: int,
) -> None:
    """A box at ``at`` with its level's outline and mark, and its lines: (class, text)
    pairs, the first a heading."""
    outline = f' class="{LEVEL_CLASS[level]}"' if level is not None else ""
    out = [
        f"<g><title>{text(chr(10).join(tip))}</title>"
        f'<rect class="bx" x="{num(at.x)}" y="{num(at.y)}" width="{num(at.w)}" '
        f'height="{num(at.h)}"/>'
    ]
    if outline:
        out.append(
            f'<rect{outline} x="{num(at.x)}" y="{num(at.y)}" width="{num(at.w)}" '
            f'height="{num(at.h)}"/>'
        )
        out.append(_mark(level or "", at.x + at.w - 15, at.y + 5))
    y = at.y + 4
    for cls, line in lines:
        size = {"h3": 13, "sm": 8}.get(cls.split()[0] if cls else "", 10)
        y += size + 2.5
        room = int(chars * 10 / size) - (2 if cls.startswith("h3") else 0)
        klass = f' class="{cls}"' if cls else ""
        out.append(f'<text{klass} x="{num(at.x + 6)}" y="{num(y)}">{text(clip(line, room))}</text>')
    out.append("</g>\n")
    body.append("".join(out))


def _height(lines: list[tuple[str, str]]) -> float:
    return 10 + sum({"h3": 13, "sm": 8}.get(c.split()[0] if c else "", 10) + 2.5 for c, _ in lines)


def _loop(body: list[str], box: LoopBox, x: float, y: float, placed: dict[str, _Placed]) -> float:
    state, loop = box.state, box.state.loop
    capacity = float(loop.capacity) if loop.capacity is not None else None
    kind = "chilled water" if loop.loop_kind == "chilled" else "facility water"
    grade = f" · {loop.ashrae_class}" if loop.ashrae_class else ""
    lines: list[tuple[str, str]] = [("h3", loop.id)]
    if loop.label:
        lines.append(("sm mu", loop.label))
    lines.append(("", f"{kind}{grade} · {loop.loop_fluid}"))
    lines.append(
        (
            "",
            f"supply {_temperature(state.supply)} · return "
            f"{_temperature(state.return_temperature)}",
        )
    )
    of = f" of {kw(capacity)}" if capacity is not None else " (no capacity given)"
    lines.append(("", f"heat {kw(state.heat)}{of}"))
    cls = LEVEL_CLASS[box.level]
    if capacity is not None:
        lines.append((cls, f"margin {kw(capacity - state.heat)}"))
    flow = loop.flow
    lines.append(("", f"flow {fmt(float(flow), FLOW)}" if flow is not None else "flow not given"))
    if box.flow_short:
        lines.append((cls, f"returns ≥ the {_temperature(state.secondary_return)} it cools"))
    on = [
        f"{plural(len(state.cdus), 'CDU')} {kw(state.cdu_heat)}" if state.cdus else "",
        f"{plural(len(state.doors), 'rear door')} {kw(state.door_heat)}" if state.doors else "",
        f"{plural(len(state.inrows), 'in-row cooler')} {kw(state.inrow_heat)}"
        if state.inrows
        else "",
    ]
    lines.append(("sm", " · ".join(p for p in on if p) or "nothing on it"))
    at = _Placed(x, y, LOOP_W, _height(lines))
    tip = [f"loop {loop.id}: {kind}", *(line for _, line in lines[1:])]
    _box(body, at, box.level, lines, tip, int((LOOP_W - 12) / CH10))
    placed[loop.id] = at
    return at.y + at.h


def _rating_text(rating: Rating) -> str:
    if rating.capacity is None:
        if rating.approach is not None and rating.rated_approach is not None:
            return f"not rated at {rating.approach:.3g} K (rated at {rating.rated_approach:g} K)"
        return "no capacity given"
    if rating.approach is None:
        return kw(rating.capacity)
    bound = "≥ " if rating.basis == "at least" else ""
    return f"{bound}{kw(rating.capacity)} at {rating.approach:.3g} K approach"


def _group_lines(band: Band) -> list[tuple[str, str]]:
    group = band.group
    if group is None:
        return [
            ("h3", "No CDU"),
            ("sm", "racks whose rear doors or in-row"),
            ("sm", "coolers hang on a loop"),
        ]
    models = list(dict.fromkeys(c.device.model for c in group.load.cdus))
    lines: list[tuple[str, str]] = [
        ("h3", f"{len(group.load.cdus)} × {' + '.join(models)}"),
    ]
    if band.count > 1:
        lines.append(("th", f"{band.count} CDU groups alike, each:"))
    names = ", ".join(c.id for c in group.load.cdus)
    if band.count > 1:
        last = band.groups[-1]
        names = f"{names} … {', '.join(c.id for c in last.load.cdus)}"
    lines.append(("sm", names))
    ratings = [_rating_text(r) for r in group.ratings]
    if len(set(ratings)) == 1 and ratings:
        lines.append(("", f"{ratings[0]}{' each' if len(ratings) > 1 else ''}"))
    else:
        lines.extend(("sm", f"{c.id}: {r}") for c, r in zip(group.live, ratings, strict=True))
    capacity, spare = group.capacity, group.n_plus_one
    of = kw(capacity) if capacity is not None else "not judged"
    lines.append(("", f"cold plates {kw(group.heat)} of {of}"))
    if spare is not None:
        cls = LEVEL_CLASS[share_level(group.heat, spare)]
        lines.append((cls, f"one CDU lost {kw(spare)}: margin {kw(spare - group.heat)}"))
    pumps = fmt(group.pump_flow, FLOW) if group.pump_flow is not None else "not given"
    lines.append(("", f"flow {fmt(group.flow_needed, FLOW)} needed · pumps {pumps}"))
    delta = f" (+{group.delta_t:.1f} K)" if group.delta_t is not None else ""
    lines.append(
        (
            "",
            f"supply {_temperature(group.supply)} · return "
            f"{_temperature(group.return_temperature)}{delta}",
        )
    )
    lines.append(
        (
            "sm mu",
            f"secondary {group.fluid}"
            + (f" · from {', '.join(band.loops)}" if band.loops else " · on no loop"),
        )
    )
    lines.extend((LEVEL_CLASS[band.level], note) for note in band.notes)
    return lines


def _frame_width(columns: int) -> float:
    return columns * RACK_W + (columns - 1) * RACK_GAP + 2 * FRAME_PAD


def _band(
    body: list[str], band: Band, x_group: float, x_racks: float, y: float, columns: int
) -> tuple[_Placed, _Placed]:
    lines = _group_lines(band)
    group_at = _Placed(x_group, y, GROUP_W, _height(lines))
    group = band.group
    tip = [line for _, line in lines]
    if group is not None:
        tip.append("racks: " + ", ".join(r.rack.id for r in group.racks))
    level = band.level if group is not None else None
    _box(body, group_at, level, lines, tip, int((GROUP_W - 12) / CH10))
    rows = -(-len(band.racks) // columns)
    frame_w = _frame_width(columns)
    frame_h = max(rows * (RACK_H + RACK_GAP) - RACK_GAP, RACK_H) + 2 * FRAME_PAD
    frame_at = _Placed(x_racks, y, frame_w, frame_h)
    body.append(
        f'<rect class="grp" x="{num(x_racks)}" y="{num(y)}" width="{num(frame_w)}" '
        f'height="{num(frame_h)}"/>\n'
    )
    for i, rack_box in enumerate(band.racks):
        row, column = divmod(i, columns)
        at = _Placed(
            x_racks + FRAME_PAD + column * (RACK_W + RACK_GAP),
            y + FRAME_PAD + row * (RACK_H + RACK_GAP),
            RACK_W,
            RACK_H,
        )
        _rack(body, rack_box, at, group is not None)
    return group_at, frame_at


def _rack(body: list[str], box: RackBox, at: _Placed, on_cdu: bool) -> None:
    first = box.racks[0].rack.id
    name = f"{box.count} × {first} … {box.racks[-1].rack.id}" if box.count > 1 else first
    air = []
    if box.door_heat:
        air.append(f"door {kw(box.door_heat)}")
    if box.inrow:
        air.append(f"in-row {kw(box.inrow)}")
    if box.room:
        air.append(f"room {kw(box.room)}")
    if box.nowhere:
        air.append(f"nowhere {kw(box.nowhere)}")
    lines: list[tuple[str, str]] = [("th", name)]
    if on_cdu:
        lines.append(("sm", f"{kw(box.heat)} · {fmt(box.flow, FLOW)}"))
    lines.append(("sm", " · ".join(air) or "no air heat"))
    if box.why:
        lines.append((LEVEL_CLASS[SHORT] + " sm", "throttles: coolant too warm"))
    each = " each" if box.count > 1 else ""
    tip = [
        ", ".join(r.rack.id for r in box.racks[:40]) + (" …" if box.count > 40 else ""),
        f"cold plates {kw(box.heat)}, {fmt(box.flow, FLOW)}{each}",
        *air,
        *([box.why] if box.why else []),
    ]
    if box.door_loop:
        tip.append(f"rear door {box.door} on loop {box.door_loop}")
    level = box.level if box.level in (SHORT, TIGHT) else None
    _box(body, at, level, lines, tip, int((RACK_W - 14) / CH10))
    if box.door_heat:
        body.append(
            f'<rect class="dr" x="{num(at.x + at.w - 4)}" y="{num(at.y + 2)}" width="3" '
            f'height="{num(at.h - 4)}"/>\n'
        )


# -- the lines ---------------------------------------------------------------------------


def _connect(
    lines: list[str],
    band: Band,
    group_at: _Placed,
    frame_at: _Placed,
    loops_at: dict[str, _Placed],
) -> None:
    """The facility loops into the group box, the group into its racks' frame, and the
    loops of the racks' doors and in-row coolers into the frame's right side."""
    if band.group is not None:
        y = min(group_at.mid, frame_at.mid)
        lines.append(
            f'<path class="ls" d="M{num(group_at.x + group_at.w)} {num(y)}H{num(frame_at.x)}"/>'
        )
    for j, loop_id in enumerate(band.loops):
        at = loops_at.get(loop_id)
        if at is None:
            continue
        lane = at.x + at.w + 14 + (list(loops_at).index(loop_id) % 5) * 7
        y_in = group_at.y + 18 + (j % 6) * 8
        lines.append(
            f'<path class="lf" d="M{num(at.x + at.w)} {num(at.mid)}H{num(lane)}V{num(y_in)}'
            f'H{num(group_at.x)}"/>'
        )
    right = frame_at.x + frame_at.w
    for j, loop_id in enumerate(band.side_loops):
        at = loops_at.get(loop_id)
        if at is None or at.x < frame_at.x:
            continue  # a loop left of the groups: its doors are in its box's words
        lane = at.x - 14 - (list(loops_at).index(loop_id) % 5) * 7
        y_in = frame_at.y + 14 + (j % 6) * 8
        lines.append(
            f'<path class="lc" d="M{num(at.x)} {num(at.mid)}H{num(lane)}V{num(y_in)}'
            f'H{num(right)}"/>'
        )
    lines.append("\n")


# -- the title block and the legend ------------------------------------------------------


def _title(analysis: Analysis, plan: CoolingPlan, width: float, date: str | None) -> list[str]:
    layout = analysis.layout
    plant = plan.plant
    groups = sum(b.count for b in plan.bands if b.group is not None)
    plates = sum(g.heat for g in plant.groups)
    doors = sum(r.door_heat for r in analysis.racks)
    totals = [
        plural(len(plant.loops), "water loop"),
        plural(groups, "CDU group"),
        plural(plan.racks, "rack") if not plan.aggregated_racks else f"{plan.racks:,} racks",
        f"cold plates {kw(plates)}",
    ]
    if doors:
        totals.append(f"rear doors {kw(doors)}")
    second = ["Liquid cooling: facility water → CDUs → racks; chilled water → rear doors"]
    if not plant.loops:
        second = ["Liquid cooling: CDUs → racks (no water loops declared: [[cooling.loops]])"]
    if layout.revision:
        second.append(f"revision {layout.revision}")
    if date:
        second.append(date)
    m = MARGIN
    return [
        f'<rect class="tb" x="{m - 10}" y="{m - 10}" width="{num(width - 2 * m + 20)}" '
        'height="70"/>',
        f'<text class="h1" x="{m}" y="{m + 16}">'
        f"{text(clip(layout.name, int((width - 2 * m) / 13.25)))}</text>",
        f'<text x="{m}" y="{m + 34}">{text(" · ".join(second))}</text>',
        f'<text x="{m}" y="{m + 50}">{text(" · ".join(totals))}</text>\n',
    ]


def _legend(plan: CoolingPlan, per_kw: float, x: float, y: float) -> list[str]:
    out = []
    cx = x
    for cls, words in (
        ("lf", "facility water"),
        ("lc", "chilled water"),
        ("ls", "CDU secondary to the racks"),
    ):
        out.append(
            f'<path class="{cls}" d="M{num(cx)} {y + 5}h30"/>'
            f'<text class="sm mu" x="{num(cx + 36)}" y="{y + 8}">{words}</text>'
        )
        cx += 36 + len(words) * CH8 + 24
    out.append(
        f'<rect class="dr" x="{num(cx)}" y="{y}" width="3" height="11"/>'
        f'<text class="sm mu" x="{num(cx + 8)}" y="{y + 8}">rear door</text>'
    )
    y2 = y + 20
    cx = x
    for level in ("ok", TIGHT, SHORT, UNJUDGED):
        words = LEVEL_WORDS[level]
        out.append(
            f'<rect class="{LEVEL_CLASS[level]}" x="{num(cx)}" y="{y2}" width="22" height="12"/>'
            f"{_mark(level, cx + 28, y2 + 1)}"
            f'<text class="sm mu" x="{num(cx + 42)}" y="{y2 + 9}">{text(words)}</text>'
        )
        cx += 42 + len(words) * CH8 + 20
    y3 = y2 + 20
    said = [
        "margins: a loop's capacity less its heat; a CDU group's with its largest CDU lost",
        f"flow needed: {per_kw:g} L/min per kW of cold plates unless the node gives its own",
    ]
    if plan.aggregated_racks or plan.aggregated_bands:
        said.append(f"above {RACKS_DRAWN} racks: racks (and groups) alike drawn once, × count")
    out.append(f'<text class="sm mu" x="{num(x)}" y="{y3 + 8}">{text(" · ".join(said))}</text>\n')
    return out


def cooling_pages(pack: PackInput) -> Iterator[Page]:
    """The print pack's ``cooling`` section: the diagram on landscape pages, tiled down
    (and across, below :data:`MIN_PRINT_SCALE`) where it does not fit one; none for a
    layout without liquid cooling."""
    plan = cooling_plan(pack.analysis)
    if plan.empty:
        return
    width, height, parts = cooling_parts(
        pack.analysis, date=pack.date, plan=plan, columns=PRINT_COLS
    )
    cw, ch = pack.paper.content(True)
    scale = min(1.0, cw / width, ch / height)
    if scale < MIN_PRINT_SCALE:  # as wide as the page, tiled down (and across below it)
        scale = max(min(1.0, cw / width), MIN_PRINT_SCALE)
    yield from drawing_pages(
        "Liquid cooling", [cooling_style(pack.theme), *parts], height, scale, cw, ch, width=width
    )
