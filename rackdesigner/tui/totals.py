"""The header's live totals, read from the core's analysis (no Textual, no rules here)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.units import POWER, fmt

if TYPE_CHECKING:  # the header is in the first frame; the analysis comes with the check
    from rackdesigner.analysis import Analysis


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
    """Usable power, heat and the cooling verdict of every rack, summed up: the core's
    (:meth:`Analysis.site_figures`), which a live analysis keeps per rack, so an edit
    recomputes the touched racks' part only. A worker warms it after a check."""
    return analysis.site_figures()
