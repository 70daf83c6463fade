"""The report's cost section: the bill of materials (:func:`~rackdesigner.export.tables.bom_items`)
with the known total and the figure per GPU, lower bounds where a device has no price."""

from __future__ import annotations

from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.export.tables import bom_items
from rackdesigner.model.wording import plural
from rackdesigner.report.text_table import table


def cost_section(analysis: Analysis) -> dict[str, Any]:
    bom = bom_items(analysis)
    known_total = sum(item["total"] for item in bom if item["total"] is not None)
    unpriced = sum(
        item["count"]
        for item in bom
        if item["item"] == "device"
        and item["total"] is None
        and item["kind"] not in ("blank", "patch-panel")
    )
    return {
        "bom": bom,
        "total": known_total,
        "unpriced_devices": unpriced,
        # Devices without a price: the total and the figure per GPU are lower bounds.
        "total_is_lower_bound": unpriced > 0,
        "per_gpu": known_total / analysis.total_gpus
        if analysis.total_gpus and known_total
        else None,
    }


def cost_text(report: dict[str, Any]) -> list[str]:
    """The bill of materials as a table, then the total (and per GPU)."""
    cost = report["cost"]
    rows = [("item", "model", "count", "unit", "total")]
    for item in cost["bom"]:
        rows.append(
            (
                item["item"],
                item["model"],
                str(item["count"]),
                "–" if item["unit_cost"] is None else f"${item['unit_cost']:,.0f}",
                "–" if item["total"] is None else f"${item['total']:,.0f}",
            )
        )
    bound = "≥ " if cost["unpriced_devices"] else ""
    total = f"  total {bound}${cost['total']:,.0f}"
    if cost["unpriced_devices"]:
        total += f" ({plural(cost['unpriced_devices'], 'device')} without a price)"
    if cost["per_gpu"] is not None:
        total += f"; {bound}${cost['per_gpu']:,.0f} per GPU"
    return ["", "Bill of materials:", *table(rows), total]


def cost_csv_rows(report: dict[str, Any]) -> list[list[Any]]:
    """Each item's count and known total, then the site's total and per GPU (USD)."""
    cost = report["cost"]
    rows: list[list[Any]] = []
    for item in cost["bom"]:
        entity = f"{item['item']} {item['model']}"
        rows.append(["cost", entity, "count", item["count"], ""])
        if item["total"] is not None:
            rows.append(["cost", entity, "total", item["total"], "USD"])
    rows.append(["cost", "site", "total", cost["total"], "USD"])
    if cost["per_gpu"] is not None:
        rows.append(["cost", "site", "per_gpu", cost["per_gpu"], "USD"])
    return rows
