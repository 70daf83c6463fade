"""A cable pathway is fuller than its fill limit at its busiest point.

Why it matters:
    A tray, ladder rack or vertical manager holds so much cable before the cables crush
    one another, the tray's load rating is passed and nothing more can be added or taken
    out without pulling everything (NVIDIA's SuperPOD data-centre design guide lists "cable
    tray fill ratio" among what to plan before installing). The fill is the cables'
    cross-section at the pathway's busiest point against its width x depth. The cabling
    standard itself (TIA-569) is paywalled; its figure is quoted by cabling makers: "For
    initial installation, the maximum fill capacity for pathways (i.e. conduit, raceways,
    trays, baskets) is 40 percent" (Panduit PN390B installation guidelines, per
    ANSI/TIA/EIA-569-C), and 40 % as "the maximum designed cable fill based on TIA/EIA
    569-A" (Wiremold 40N2 raceway fill table). Past `tray_fill_max` (40 %) is a warning:
    the pathway has no room left for growth. Past `tray_fill_limit` (50 %: NEC
    392.22(A)(1)(b), signal cables in a ventilated tray, as the Eaton B-Line cable tray
    manual quotes it) is an error. A pathway's own `fill_max` replaces the warning's limit.

    Each cable counts its outer diameter's circle: the media table's diameters (NVIDIA's
    SuperPOD design guide: copper 9.43 mm, fibre 3.0 mm; Cat 6A 7.65 mm), half for a
    twin-port copper cable's second link, a trunk's `diameter` (else 3.0 mm per 12 fibres,
    an estimate). A rack's cables share its vertical managers evenly, as NVIDIA's cabling
    guide routes half of them down each side.

Example:
    [[pathways]]
    id = "tray-a"
    row = "A"
    width = "100 mm"    # 100 x 50 mm: 5,000 mm², 40 % is 2,000 mm²
    depth = "50 mm"     # 64 copper cables of 9.43 mm are 4,470 mm²: 89 %

Fix:
    Use a wider or deeper pathway, a second tray beside it, or fibre instead of copper
    where the run allows; move switches so fewer cables share the busiest stretch.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import LENGTH, RATIO, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


def _mm2(area: float) -> str:
    mm2 = area * 1e6
    return f"{mm2:,.1f} mm²" if mm2 < 100 else f"{mm2:,.0f} mm²"


@rule(
    "CAB006",
    "error",
    severities=("error", "warning"),
    scope="site",
    reads=("rack.id", "rack.row", "rack.slot", "rack.height"),
    thresholds=("tray_fill_max", "tray_fill_limit"),
)
def pathway_fill(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.pathways:
        return
    warn = float(analysis.thresholds["tray_fill_max"])
    limit = float(analysis.thresholds["tray_fill_limit"])
    fills = sorted(analysis.plant.fills(warn), key=lambda f: -f.ratio)
    for fill in fills:
        ratio = fill.ratio
        error = ratio > limit + 1e-9
        if not error and ratio <= fill.limit + 1e-9:
            continue
        pathway = fill.pathway
        own = pathway.fill_max is not None
        over = (
            f"beyond the {fmt(limit, RATIO)} fill limit (tray_fill_limit)"
            if error
            else f"beyond its {fmt(fill.limit, RATIO)} design fill "
            + ("(its fill_max)" if own else "(tray_fill_max)")
        )
        size = (
            f"{fmt(float(pathway.width or 0), LENGTH)} x {fmt(float(pathway.depth or 0), LENGTH)}"
        )
        where = f", {fmt(fill.at, LENGTH)} along it" if fill.at > 0 else ""
        yield Finding(
            f"pathway {pathway.id}",
            Ref("pathway", pathway.id),
            f"{pathway.kind_name} {size} is {fmt(ratio, RATIO)} full at its busiest point"
            f"{where}: {plural(fill.cables, 'cable')}, {_mm2(fill.area)} of "
            f"{_mm2(fill.capacity)}, "
            f"{over}",
            hint="use a wider or deeper pathway or a second one beside it, or fibre for the "
            "copper; move switches so fewer cables share this stretch",
            values={
                "fill": ratio,
                "area": fill.area,
                "capacity": fill.capacity,
                "cables": float(fill.cables),
                "limit": limit if error else fill.limit,
            },
            severity="error" if error else "warning",
        )
