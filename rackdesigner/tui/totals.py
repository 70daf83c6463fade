"""The header's live totals, read from the core's analysis (no Textual, no rules here)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..units import POWER, fmt


@dataclass(frozen=True, slots=True)
class Totals:
    gpus: int
    load: float  # W
    usable: float  # W the racks' feeds can carry
    heat: float  # W
    cooling: str  # "ok" or what is wrong, in a few words
    errors: int
    warnings: int
    info: int

    def power_text(self) -> str:
        return f"{_kw(self.load)} / {_kw(self.usable)}"

    def heat_text(self) -> str:
        return _kw(self.heat)


def _kw(watts: float) -> str:
    # The header is read at a glance: one unit (kW, MW for halls), no pint in the loop.
    return fmt(watts, POWER) if watts >= 1e6 else f"{watts / 1000:,.1f} kW"


def totals(analysis: Analysis | None, diagnostics: Iterable[Diagnostic]) -> Totals:
    counts = {"error": 0, "warning": 0, "info": 0}
    for diagnostic in diagnostics:
        counts[diagnostic.severity] = counts.get(diagnostic.severity, 0) + 1
    if analysis is None:
        return Totals(0, 0.0, 0.0, 0.0, "–", counts["error"], counts["warning"], counts["info"])
    usable, heat, cooling = site_figures(analysis)
    return Totals(
        analysis.total_gpus,
        analysis.site_load,
        usable,
        heat,
        cooling,
        counts["error"],
        counts["warning"],
        counts["info"],
    )


def site_figures(analysis: Analysis) -> tuple[float, float, str]:
    """Usable power, heat and the cooling verdict of every rack, summed up. Kept on the
    analysis until its facts change (every refresh makes a new ``cdu_loads``): the header
    is redrawn on every edit and the figures read every rack of a hall. A worker warms it
    after a check, so the app's thread does not pay for it."""
    loads = analysis.cdu_loads
    cached = analysis.__dict__.get("_site_figures")
    if cached is not None and cached[0] is loads and cached[1] is analysis.racks:
        return cached[2]  # type: ignore[no-any-return]
    usable = sum(r.capacity for r in analysis.racks if r.capacity is not None)
    heat = sum(r.heat for r in analysis.racks)
    verdicts = [analysis.cooling_verdict(r) for r in analysis.racks]
    bad = [v for v in verdicts if v != "ok"]
    if not analysis.racks:
        cooling = "–"
    elif not bad:
        cooling = "ok"
    else:
        cooling = f"{len(bad)} rack{'s' if len(bad) != 1 else ''}: {bad[0]}"
    figures = (usable, heat, cooling)
    analysis.__dict__["_site_figures"] = (loads, analysis.racks, figures)
    return figures
