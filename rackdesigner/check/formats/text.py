"""The text format: one line per finding, per-rack totals, then a summary line."""

from __future__ import annotations

from collections.abc import Sequence

import click

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.weight import rack_weight
from rackdesigner.check.engine import FileResult
from rackdesigner.check.formats.options import Options, counts
from rackdesigner.check.grouping import GROUP_SHOWN, by_code
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.terminal import shown
from rackdesigner.model.units import MASS, POWER, fmt
from rackdesigner.model.wording import plural

_COLOURS = {"error": "red", "warning": "yellow", "info": "cyan"}
AUTO_TOTALS_MAX_RACKS = 60


def plain_line(diagnostic: Diagnostic) -> str:
    """``file:line: severity CODE entity: message; hint`` with the exact text."""
    where = f"{diagnostic.file}:{diagnostic.line}" if diagnostic.line else diagnostic.file
    text = diagnostic.text()
    if diagnostic.hint:
        text = f"{text}; {diagnostic.hint}"
    return f"{where}: {diagnostic.severity} {diagnostic.code} {text}"


def line(diagnostic: Diagnostic, color: bool = False) -> str:
    """The finding as a terminal line: user strings' control characters escaped."""
    where = shown(f"{diagnostic.file}:{diagnostic.line}" if diagnostic.line else diagnostic.file)
    text = diagnostic.text()
    if diagnostic.hint:
        text = f"{text}; {diagnostic.hint}"
    text = shown(text)
    severity: str = diagnostic.severity  # styled below: no longer a Severity
    code = diagnostic.code
    if color:
        where = click.style(where, bold=True)
        severity = click.style(severity, fg=_COLOURS[severity], bold=True)
        code = click.style(code, fg=_COLOURS[diagnostic.severity])
    return f"{where}: {severity} {code} {text}"


def summary(results: Sequence[FileResult]) -> str:
    """``N errors, N warnings, N info in N files``: a fixed form that scripts can match
    (singular where N is 1: ``1 error, 2 warnings, 0 info in 1 file``)."""
    tally = counts(results)
    return (
        f"{plural(tally['errors'], 'error')}, {plural(tally['warnings'], 'warning')}, "
        f"{tally['info']} info in {plural(len(results), 'file')}"
    )


def totals_table(analysis: Analysis) -> list[str]:
    """Per-rack totals: units used, load, residual air heat, feed use, cooling, weight."""
    head = ("rack", "U used", "load", "air heat", "feed use", "cooling", "weight")
    rows = [head]
    weights = [rack_weight(rack) for rack in analysis.racks]
    for rack, weight in zip(analysis.racks, weights, strict=True):
        bound = "≥" if rack.load_unknown else ""
        use = rack.utilisation
        rows.append(
            (
                shown(rack.rack.id),
                f"{rack.units_used:g}/{rack.rack.height_u:g}",
                bound + fmt(rack.load, POWER),
                bound + fmt(rack.air_heat, POWER),
                f"{use * 100:.0f} %" if use is not None else "no feed",
                rack.cooling,
                ("≥" if weight.unknown else "") + fmt(weight.carried, MASS),
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
            ("≥" if any(w.unknown for w in weights) else "")
            + fmt(sum(w.carried for w in weights), MASS),
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


def grouped(results: Sequence[FileResult]) -> list[str]:
    """One line per code (and severity): ``CODE severity count: first three entities, …``,
    errors first, then in the order the rules are listed (:mod:`rackdesigner.check.grouping`,
    which the designer's problems panel shows too)."""
    out = []
    for group in by_code(d for result in results for d in result.reported):
        more = ", …" if group.count > GROUP_SHOWN else ""
        names = ", ".join(group.names())
        out.append(shown(f"{group.code} {group.severity} {group.count}: {names}{more}"))
    return out


def suppressed_note(results: Sequence[FileResult]) -> str | None:
    """``12500 findings suppressed (12000 by ignore keys, 500 by the baseline)``."""
    from rackdesigner.check.suppressions import BY_IGNORE

    by_ignore = by_baseline = 0
    for result in results:
        for d in result.diagnostics:
            if d.suppressed == BY_IGNORE:
                by_ignore += 1
            elif d.suppressed:
                by_baseline += 1
    if not by_ignore and not by_baseline:
        return None
    parts = []
    if by_ignore:
        parts.append(f"{by_ignore} by ignore keys")
    if by_baseline:
        parts.append(f"{by_baseline} by the baseline")
    return f"{plural(by_ignore + by_baseline, 'finding')} suppressed ({', '.join(parts)})"


def render(results: Sequence[FileResult], options: Options) -> str:
    out: list[str] = []
    if options.group_by == "code" and not options.quiet:
        out.extend(grouped(results))
    elif not options.quiet:
        for result in results:
            out.extend(line(d, options.color) for d in result.reported)
            analysis = result.analysis
            if analysis is None or not analysis.racks or options.totals == "never":
                continue
            if options.totals == "auto" and len(analysis.racks) > AUTO_TOTALS_MAX_RACKS:
                continue
            out.append("")
            out.append(shown(f"{result.file}: {analysis.layout.name}"))
            out.extend(totals_table(analysis))
            out.append("")
    note = suppressed_note(results)
    if note and not options.quiet:
        out.append(note)
    out.append(summary(results))
    return "\n".join(out) + "\n"
