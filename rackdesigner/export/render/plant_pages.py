"""(v1.4) The print pack's cable-plant pages (export/pack.py lists them).

- ``pulls``: the pull sheets (export/pull_sheets.py, as ``export --pull-sheets``), one
  group per sheet headed by where its runs are laid and what they add up to, each run with
  its step, its pull, its ends, its lengths and its route;
- ``labels``: every label of ``export --labels``, three to a row in dashed boxes to cut
  out, grouped by rack as a technician walks the hall.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.export.labels import Label, labels
from rackdesigner.export.pull_sheets import Sheet, sheets
from rackdesigner.export.render.pdf import (
    CHAR,
    HEAD,
    MARGIN,
    ROW_H,
    PackInput,
    Page,
    _line,
    table_pages,
)
from rackdesigner.export.render.svg import clip, num
from rackdesigner.model.wording import plural

PULL_COLUMNS = [
    ("#", 5),
    ("pull", 5),
    ("run", 10),
    ("cable", 20),
    ("from", 22),
    ("to", 22),
    ("m", 6),
    ("stock", 6),
    ("route", 15),
]


def _end(rack: str, u: str, port: str) -> str:
    return " ".join(part for part in (rack, f"U{u}" if u else "", port) if part)


def _metres(value: float) -> str:
    return f"{value:,.1f}"


def _heading(number: int, sheet: Sheet) -> str:
    what = f" ({sheet.what})" if sheet.what else ""
    # two lines: a tray's sheet of a thousand runs has a long heading for a portrait page
    return (
        f"Sheet {number} · {sheet.where}{what}\n"
        f"{plural(len(sheet.runs), 'run')} in {plural(len(sheet.pulls), 'pull')} · "
        f"{_metres(sheet.length)} m routed, {_metres(sheet.stock)} m ordered"
    )


def _pull_groups(pack: PackInput) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    from rackdesigner.export.pull_sheets import sheet_rows

    found = sheets(pack.analysis)
    if not found:
        yield "Nothing to pull: the layout has no cables.", []
        return
    for number, sheet in enumerate(found, 1):
        rows: list[tuple[str, ...]] = []
        for row in sheet_rows(sheet):
            step, pull, kind, cable = row[:4]
            a_rack, a_u, a_port, b_rack, b_u, b_port, media = row[4:11]
            length, stock, route = row[12], row[13], row[14]
            rows.append(
                (
                    step,
                    pull,
                    f"{kind} {media}".strip(),
                    cable,
                    _end(a_rack, a_u, a_port),
                    _end(b_rack, b_u, b_port),
                    length,
                    stock,
                    route,
                )
            )
        yield _heading(number, sheet), rows


def pull_pages(pack: PackInput) -> Iterator[Page]:
    yield from table_pages("Pull sheets", PULL_COLUMNS, _pull_groups(pack), pack.paper)


# Labels: three across a portrait page, each two lines in a dashed box to cut along.
LABELS_ACROSS = 3
LABEL_LINES = 2.8  # rows of the table a label takes: its two lines and the air around them
HEADING_LINES = 1.9  # a rack's heading and the air above it


def _label_groups(found: list[Label]) -> Iterator[tuple[str, list[Label]]]:
    group: list[Label] = []
    rack = None
    for label in found:
        if group and label.rack != rack:
            yield rack or "(no rack)", group
            group = []
        rack = label.rack
        group.append(label)
    if group:
        yield rack or "(no rack)", group


def _caption(label: Label) -> str:
    """The label's second line: what it is on and which end."""
    end = f" · end {label.end}" if label.end else ""
    what = label.cable
    if not what and label.device is not None:
        what = label.device.id
    return f"{label.kind} {what}{end}"


class _LabelPage:
    """One page of labels being laid out: its lines (for cairo) and SVG body, and boxes."""

    def __init__(self, title: str):
        self.title = title
        self.body: list[str] = [f'<g transform="translate({num(MARGIN)},{num(MARGIN + HEAD)})">']
        self.lines: list[tuple[float, str | list[tuple[float, str]], str, bool, float]] = []
        self.boxes: list[tuple[float, float, float, float]] = []

    def add(self, n: float, content: str | list[tuple[float, str]], style: str) -> None:
        self.body.append(_line(n, content, style))
        self.lines.append((n, content, style, False, 0.0))

    def box(self, x: float, y: float, w: float, h: float) -> None:
        self.boxes.append((x, y, w, h))
        self.body.append(
            f'<rect class="grid" x="{num(x)}" y="{num(y)}" width="{num(w)}" '
            f'height="{num(h)}" stroke-dasharray="2 2"/>'
        )

    def page(self) -> Page:
        self.body.append("</g>")
        return Page(False, self.title, self.body, lines=self.lines, boxes=self.boxes)


def label_pages(pack: PackInput) -> Iterator[Page]:
    """Every label, three across, a group per rack (see the module's docstring)."""
    cw, ch = pack.paper.content(False)
    rows_per_page = int(ch // ROW_H) - 1
    column_w = cw / LABELS_ACROSS
    chars = int((column_w - 8) / CHAR)
    title = "Cable labels"
    found = labels(pack.analysis)
    current = _LabelPage(title)
    used = 0.0
    if not found:
        current.add(0.6, "No labels: the layout has no cables and no patch panels.", "h3")
        yield current.page()
        return
    for rack, group in _label_groups(found):
        heading = f"Rack {rack} · {plural(len(group), 'label')}"
        for start in range(0, len(group), LABELS_ACROSS):
            first = start == 0
            need = LABEL_LINES + (HEADING_LINES if first else 0.0)
            if used + need > rows_per_page:
                yield current.page()
                current, used = _LabelPage(title), 0.0
                if not first:
                    current.add(used + 1.0, heading + " (continued)", "h3")
                    used += HEADING_LINES
            if first:
                current.add(used + 1.0, heading, "h3")
                used += HEADING_LINES
            chunk = group[start : start + LABELS_ACROSS]
            xs = [column * column_w + 4 for column in range(len(chunk))]
            top = used + 1.0
            current.add(
                top, [(x, clip(label.text, chars)) for x, label in zip(xs, chunk, strict=True)], "b"
            )
            current.add(
                top + 1,
                [(x, clip(_caption(label), chars)) for x, label in zip(xs, chunk, strict=True)],
                "",
            )
            for x in xs:
                current.box(x - 4, (used + 0.2) * ROW_H, column_w - 6, 2.4 * ROW_H)
            used += LABEL_LINES
    yield current.page()
