"""``rackdesigner report``: power, cooling, compute, network, storage and cost of a layout.

:func:`build` turns the shared analysis into plain data (SI floats), which the
renderers print as text, JSON or CSV. Nothing is recomputed here that the
analysis already knows.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.model.spreadsheet import Writer
from rackdesigner.model.terminal import shown
from rackdesigner.report.compute import compute_csv_rows, compute_section, compute_text
from rackdesigner.report.cooling import cooling_csv_rows, cooling_section, cooling_text
from rackdesigner.report.cost import cost_csv_rows, cost_section, cost_text
from rackdesigner.report.domains import build_domains, domains_csv_rows, domains_text
from rackdesigner.report.fabric import (
    fabric_csv_rows,
    fabric_section,
    fabric_text,
    node_test,
    node_test_text,
)
from rackdesigner.report.liquid_loops import (
    build_liquid_loops,
    liquid_loops_csv_rows,
    liquid_loops_text,
)
from rackdesigner.report.power import power_csv_rows, power_section, power_text
from rackdesigner.report.power_chain import power_chain_section
from rackdesigner.report.single_failures import single_failures, single_failures_text
from rackdesigner.report.storage import storage_csv_rows, storage_section, storage_text
from rackdesigner.report.workload import build_workload, workload_csv_rows, workload_text

Report = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Options:
    """What :func:`build` was asked for (its docstring says what each leaves out)."""

    hostfile: str = "hostfile"
    network: bool = True
    cords: bool = True


@dataclass(frozen=True, slots=True)
class Section:
    """One top-level key of the report and the function that builds its value. An
    ``optional`` section is left out of the report where it builds None (a layout without
    NVLink domains has no ``domains`` key), so reports of other layouts stay as they were."""

    key: str
    build: Callable[[Analysis, Options], Any]
    optional: bool = False


def _network(analysis: Analysis, options: Options) -> dict[str, Any]:
    return {
        "fabrics": fabric_section(analysis, options.hostfile) if options.network else [],
        "node_test": node_test(analysis, options.hostfile) if options.network else None,
    }


# The report's sections, in the order its JSON lists them.
SECTIONS: tuple[Section, ...] = (
    Section("layout", lambda analysis, _: analysis.layout.name),
    Section("file", lambda analysis, _: analysis.file),
    Section("power", lambda analysis, options: power_section(analysis, cords=options.cords)),
    Section("cooling", lambda analysis, _: cooling_section(analysis)),
    Section("compute", lambda analysis, _: compute_section(analysis)),
    Section("network", _network),
    Section("storage", lambda analysis, _: storage_section(analysis)),
    Section("cost", lambda analysis, _: cost_section(analysis)),
    Section(
        "single_failures",
        lambda analysis, options: single_failures(analysis) if options.network else None,
    ),
    # (v1.4) the power chain behind the feeds: [] where the layout declares none
    Section("power_chain", lambda analysis, _: power_chain_section(analysis)),
    # (v1.2) only where the layout has NVLink domains
    Section("domains", lambda analysis, _: build_domains(analysis), optional=True),
    # (v1.4) only where [workload] gives something to work through
    Section("workload", lambda analysis, _: build_workload(analysis), optional=True),
    # (v1.4) only where the layout declares water loops
    Section("liquid_loops", lambda analysis, _: build_liquid_loops(analysis), optional=True),
)


def build(
    analysis: Analysis, hostfile: str = "hostfile", *, network: bool = True, cords: bool = True
) -> Report:
    """The report's figures, a key per section (:data:`SECTIONS`). ``network`` False leaves
    out the fabric figures (bisection, reach: most of the time on a large fabric) and
    ``cords`` False the power-cord counts: the designer's summary reads neither
    (``network`` is then empty, ``cords`` None)."""
    options = Options(hostfile, network, cords)
    report: Report = {}
    for section in SECTIONS:
        value = section.build(analysis, options)
        if value is not None or not section.optional:
            report[section.key] = value
    return report


# -- rendering ------------------------------------------------------------------------------


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def to_json(report: Report) -> str:
    return json.dumps(_json_safe(report), indent=2, ensure_ascii=False) + "\n"


def _network_text(report: Report) -> list[str]:
    network = report["network"]
    out = ["", "Network:"]
    if not network["fabrics"]:
        out.append("  no compute fabric")
    out += fabric_text(network["fabrics"])
    out += node_test_text(network.get("node_test"))
    return out + single_failures_text(report.get("single_failures"))


Rows = Iterable[list[Any]]

# The CSV's rows (section, entity, metric, value, unit), section by section.
CSV_ROWS: tuple[Callable[[Report], Rows], ...] = (
    power_csv_rows,
    cooling_csv_rows,
    compute_csv_rows,
    lambda report: fabric_csv_rows(report["network"]["fabrics"]),
    lambda report: storage_csv_rows(report["storage"]),
    cost_csv_rows,
    lambda report: domains_csv_rows(report.get("domains")),
    lambda report: workload_csv_rows(report.get("workload")),
    lambda report: liquid_loops_csv_rows(report.get("liquid_loops")),
)

# The text's parts after the layout's name, in the order they are printed.
TEXT: tuple[Callable[[Report], list[str]], ...] = (
    power_text,
    cooling_text,
    compute_text,
    _network_text,
    lambda report: domains_text(report.get("domains")),
    lambda report: workload_text(report.get("workload")),
    lambda report: liquid_loops_text(report.get("liquid_loops")),
    lambda report: storage_text(report["storage"]),
    cost_text,
)


def to_csv(report: Report) -> str:
    """One flat table: section, entity, metric, value, unit (SI)."""
    out = io.StringIO()
    writer = Writer(out)  # RFC 4180 and no formulas, as every CSV export
    writer.writerow(["section", "entity", "metric", "value", "unit"])
    for rows in CSV_ROWS:
        for row in rows(report):
            writer.writerow(row)
    return out.getvalue()


def to_text(report: Report) -> str:
    out = [shown(report["layout"]), ""]  # a name on one line, whatever it holds
    for part in TEXT:
        out += part(report)
    return "\n".join(out) + "\n"
