"""The text format: one line per finding, per-rack totals, then a summary line."""

from __future__ import annotations

from collections.abc import Sequence

import click

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..engine import FileResult
from ..units import MASS, POWER, fmt
from .options import Options, counts

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}
AUTO_TOTALS_MAX_RACKS = 60


def line(diagnostic: Diagnostic, color: bool = False) -> str:
    where = f"{diagnostic.file}:{diagnostic.line}" if diagnostic.line else diagnostic.file
    text = diagnostic.text()
    if diagnostic.hint:
        text = f"{text}; {diagnostic.hint}"
    severity = diagnostic.severity
    code = diagnostic.code
    if color:
        where = click.style(where, bold=True)
        severity = click.style(severity, fg=_COLOURS[severity], bold=True)
        code = click.style(code, fg=_COLOURS[diagnostic.severity])
    return f"{where}: {severity} {code} {text}"


def summary(results: Sequence[FileResult]) -> str:
    """``N errors, N warnings, N info in N files``: a fixed form that scripts can match."""
    tally = counts(results)
    return (
        f"{tally['errors']} errors, {tally['warnings']} warnings, {tally['info']} info "
        f"in {len(results)} files"
    )


def totals_table(analysis: Analysis) -> list[str]:
    """Per-rack totals: units used, load, residual air heat, feed use, cooling, weight."""
    head = ("rack", "U used", "load", "air heat", "feed use", "cooling", "weight")
    rows = [head]
    for rack in analysis.racks:
        bound = "≥" if rack.load_unknown else ""
        use = rack.utilisation
        rows.append(
            (
                rack.rack.id,
                f"{rack.units_used:g}/{rack.rack.height_u:g}",
                bound + fmt(rack.load, POWER),
                bound + fmt(rack.air_heat, POWER),
                f"{use * 100:.0f} %" if use is not None else "no feed",
                rack.cooling,
                ("≥" if rack.unknown_weight else "") + fmt(rack.weight, MASS),
            )
        )
    site_bound = "≥" if analysis.site_load_unknown else ""
    rows.append(
        (
            "total",
            f"{sum(r.units_used for r in analysis.racks):g}",
            site_bound + fmt(analysis.site_load, POWER),
            site_bound + fmt(sum(r.air_heat for r in analysis.racks), POWER),
            "",
            "",
            ("≥" if any(r.unknown_weight for r in analysis.racks) else "")
            + fmt(sum(r.weight for r in analysis.racks), MASS),
        )
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    out = []
    for number, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) if i not in (5,) else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row[1:], widths[1:], strict=True), start=1)
        ]
        out.append("  ".join(cells).rstrip())
        if number == 0 or number == len(rows) - 2:
            out.append("  ".join("-" * w for w in widths))
    return out


def render(results: Sequence[FileResult], options: Options) -> str:
    out: list[str] = []
    if not options.quiet:
        for result in results:
            out.extend(line(d, options.color) for d in result.diagnostics)
            analysis = result.analysis
            if analysis is None or not analysis.racks or options.totals == "never":
                continue
            if options.totals == "auto" and len(analysis.racks) > AUTO_TOTALS_MAX_RACKS:
                continue
            out.append("")
            out.append(f"{result.file}: {analysis.layout.name}")
            out.extend(totals_table(analysis))
            out.append("")
    out.append(summary(results))
    return "\n".join(out) + "\n"
