"""The as-built check's work order as text, JSON or CSV: what ``rackdesigner verify`` prints
and the designer's "Export work order" writes, one home for both.

The CSV is the technician's sheet, sorted by rack and unit as the findings come; its
records end with CRLF, as the other CSV exports do (RFC 4180).
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from rackdesigner.model.spreadsheet import Writer
from rackdesigner.model.terminal import shown
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.asbuilt.compare import Finding

CSV_COLUMNS = (
    "rack",
    "unit",
    "face",
    "device",
    "port",
    "label",
    "kind",
    "cable",
    "other_cable",
    "found",
    "should",
    "route",
    "message",
)


def render(findings: list[Finding], form: str, checked: int) -> str:
    """The work order as text, JSON or CSV (the technician's sheet, by rack and unit)."""
    if form == "json":
        return json.dumps(
            {"cables": checked, "findings": [f.as_dict() for f in findings]}, indent=2
        ) + ("\n")
    if form == "csv":
        out = io.StringIO()
        writer = Writer(out)
        writer.writerow(CSV_COLUMNS)
        for finding in findings:
            row = finding.as_dict()
            writer.writerow(["" if row[c] is None else row[c] for c in CSV_COLUMNS])
        return out.getvalue()
    lines = []
    for finding in findings:
        at = finding.at
        unit = f" U{at.unit}" if at.unit is not None else ""
        where = f"{at.rack}{unit} {at.face}".strip() or "-"
        route = f" (route: {shown(finding.route)})" if finding.route else ""
        lines.append(f"{where}: {finding.kind}: {shown(finding.message)}{route}")
    if findings:
        counts: dict[str, int] = {}
        for finding in findings:
            counts[finding.kind] = counts.get(finding.kind, 0) + 1
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        lines.append(f"{plural(len(findings), 'difference')} ({summary}) in {checked} cables")
    else:
        lines.append(f"the fabric matches the design: {plural(checked, 'cable')} as designed")
    return "\n".join(lines) + "\n"
