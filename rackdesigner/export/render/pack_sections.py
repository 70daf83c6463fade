"""The print pack's topology, single-line, power-cord and findings pages (export/pack.py
lists them).

- ``topology``: the compute fabric drawing (topology_svg), on landscape pages at a scale
  that keeps its 7 px counts at 3.5 pt or more, tiled across and down where it does not
  fit one page;
- ``one-line``: the power chain's single-line diagram (one_line), as the topology is
  laid out; no page where the layout declares no chain;
- ``power``: the power-cord schedule (analysis/cords.py, as ``export --power``), a group
  per rack headed by its load, capacity and cords by outlet type;
- ``findings``: the layout's findings (what ``validate`` reports, suppressed ones left
  out), a group per rule with its severity and count, each finding its entity, message
  and fix, wrapped to the page; past :data:`FINDINGS_PER_RULE` of one rule, the rest are
  counted.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterator

from rackdesigner.analysis.cords import rack_cords
from rackdesigner.export.render.elevation import _ordered_rows
from rackdesigner.export.render.one_line import one_line_parts, style
from rackdesigner.export.render.pdf import CHAR, PackInput, Page, drawing_pages, table_pages
from rackdesigner.export.render.svg import kw
from rackdesigner.export.render.topology_svg import topology_parts
from rackdesigner.model.diagnostics import SEVERITY_RANK
from rackdesigner.model.wording import plural

MIN_TOPOLOGY_SCALE = 0.5  # the drawing's 7 px bundle counts print at 3.5 pt or more
# Findings of one rule printed before the rest are counted: a hall's thousands of CAB001
# warnings are a list for `validate`, not 150 pages of the pack.
FINDINGS_PER_RULE = 100


def topology_pages(pack: PackInput) -> Iterator[Page]:
    width, height, parts = topology_parts(pack.analysis, pack.diagnostics, date=pack.date)
    cw, ch = pack.paper.content(True)
    scale = max(min(1.0, cw / width, ch / height), MIN_TOPOLOGY_SCALE)
    yield from drawing_pages("Topology", parts, height, scale, cw, ch, width=width)


# The single-line diagram's 8 px figures print at 4 pt or more; a larger chain is tiled.
MIN_ONE_LINE_SCALE = 0.5


def one_line_pages(pack: PackInput) -> Iterator[Page]:
    """The power chain's single-line diagram (none where the layout declares no chain)."""
    if not pack.analysis.layout.power_elements:
        return
    width, height, parts = one_line_parts(pack.analysis, pack.diagnostics, date=pack.date)
    cw, ch = pack.paper.content(True)
    scale = max(min(1.0, cw / width, ch / height), MIN_ONE_LINE_SCALE)
    yield from drawing_pages(
        "Single-line diagram", parts, height, scale, cw, ch, width=width, defs=style(pack.theme)
    )


POWER_COLUMNS = [
    ("device", 22),
    ("U", 5),
    ("PSU", 4),
    ("side", 5),
    ("feed", 14),
    ("PDU", 16),
    ("outlet", 7),
    ("inlet", 6),
    ("cord", 8),
]


def _power_groups(pack: PackInput) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    for row in _ordered_rows(pack.analysis):
        for facts in row:
            cords = rack_cords(facts)
            if not cords:
                continue
            by_outlet = Counter(c.outlet.upper() or "unknown" for c in cords)
            outlets = ", ".join(f"{n} × {kind}" for kind, n in sorted(by_outlet.items()))
            capacity = f" of {kw(facts.capacity)}" if facts.capacity else ""
            heading = (
                f"Rack {facts.rack.id} · load {kw(facts.load)}{capacity} · "
                f"{plural(len(cords), 'cord')}: {outlets}"
            )
            door = facts.rack.door
            rows: list[tuple[str, ...]] = []
            for cord in cords:
                position = cord.device.device.position
                u = str(position) if position is not None else "door" * (cord.device.id == door)
                rows.append(
                    (
                        cord.device.id,
                        u,
                        "" if cord.psu is None else str(cord.psu),
                        cord.side,
                        cord.feed,
                        cord.pdu or "(none)",
                        cord.outlet.upper(),
                        cord.inlet.upper(),
                        cord.cord,
                    )
                )
            yield heading, rows


def power_pages(pack: PackInput) -> Iterator[Page]:
    yield from table_pages("Power cords", POWER_COLUMNS, _power_groups(pack), pack.paper)


def _finding_groups(pack: PackInput, width: int) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    found = [d for d in pack.diagnostics if d.suppressed is None]
    if not found:
        yield "No findings: every rule that ran is silent on this layout.", []
        return
    by_code: dict[str, list] = {}
    for d in sorted(found, key=lambda d: (SEVERITY_RANK[d.severity], d.code, d.sort_key())):
        by_code.setdefault(d.code, []).append(d)
    for code, items in by_code.items():
        heading = f"{code} · {items[0].severity} · {plural(len(items), 'finding')}"
        rows: list[tuple[str, ...]] = []
        for d in items[:FINDINGS_PER_RULE]:
            where = str(d.line) if d.line else ""
            said = d.text() + (f"; fix: {d.hint}" if d.hint else "")
            lines = textwrap.wrap(said, width) or [""]
            rows.append((where, lines[0]))
            rows.extend(("", more) for more in lines[1:])
        if len(items) > FINDINGS_PER_RULE:
            rest = len(items) - FINDINGS_PER_RULE
            rows.append(("", f"… and {rest} more (rackdesigner validate lists them all)"))
        yield heading, rows


def findings_pages(pack: PackInput) -> Iterator[Page]:
    cw, _ = pack.paper.content(False)
    columns = [("line", 10), ("finding", int(cw / CHAR) - 10)]
    groups = _finding_groups(pack, columns[1][1] - 2)
    yield from table_pages("Findings", columns, groups, pack.paper)
