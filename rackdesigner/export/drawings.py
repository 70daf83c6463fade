"""The drawing kinds of ``rackdesigner export`` (registered in ``registry.KINDS``).

Each takes the export context (layout, analysis, findings, settings) and returns the
files to write; the command line writes them atomically.
"""

from __future__ import annotations

import re
from datetime import date as Date
from pathlib import Path

from rackdesigner.export.registry import ExportContext, ExportError, Output
from rackdesigner.model.progress import each

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def _theme(context: ExportContext) -> str:
    return str(context.setting("theme", "light"))


def _date(context: ExportContext) -> str | None:
    """``--date`` checked: drawings carry a date only when asked, and only a real one."""
    value = context.setting("date")
    if value is None:
        return None
    value = str(value)
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        Date.fromisoformat(value)
    except ValueError:
        raise ExportError(f"--date {value!r} is not a date YYYY-MM-DD") from None
    return value


def elevations(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.elevation import sheet

    diagnostics = context.diagnostics
    drawing = sheet(context.analysis, diagnostics, theme=_theme(context), date=_date(context))
    return [Output(path, drawing.encode("utf-8"))]


def rack_file_name(rack_id: str) -> str:
    """``<rack id>.svg`` with every character other than a letter, digit, ``.``, ``_`` or
    ``-`` replaced by ``_`` (exports.md)."""
    return _SAFE_NAME.sub("_", rack_id) + ".svg"


def svg_dir(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.elevation import single

    if path.exists() and not path.is_dir():
        raise ExportError(f"--svg-dir {path}: not a directory")
    analysis = context.analysis
    names: dict[str, str] = {}
    for facts in analysis.racks:
        name = rack_file_name(facts.rack.id)
        # Case-insensitive file systems (macOS, Windows) would merge A01.svg and a01.svg.
        key = name.casefold()
        if key in names and names[key] != facts.rack.id:
            raise ExportError(
                f"--svg-dir: racks {names[key]!r} and {facts.rack.id!r} would both be "
                f"written as {name}; give one of them another id"
            )
        names[key] = facts.rack.id
    diagnostics = context.diagnostics
    theme, date = _theme(context), _date(context)
    return [
        Output(
            path / rack_file_name(facts.rack.id),
            single(analysis, facts, diagnostics, theme=theme, date=date).encode("utf-8"),
        )
        for facts in each(analysis.racks, "drawing one elevation per rack")
    ]


def floorplan(context: ExportContext, path: Path) -> list[Output]:
    """The floor plan as SVG, or (``FILE.png``) as a PNG whose long side is at most
    :data:`PNG_MAX_SIDE`."""
    from rackdesigner.export.render.floorplan import floorplan as draw

    diagnostics = context.diagnostics
    theme = _theme(context)
    drawing = draw(context.analysis, diagnostics, theme=theme, date=_date(context))
    if path.suffix.lower() == ".png":
        from rackdesigner.export.render.raster import painted_png

        return [Output(path, painted_png(drawing, theme, PNG_MAX_SIDE))]
    return [Output(path, drawing.encode("utf-8"))]


def topology(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.topology_svg import topology as draw
    from rackdesigner.model.progress import report

    diagnostics = context.diagnostics
    report("drawing the fabric", 0, 0)
    drawing = draw(context.analysis, diagnostics, theme=_theme(context), date=_date(context))
    return [Output(path, drawing.encode("utf-8"))]


def cooling_diagram(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.cooling_diagram import cooling_diagram as draw
    from rackdesigner.export.render.cooling_plan import cooling_plan

    plan = cooling_plan(context.analysis)
    if plan.empty:
        raise ExportError(
            f"--cooling-diagram {path}: the layout has no liquid cooling to draw "
            "(no CDU, and no rear door or in-row cooler on a [[cooling.loops]] loop)"
        )
    drawing = draw(context.analysis, theme=_theme(context), date=_date(context), plan=plan)
    return [Output(path, drawing.encode("utf-8"))]


def pdf(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.pack import UnknownPage, chosen
    from rackdesigner.export.render.pdf import pdf as print_pack

    try:
        sections = chosen(context.setting("pages"))
    except UnknownPage as error:
        raise ExportError(str(error)) from None
    date = _date(context)
    diagnostics = context.diagnostics
    data = print_pack(
        context.analysis,
        diagnostics,
        paper=str(context.setting("paper", "a4")),
        theme=_theme(context),
        date=date,
        sections=sections,
    )
    return [Output(path, data)]


# cairo refuses image surfaces above 32,767 px a side; chat tools choke well before that.
PNG_MAX_SIDE = 16_000


# Above this many racks the PNG is the sheet's overview (elevation.overview, drawn with
# libcairo directly): cairosvg draws a few hundred elements a second, so full elevations
# of a hall would take many minutes, and at the scale such a sheet is brought down to the
# units' text is unreadable anyway.
PNG_DETAIL_MAX_RACKS = 40


def png(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.elevation import overview, sheet
    from rackdesigner.export.render.raster import overview_png, scale_for, size, to_png

    diagnostics = context.diagnostics
    analysis = context.analysis
    theme, date = _theme(context), _date(context)
    drawing = sheet(analysis, diagnostics, theme=theme, date=date)
    if len(analysis.racks) <= PNG_DETAIL_MAX_RACKS:
        return [Output(path, to_png(drawing, PNG_MAX_SIDE))]
    scale = scale_for(*size(drawing), PNG_MAX_SIDE)
    view = overview(analysis, diagnostics, date=date, scale=scale)
    return [Output(path, overview_png(view, theme, PNG_MAX_SIDE))]


def one_line(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.render.one_line import one_line as draw

    if not context.layout.power_elements:
        raise ExportError(
            f"--one-line {path}: the layout declares no power chain ([[power.elements]]; "
            "docs/power-chain.md)"
        )
    diagnostics = context.diagnostics
    drawing = draw(context.analysis, diagnostics, theme=_theme(context), date=_date(context))
    return [Output(path, drawing.encode("utf-8"))]
