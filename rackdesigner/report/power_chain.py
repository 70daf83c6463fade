"""The report's power-chain section (v1.4): each element's load, rating, margin, worst
single failure and transient peak, from :mod:`rackdesigner.analysis.power_chain`.

JSON: the top-level ``power_chain`` list, one object per element in file order (``[]``
where the layout declares no chain). Its figures are in kW (``load_kw``, ``peak_kw``,
``rating_kw``, ``margin_kw``, ``input_kw``), as the key names say, unlike the report's
other sections (W).
"""

from __future__ import annotations

from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import peak_factor_text
from rackdesigner.analysis.power_failures import Worst, single_failures, worst_failures
from rackdesigner.model.units import POWER, fmt


def _kw(watts: float | None) -> float | None:
    return None if watts is None else watts / 1e3


def power_chain_section(analysis: Analysis) -> list[dict[str, Any]]:
    """One object per chain element (the module docstring says the units)."""
    chain = analysis.power_chain
    if not chain:
        return []
    worst = worst_failures(chain)
    lost = {f.element: result for f, result in single_failures(chain) if not f.module}
    factor = peak_factor_text(analysis.layout)
    rows = []
    for facts in chain.elements:
        binding = facts.binding
        result = lost[facts.index]
        rows.append(
            {
                "id": facts.id,
                "kind": facts.kind,
                "label": facts.element.label,
                "fed_by": list(facts.element.fed_by or ()),
                "model": facts.element.model,
                "voltage": facts.voltage,
                "load_kw": _kw(facts.load),
                "peak_kw": _kw(facts.peak),
                "input_kw": _kw(facts.input),
                "efficiency": facts.efficiency if facts.efficiency_known else None,
                "rating_kw": _kw(facts.rating),
                "rating": binding.text if binding is not None else None,
                "margin_kw": _kw(facts.margin),
                "utilisation": facts.utilisation,
                "current": facts.current_at(facts.load) if facts.voltage else None,
                "feeds": len(facts.feeds),
                "peak_factor": factor,
                "worst_failure": _worst(worst.get(facts.index)),
                "if_lost": {
                    "racks_down": len(result.racks_down),
                    "gpus_down": result.gpus_down,
                    "racks_one_path": len(result.racks_one_path),
                    "gpus_one_path": result.gpus_one_path,
                    "elements_lost": sorted(chain.elements[i].id for i in result.dead),
                },
            }
        )
    return rows


def _worst(worst: Worst | None) -> dict[str, Any] | None:
    if worst is None:
        return None
    return {
        "failure": worst.failure.spec,
        "name": worst.failure.name,
        "load_kw": _kw(worst.load),
        "rating_kw": _kw(worst.rating),
        "margin_kw": _kw(worst.margin),
    }


def _p(kw: float | None) -> str:
    return "–" if kw is None else fmt(kw * 1e3, POWER)


def power_chain_table(rows: list[dict[str, Any]]) -> tuple[str, list[tuple[str, ...]]]:
    """The text report's heading (with the peak factor used) and table rows: element,
    kind, load, peak, rating, margin, worst single failure, what its loss takes down."""
    heading = f"Power chain (transient peak factor {rows[0]['peak_factor']}):"
    table: list[tuple[str, ...]] = [
        ("element", "kind", "load", "peak", "rating", "margin", "worst single failure", "if lost")
    ]
    for row in rows:
        worst = row["worst_failure"]
        worst_text = (
            "–"
            if worst is None
            else f"{worst['name']}: {_p(worst['load_kw'])}, margin {_p(worst['margin_kw'])}"
        )
        gone = row["if_lost"]
        if gone["gpus_down"]:
            lost_text = f"{gone['gpus_down']:,} GPUs down"
        elif gone["gpus_one_path"]:
            lost_text = f"{gone['gpus_one_path']:,} GPUs on one path"
        else:
            lost_text = "no GPU down"
        table.append(
            (
                row["id"],
                row["kind"],
                _p(row["load_kw"]),
                _p(row["peak_kw"]),
                _p(row["rating_kw"]),
                _p(row["margin_kw"]),
                worst_text,
                lost_text,
            )
        )
    return heading, table
