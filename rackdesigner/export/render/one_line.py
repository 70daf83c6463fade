"""The power chain's single-line diagram (``export --one-line``, the print pack's
``one-line`` page): sources at the top, the racks at the bottom, every element of the
chain (docs/power-chain.md) a box with its load, rating and margin between them.

Each element's box says its load against its continuous rating as a bar coloured by
margin (as the floor plan's feed bars: up to 80 % of the rating, above 80 %, over it; grey
without a rating), with a tick where its worst single failure takes the load (red where
that is over the rating), and that failure named; an element with findings is outlined by
its worst severity. The racks are the bottom row: one box per rack in a small hall, else
one per row and set of elements its racks hang on (racks in row order), so that a hall of
thousands of racks is a few dozen boxes wide; each box's fill is the floor plan's density
colour of its mean rack load.

Lines run from each element down to what it feeds: from its bottom to a lane of its own in
the gap under its layer, along it, and down into the element it feeds (an ATS's alternate
source dashed). Elements sit in layers by their longest path from a source; within a layer
each is placed over the mean of what it feeds, so that a 2N pair (a block's A and B UPSs,
their busways) stands side by side over the racks both feed; the racks then move under the
mean of what feeds them.

Deterministic: the order is the hall's and the file's, every number formatted one way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.power_chain import peak_factor_text
from rackdesigner.analysis.power_failures import Worst, worst_failures
from rackdesigner.export.render import palette, svg
from rackdesigner.export.render.findings import Marks, by_subject
from rackdesigner.export.render.floorplan import density_class
from rackdesigner.export.render.svg import SEVERITY_CLASS, clip, num, text
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import first_of, plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.power_chain import ElementFacts, PowerChain

BOX_W = 170.0
BOX_H = 78.0
LEAF_H = 50.0
GAP_X = 22.0
PITCH = BOX_W + GAP_X
GAP_Y = 70.0  # between layers: the lanes of the lines
LANES = 8
MARGIN = 30.0
TOP = 150.0  # title block and legend
BAR_W = BOX_W - 14
STRIPE = 5.0  # the margin band's stripe down a box's left edge
SM_CHARS = int((BOX_W - 16) / 4.82)  # 8 px monospaced characters in a box
TH_CHARS = int((BOX_W - 16) / 6.02)
# Up to this many racks on the chain, one box per rack; above, one per row and set of
# elements (a hall's racks would be a drawing tens of thousands of pixels wide).
RACK_DETAIL_MAX = 16
HIGH_USE = 0.8  # above this share of its rating an element is amber (floor plan's bars)
BANDS = ("ok", "high", "over", "unrated")


@dataclass(slots=True)
class Leaf:
    """A box of the bottom row: one rack, or the racks of a row on the same elements."""

    label: str
    racks: list[int]  # rack indexes, hall order
    sources: dict[int, set[str]] = field(default_factory=dict)  # element -> side labels
    load: float = 0.0
    peak: float = 0.0
    gpus: int = 0


@dataclass(slots=True)
class Box:
    """A box placed: an element (``element`` >= 0) or a leaf."""

    layer: int
    x: float = 0.0  # centre
    element: int = -1
    leaf: Leaf | None = None
    below: list[Box] = field(default_factory=list)  # what it feeds
    above: list[Box] = field(default_factory=list)  # what feeds it, its normal source first


@dataclass(slots=True)
class Plan:
    boxes: list[Box]
    layers: int  # element layers; the leaves are the layer after them
    width: float
    height: float

    def top(self, layer: int) -> float:
        return TOP + MARGIN + layer * (BOX_H + GAP_Y)


def band(use: float | None) -> str:
    """The margin band of an element used ``use`` of its rating (None: no rating)."""
    if use is None:
        return "unrated"
    if use > 1.0 + 1e-9:
        return "over"
    return "high" if use > HIGH_USE else "ok"


def leaves(analysis: Analysis, chain: PowerChain) -> list[Leaf]:
    """The bottom row: each rack on the chain, or (above :data:`RACK_DETAIL_MAX`) each row's
    racks that hang on the same elements, in row and slot order."""
    on_chain = {r.rack: r for r in chain.racks}
    ordered = sorted(
        (analysis.racks[i] for i in on_chain),
        key=lambda f: (f.place.row_index, f.rack.slot is None, f.rack.slot or 0, f.index),
    )
    detail = len(ordered) <= RACK_DETAIL_MAX
    out: dict[object, Leaf] = {}
    for facts in ordered:
        rack = on_chain[facts.index]
        sources: dict[int, set[str]] = {}
        for feed, element in enumerate(rack.sources):
            if element >= 0:
                sources.setdefault(element, set()).add(facts.rack.feeds[feed].side or "")
        key: object = facts.index if detail else (facts.place.row_index, tuple(sorted(sources)))
        leaf = out.get(key)
        if leaf is None:
            leaf = out[key] = Leaf(facts.rack.id, [])
        leaf.racks.append(facts.index)
        for element, sides in sources.items():
            leaf.sources.setdefault(element, set()).update(sides)
        leaf.load += rack.load
        leaf.peak += rack.peak
        leaf.gpus += rack.gpus
    if not detail:
        for leaf in out.values():
            first, last = (analysis.racks[i].rack for i in (leaf.racks[0], leaf.racks[-1]))
            row = f"row {first.row}" if first.row is not None else "no row"
            span = first.id if first is last else f"{first.id}–{last.id}"
            leaf.label = f"{row} · {span}"
    return list(out.values())


def plan(analysis: Analysis, chain: PowerChain) -> Plan:
    """Where every box goes (see the module docstring)."""
    elements = chain.elements
    layer = [0] * len(elements)
    for index in chain.topo:
        parents = elements[index].parents
        layer[index] = max((layer[p] + 1 for p in parents), default=0)
    depth = max(layer, default=-1) + 1
    boxes = [Box(layer[e.index], element=e.index) for e in elements]
    for facts in elements:
        for parent in facts.parents:
            boxes[parent].below.append(boxes[facts.index])
            boxes[facts.index].above.append(boxes[parent])
    bottom = [Box(depth, leaf=leaf) for leaf in leaves(analysis, chain)]
    for number, box in enumerate(bottom):
        box.x = MARGIN + BOX_W / 2 + number * PITCH
        assert box.leaf is not None
        for element in sorted(box.leaf.sources, key=lambda e: elements[e].order):
            boxes[element].below.append(box)
            box.above.append(boxes[element])
    for level in reversed(range(depth)):
        _place(
            [b for b in boxes if b.layer == level],
            lambda b: (sum(c.x for c in b.below) / len(b.below)) if b.below else 0.0,
        )
    # The racks under what feeds them (their first places were only for the order above).
    _place(bottom, lambda b: sum(a.x for a in b.above) / len(b.above))
    placed = [*boxes, *bottom]
    if placed:  # everything right of the margin
        shift = MARGIN + BOX_W / 2 - min(b.x for b in placed)
        for box in placed:
            box.x += shift
    right = max((b.x + BOX_W / 2 for b in placed), default=0.0)
    width = max(right + MARGIN, 980.0)
    height = TOP + MARGIN + depth * (BOX_H + GAP_Y) + LEAF_H + MARGIN
    return Plan([*boxes, *bottom], depth, width, height)


def _place(row: list[Box], wanted_x: Callable[[Box], float]) -> None:
    """One layer's boxes at their wanted x (the mean of what they feed), in that order,
    ``PITCH`` apart at least; the pushes are shared so the layer stays over its children."""
    want = {id(b): wanted_x(b) for b in row}
    row.sort(key=lambda b: (want[id(b)], b.element))
    previous = None
    for box in row:
        box.x = want[id(box)] if previous is None else max(want[id(box)], previous + PITCH)
        previous = box.x
    if row:
        pushed = sum(box.x - want[id(box)] for box in row) / len(row)
        for box in row:
            box.x -= pushed


def one_line(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    theme: str = "light",
    date: str | None = None,
) -> str:
    """The single-line diagram as an SVG document."""
    width, height, parts = one_line_parts(analysis, diagnostics, date=date)
    return svg.document(
        width,
        height,
        parts,
        theme=theme,
        title=f"{analysis.layout.name}: single-line diagram",
        defs=style(theme),
    )


def style(theme: str) -> str:
    """The diagram's own classes (the margin bands, the alternate source's dashes), as a
    ``<style>`` for the definitions: the shared style sheet, and every other drawing,
    stay as they are."""
    surfaces = palette.SURFACES.get(theme, palette.SURFACES["light"])
    severity = palette.SEVERITY_COLOURS.get(theme, palette.SEVERITY_COLOURS["light"])
    ok = palette.swatch("gpu-node", theme).fill
    colours = {
        "ok": ok,
        "high": severity["warning"],
        "over": severity["error"],
        "unrated": surfaces["blocked_line"],
    }
    rules = "".join(f".b-{name}{{fill:{colour}}}" for name, colour in colours.items())
    rules += f".alt{{fill:none;stroke:{surfaces['fg']};stroke-width:1;stroke-dasharray:4 3}}"
    rules += f".wt{{fill:none;stroke:{surfaces['fg']};stroke-width:2}}"
    rules += f".wo{{stroke:{severity['error']}}}"
    return f"<style>{rules}</style>"


def one_line_parts(
    analysis: Analysis, diagnostics: Iterable[Diagnostic] = (), *, date: str | None = None
) -> tuple[float, float, list[str]]:
    """The diagram's size and elements, for a document or a print page."""
    chain = analysis.power_chain
    laid = plan(analysis, chain)
    marks = by_subject(diagnostics, "power")
    worst = worst_failures(chain) if chain else {}
    body = _lines(laid)
    for box in laid.boxes:
        if box.leaf is not None:
            body.append(_leaf(analysis, laid, box, box.leaf))
        else:
            facts = chain.elements[box.element]
            body.append(_element(laid, box, facts, worst.get(box.element), marks.get(facts.id)))
    head = _title_block(analysis, chain, laid, date)
    head.extend(_legend(MARGIN, 112))
    return laid.width, laid.height, [*head, *body]


def _lines(laid: Plan) -> list[str]:
    """Every line from an element to what it feeds: down to the element's lane under its
    layer, along it, down into the box (several sources enter a box side by side)."""
    out: list[str] = []
    for level in range(laid.layers):
        row = sorted((b for b in laid.boxes if b.layer == level and b.below), key=lambda b: b.x)
        for lane, box in enumerate(row):
            top = laid.top(level)
            y = top + BOX_H + 10 + (lane % LANES) * (GAP_Y - 20) / (LANES - 1)
            for child in box.below:
                entry = _entry(child, box)
                child_top = laid.top(child.layer)
                cls = "ln" if child.leaf is not None or child.above[0] is box else "alt"
                out.append(
                    f'<path class="{cls}" d="M{num(box.x)} {num(top + BOX_H)}V{num(y)}'
                    f'H{num(entry)}V{num(child_top)}"/>'
                )
                if child.leaf is not None and box.element >= 0:
                    sides = ",".join(sorted(s for s in child.leaf.sources[box.element] if s))
                    if sides:
                        out.append(
                            f'<text class="xs" x="{num(entry + 2)}" y="{num(child_top - 3)}">'
                            f"{text(clip(sides, 6))}</text>"
                        )
    out.append("\n")
    return ["".join(out)]


def _entry(child: Box, parent: Box) -> float:
    """Where ``parent``'s line enters ``child``: its sources side by side, left to right."""
    sources = sorted(child.above, key=lambda b: (b.x, b.element))
    k = sources.index(parent)
    step = min(24.0, (BOX_W - 20) / max(len(sources), 1))
    return child.x + (k - (len(sources) - 1) / 2) * step


def _element(
    laid: Plan, box: Box, facts: ElementFacts, worst: Worst | None, marks: Marks | None
) -> str:
    left, top = box.x - BOX_W / 2, laid.top(box.layer)
    shade = band(facts.utilisation)
    tip = _element_tip(facts, worst, marks)
    lines = [
        f'<g><title>{text(chr(10).join(tip))}</title><rect class="tb" x="{num(left)}" '
        f'y="{num(top)}" width="{num(BOX_W)}" height="{num(BOX_H)}"/>'
        f'<rect class="b-{shade}" x="{num(left)}" y="{num(top)}" width="{num(STRIPE)}" '
        f'height="{num(BOX_H)}"/>',
        f'<text class="th" x="{num(left + 10)}" y="{num(top + 13)}">'
        f"{text(clip(facts.id, TH_CHARS))}</text>",
        f'<text class="sm mu" x="{num(left + 10)}" y="{num(top + 24)}">'
        f"{text(clip(_kind_line(facts), SM_CHARS))}</text>",
        _bar(left + 10, top + 29, facts, worst),
    ]
    for n, said in enumerate(_figures(facts, worst)):
        lines.append(
            f'<text class="sm" x="{num(left + 10)}" y="{num(top + 46 + n * 10)}">'
            f"{text(clip(said, SM_CHARS))}</text>"
        )
    if marks is not None:
        sev = SEVERITY_CLASS[marks.severity]
        lines.append(
            f'<rect class="f{sev}" x="{num(left - 2)}" y="{num(top - 2)}" '
            f'width="{num(BOX_W + 4)}" height="{num(BOX_H + 4)}"/>'
            f'<use href="#s{sev}" x="{num(left + BOX_W - 14)}" y="{num(top + 4)}"/>'
        )
    lines.append("</g>\n")
    return "".join(lines)


def _bar(x: float, y: float, facts: ElementFacts, worst: Worst | None) -> str:
    """The load of the rating as a bar of the element's band, full at 100 %, and a tick at
    the load its worst single failure leaves it (red where that is over its rating)."""
    width = BAR_W - 6
    out = f'<rect class="sl" x="{num(x)}" y="{num(y)}" width="{num(width)}" height="6"/>'
    use, rating = facts.utilisation, facts.rating
    if use is not None:
        out += (
            f'<rect class="b-{band(use)}" x="{num(x)}" y="{num(y)}" '
            f'width="{num(width * min(use, 1.0))}" height="6"/>'
        )
    if rating and worst is not None:
        after = worst.load / rating
        cls = "wt wo" if band(after) == "over" else "wt"
        tick = x + width * min(after, 1.0)
        out += f'<path class="{cls}" d="M{num(tick)} {num(y - 2)}V{num(y + 8)}"/>'
    return out


def _kind_line(facts: ElementFacts) -> str:
    """``ups · 415 V · peak 434 kW``: its kind, output voltage, transient peak."""
    parts = [facts.kind]
    if facts.voltage:
        dc = " DC" if facts.kind == "power-rack" else ""
        parts.append(f"{facts.voltage:g} V{dc}")
    if facts.peak > facts.load * (1 + 1e-9):
        parts.append(f"peak {_p(facts.peak)}")
    return " · ".join(parts)


def _p(watts: float) -> str:
    return fmt(watts, POWER)


def _margin(worst: Worst) -> str:
    return "unknown" if worst.margin is None else _p(worst.margin)


def _figures(facts: ElementFacts, worst: Worst | None) -> list[str]:
    """Its load of its rating, its margin, its worst single failure (three lines)."""
    rating = facts.rating
    if rating is None:
        return [f"{_p(facts.load)}, no rating", "margin unknown (PWR029)", ""]
    use = facts.load / rating if rating else 0.0
    out = [f"{_p(facts.load)} of {_p(rating)} ({use:.0%})", f"margin {_p(rating - facts.load)}"]
    if worst is None:
        out.append("no single failure loads it more")
    else:
        out.append(f"{worst.failure.id} lost: margin {_margin(worst)}")
    return out


def _element_tip(facts: ElementFacts, worst: Worst | None, marks: Marks | None) -> list[str]:
    binding = facts.binding
    tip = [
        f"{facts.name}" + (f" ({facts.element.label})" if facts.element.label else ""),
        "fed by " + (", ".join(facts.element.fed_by or ()) or "nothing (a source)"),
        f"load {_p(facts.load)} · transient peak {_p(facts.peak)}",
        f"rating {binding.text} = {_p(binding.watts)} continuous"
        if binding is not None
        else "no rating",
    ]
    if worst is not None:
        tip.append(
            f"worst single failure: {worst.failure.name}: {_p(worst.load)}, margin {_margin(worst)}"
        )
    if marks is not None:
        tip.extend(marks.lines)
    return tip


def _leaf(analysis: Analysis, laid: Plan, box: Box, leaf: Leaf) -> str:
    left, top = box.x - BOX_W / 2, laid.top(box.layer)
    count = len(leaf.racks)
    cls = density_class(leaf.load / count)
    what = (
        plural(count, "rack") if count > 1 else f"{len(analysis.racks[leaf.racks[0]].feeds)} feeds"
    )
    second = f"{what} · {plural(leaf.gpus, 'GPU')}"
    third = f"{_p(leaf.load)}" + (f" · peak {_p(leaf.peak)}" if leaf.peak > leaf.load else "")
    ids = [analysis.racks[i].rack.id for i in leaf.racks]
    tip = [leaf.label, second, f"load {_p(leaf.load)} · transient peak {_p(leaf.peak)}"]
    tip.append("racks " + first_of(ids, 12))
    return (
        f'<g class="{cls}"><title>{text(chr(10).join(tip))}</title>'
        f'<rect class="b" x="{num(left)}" y="{num(top)}" width="{num(BOX_W)}" '
        f'height="{num(LEAF_H)}"/>'
        f'<text class="th" x="{num(left + 6)}" y="{num(top + 14)}">'
        f"{text(clip(leaf.label, TH_CHARS + 1))}</text>"
        f'<text class="sm" x="{num(left + 6)}" y="{num(top + 28)}">{text(clip(second, SM_CHARS))}'
        f'</text><text class="sm" x="{num(left + 6)}" y="{num(top + 40)}">'
        f"{text(clip(third, SM_CHARS))}</text></g>\n"
    )


def _title_block(analysis: Analysis, chain: PowerChain, laid: Plan, date: str | None) -> list[str]:
    layout = analysis.layout
    width = laid.width
    sources = sum(e.load for e in chain.elements if e.is_source)
    on = len(chain.racks)
    off = len(analysis.racks) - on
    gpus = sum(r.gpus for r in chain.racks)
    totals = [
        plural(len(chain.elements), "element"),
        f"{plural(on, 'rack')} on the chain ({plural(gpus, 'GPU')})",
        f"the sources carry {_p(sources)}",
    ]
    if off:
        totals.append(f"{plural(off, 'rack')} on no element (not drawn)")
    second = ["Single-line diagram: the power chain, sources to racks"]
    if layout.revision:
        second.append(f"revision {layout.revision}")
    if date:
        second.append(date)
    factor = f"transient peak factor {peak_factor_text(layout)}"
    chars = int((width - 2 * MARGIN) / 6.02)
    return [
        f'<rect class="tb" x="{num(MARGIN - 10)}" y="{num(MARGIN - 10)}" '
        f'width="{num(width - 2 * MARGIN + 20)}" height="84"/>',
        f'<text class="h1" x="{num(MARGIN)}" y="{num(MARGIN + 16)}">'
        f"{text(clip(layout.name, int((width - 2 * MARGIN) / 13.25)))}</text>",
        f'<text x="{num(MARGIN)}" y="{num(MARGIN + 34)}">{text(clip(" · ".join(second), chars))}'
        "</text>",
        f'<text x="{num(MARGIN)}" y="{num(MARGIN + 50)}">{text(clip(" · ".join(totals), chars))}'
        "</text>",
        f'<text x="{num(MARGIN)}" y="{num(MARGIN + 66)}">{text(clip(factor, chars))}</text>\n',
    ]


def _legend(x: float, y: float) -> list[str]:
    """The bands, the worst-failure tick, the line styles and the finding outlines."""
    out = [f'<text class="sm mu" x="{num(x)}" y="{num(y + 9)}">load of its rating:</text>']
    cx = x + 100
    labels = {
        "ok": "up to 80 %",
        "high": "80-100 %",
        "over": "over its rating",
        "unrated": "no rating",
    }
    for name in BANDS:
        out.append(
            f'<rect class="b-{name}" x="{num(cx)}" y="{num(y + 2)}" width="18" height="8"/>'
            f'<text class="sm" x="{num(cx + 22)}" y="{num(y + 9)}">{labels[name]}</text>'
        )
        cx += 34 + len(labels[name]) * 4.82
    out.append(
        f'<path class="wt" d="M{num(cx + 4)} {num(y)}V{num(y + 12)}"/>'
        f'<text class="sm mu" x="{num(cx + 12)}" y="{num(y + 9)}">'
        "its load after its worst single failure</text>"
    )
    y2 = y + 18
    out.append(
        f'<path class="ln" d="M{num(x)} {num(y2 + 5)}h30"/>'
        f'<text class="sm mu" x="{num(x + 36)}" y="{num(y2 + 8)}">normal source</text>'
        f'<path class="alt" d="M{num(x + 120)} {num(y2 + 5)}h30"/>'
        f'<text class="sm mu" x="{num(x + 156)}" y="{num(y2 + 8)}">'
        "alternate source (transfer switch)</text>"
    )
    cx = x + 340
    for severity in ("error", "warning", "info"):
        sev = SEVERITY_CLASS[severity]
        out.append(
            f'<rect class="f{sev}" x="{num(cx)}" y="{num(y2)}" width="18" height="10"/>'
            f'<use href="#s{sev}" x="{num(cx + 22)}" y="{num(y2)}"/>'
            f'<text class="sm mu" x="{num(cx + 36)}" y="{num(y2 + 8)}">{severity} '
            f"{palette.SEVERITY_SYMBOLS[severity]}</text>"
        )
        cx += 110
    out.append(
        f'<text class="sm mu" x="{num(cx)}" y="{num(y2 + 8)}">racks: power density per rack, '
        "as the floor plan</text>\n"
    )
    return out
