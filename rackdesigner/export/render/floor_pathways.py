"""(v1.4) The floor plan's cable pathways, each drawn in the colour of its fill.

A pathway lies on the hall's grid (analysis/pathways.py gives its two ends in metres); on
the plan an overhead one runs in the lane just above its row's racks (or across the rows at
its slot), an under-floor one dashed through the racks' middle, a riser is a ring. Its
colour is the band of its fill at its busiest point (palette.FILL_STEPS: a blue ramp up to
the 40 % design fill, then the severity colours), its label its id and fill, with the
severity's symbol past the layout's ``tray_fill_max`` or ``tray_fill_limit`` (CAB006), so
no band is told by colour alone. A table under the plan lists the fullest ones: on a hall
of thousands of racks, printed to a page's width, the labels are too small to read, the
colours and the table are not. A vertical manager (inside one rack) is not drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

from rackdesigner.export.render import palette
from rackdesigner.export.render.svg import SEVERITY_CLASS, clip, num, text
from rackdesigner.model.hall_grid import UNDER
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.plant import PathwayFill
    from rackdesigner.model.layout import Pathway

FULLEST = 10  # pathways listed under the plan
STROKE = 6.0  # px


@dataclass(frozen=True, slots=True)
class Drawn:
    """A pathway as the plan draws it: its ends in px, its fill and verdict."""

    pathway: Pathway
    start: tuple[float, float]
    end: tuple[float, float]
    fill: PathwayFill | None  # None: no size declared
    severity: str | None  # "error" past tray_fill_limit, "warning" past its design fill

    @property
    def css(self) -> str:
        if self.fill is None:
            return "pfu"
        return f"pf{palette.fill_step(self.fill.ratio)}"

    @property
    def percent(self) -> str:
        return "size?" if self.fill is None else f"{self.fill.ratio:.0%}"


@cache
def fill_style(theme: str) -> str:
    """The ``<style>`` of the fill bands (only drawings with pathways carry it)."""
    colours = palette.FILL_COLOURS.get(theme, palette.FILL_COLOURS["light"])
    rules = "".join(
        f".pf{i}{{fill:none;stroke:{colour};stroke-width:{num(STROKE)}}}.pk{i}{{fill:{colour}}}"
        for i, colour in enumerate(colours)
    )
    grey = palette.FILL_UNSIZED.get(theme, palette.FILL_UNSIZED["light"])
    rules += f".pfu{{fill:none;stroke:{grey};stroke-width:3;stroke-dasharray:4 3}}"
    rules += ".pu{stroke-dasharray:8 3}"
    return f"<style>{rules}</style>"


def drawn(
    analysis: Analysis, at: Callable[[float, float, str], tuple[float, float]]
) -> list[Drawn]:
    """The pathways to draw (not the vertical managers), their ends placed by ``at``
    (metres along and across the rows, and the plane, to px)."""
    graph = analysis.pathway_graph
    if graph is None:
        return []
    warn = float(analysis.thresholds["tray_fill_max"])
    error = float(analysis.thresholds["tray_fill_limit"])
    fills = {f.pathway.id: f for f in analysis.plant.fills(warn)}
    out = []
    for pathway in graph.pathways:
        ends = graph.coordinates(pathway.id)
        if ends is None:
            continue
        plane = UNDER if pathway.kind_name == "under-floor" else ""
        fill = fills.get(pathway.id)
        severity = None
        if fill is not None:
            if fill.ratio > error + 1e-9:
                severity = "error"
            elif fill.ratio > fill.limit + 1e-9:
                severity = "warning"
        out.append(Drawn(pathway, at(*ends[0], plane), at(*ends[1], plane), fill, severity))
    return out


def pathway_parts(found: list[Drawn]) -> list[str]:
    """The pathways' lines, rings and labels (labels after every line: none is hidden)."""
    lines: list[str] = []
    labels: list[str] = []
    for item in found:
        (x0, y0), (x1, y1) = item.start, item.end
        pathway = item.pathway
        tip = [
            f"{pathway.id}" + (f" ({pathway.label})" if pathway.label else ""),
            pathway.kind_name.replace("-", " "),
        ]
        if item.fill is None:
            tip.append("no width x depth declared: its fill is not judged")
        else:
            fill = item.fill
            tip.append(
                f"fill {fill.ratio:.1%} at {fill.at:.1f} m along it: "
                f"{plural(fill.cables, 'cable')}, "
                f"{fill.area * 1e6:,.0f} of {fill.capacity * 1e6:,.0f} mm² "
                f"(design fill {fill.limit:.0%})"
            )
        css = item.css + (" pu" if pathway.kind_name == "under-floor" else "")
        title = f"<title>{text(chr(10).join(tip))}</title>"
        if pathway.kind_name == "riser":
            lines.append(
                f'<g>{title}<circle class="{css}" cx="{num(x0)}" cy="{num(y0)}" r="6"/></g>\n'
            )
        else:
            lines.append(
                f'<g>{title}<path class="{css}" d="M{num(x0)} {num(y0)}L{num(x1)} {num(y1)}"/>'
                "</g>\n"
            )
        mark = ""
        if item.severity is not None:
            sev = SEVERITY_CLASS[item.severity]
            mark = f'<use href="#s{sev}" x="{num(x0 + 2)}" y="{num(y0 - 15)}"/>'
        across = abs(x1 - x0) < 1e-6 and abs(y1 - y0) > 1e-6
        # a cross-aisle run's label in the aisle above its lower end, clear of the racks'
        # tops (where its upper end meets a tray) and of the lower tray's own label
        tx, ty = (x0 + 6, max(y0, y1) - 18) if across else (x0 + (14 if mark else 2), y0 - 6)
        labels.append(
            f'{mark}<text class="xs" x="{num(tx)}" y="{num(ty)}">'
            f"{text(clip(pathway.id, 18))} {item.percent}</text>\n"
        )
    return [*lines, *labels]


def fill_legend(x: float, y: float) -> list[str]:
    """The fill bands, with what they mean."""
    out = [
        f'<text class="sm mu" x="{num(x)}" y="{num(y + 9)}">'
        "pathway fill at its busiest point (cables' cross-section of width × depth):</text>"
    ]
    cx = x + 78 * 4.82
    steps = palette.FILL_STEPS
    names = [f"< {steps[0]:.0%}"]
    names.extend(f"{a:.0%}–{b:.0%}" for a, b in pairwise(steps))
    names.append(f"≥ {steps[-1]:.0%}")
    names[-2] += " ▲"
    names[-1] += " ✖"
    for index, name in enumerate(names):
        out.append(
            f'<rect class="pk{index}" x="{num(cx)}" y="{num(y + 2)}" width="18" height="8"/>'
            f'<text class="sm" x="{num(cx + 22)}" y="{num(y + 9)}">{text(name)}</text>'
        )
        cx += 30 + len(name) * 4.82 + 8
    out.append(
        f'<path class="pfu" d="M{num(cx)} {num(y + 6)}h18"/>'
        f'<text class="sm mu" x="{num(cx + 22)}" y="{num(y + 9)}">no size</text>\n'
    )
    return out


def fullest_table(found: list[Drawn], x: float, y: float) -> list[str]:
    """The fullest pathways, under the plan: what a hall's plan at a page's width shows
    only as colour."""
    judged = sorted(
        (item for item in found if item.fill is not None),
        key=lambda item: (-(item.fill.ratio if item.fill else 0.0), item.pathway.id),
    )[:FULLEST]
    if not judged:
        return []
    out = [f'<text class="h3" x="{num(x)}" y="{num(y)}">Fullest pathways</text>\n']
    for rank, item in enumerate(judged):
        fill = item.fill
        assert fill is not None
        symbol = f" {palette.SEVERITY_SYMBOLS[item.severity]}" if item.severity else ""
        # where along it the fill peaks; an empty pathway has no such point
        at = f", fullest {fill.at:.1f} m along it" if fill.cables else ""
        line = (
            f"{fill.ratio:>4.0%}{symbol}  {item.pathway.id}: {plural(fill.cables, 'cable')}, "
            f"{fill.area * 1e6:,.0f} of {fill.capacity * 1e6:,.0f} mm²{at}"
        )
        out.append(
            f'<rect class="pk{palette.fill_step(fill.ratio)}" x="{num(x)}" '
            f'y="{num(y + 8 + rank * 12)}" width="10" height="8"/>'
            f'<text class="sm" x="{num(x + 14)}" y="{num(y + 16 + rank * 12)}">'
            f"{text(line)}</text>\n"
        )
    return out
