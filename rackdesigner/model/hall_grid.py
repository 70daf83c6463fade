"""(v1.4) The hall's grid of rows and slots, and where the cable pathways lie on it.

Rows are numbered in the order racks first name them (0, 1, ...), as the geometry places
them; a slot position is a number along a row (the rack in slot s stands at s, an aisle at
the row's end at 0 or one past its last rack). A pathway is a line on this grid
(docs/cable-plant.md):

- along a row (``row``, ``slots``): the row's index fixed, from one slot position to another;
- across rows (``slot``, ``rows``): the slot position fixed, from one row to another;
- a point (a riser, ``row`` and ``slot``): where the overhead and under-floor planes join;
- a rack (a vertical manager, ``rack``): the cables' way up the side of one rack.

Two pathways of one plane meet where they share a point (two trays over one row that
touch, a cross-aisle run crossing a row's tray); a riser meets every pathway of either
plane through its point. The meetings make the pathway graph that routes follow
(:mod:`rackdesigner.analysis.pathways` weighs it in metres). Pure grid arithmetic, no
units and no layout beyond the racks' rows and slots: the loader refuses pathways that do
not connect with it, the analysis routes on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rackdesigner.model.layout import Pathway, Rack

OVER, UNDER = "over", "under"
ALONG, ACROSS, POINT, RACK = "along", "across", "point", "rack"
EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Extent:
    """Where one pathway lies on the grid: rows as indexes (y), slots as positions (x)."""

    index: int  # the pathway's place in ``layout.pathways``
    id: str
    axis: str  # ALONG | ACROSS | POINT | RACK
    plane: str  # OVER | UNDER; "" for a riser (both) and a vertical manager (in a rack)
    y0: float
    y1: float
    x0: float
    x1: float
    rack: str | None = None

    def contains(self, x: float, y: float) -> bool:
        """Whether the grid point (slot position ``x``, row index ``y``) lies on it."""
        return self.x0 - EPS <= x <= self.x1 + EPS and self.y0 - EPS <= y <= self.y1 + EPS

    def in_plane(self, plane: str) -> bool:
        return self.plane == plane or (self.axis == POINT and plane in (OVER, UNDER))


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a pathway has no place on the grid: the message and the key at fault."""

    message: str
    key: str | None = None
    hint: str | None = None


def row_indexes(racks: Iterable[Rack]) -> dict[str, int]:
    """Each row's index, in the order racks first name it (an unnamed row is "")."""
    rows: dict[str, int] = {}
    for rack in racks:
        rows.setdefault(rack.row or "", len(rows))
    return rows


def row_spans(racks: Iterable[Rack]) -> dict[str, tuple[float, float]]:
    """Each row's first and last rack slot (rows whose racks have slots)."""
    spans: dict[str, tuple[float, float]] = {}
    for rack in racks:
        if rack.slot is None:
            continue
        row = rack.row or ""
        low, high = spans.get(row, (rack.slot, rack.slot))
        spans[row] = (min(low, rack.slot), max(high, rack.slot))
    return spans


def _row(name: str, rows: dict[str, int], key: str) -> int | Problem:
    index = rows.get(name)
    if index is None:
        known = ", ".join(sorted(r for r in rows if r)) or "none"
        return Problem(f'{key} = "{name}" names no row of the layout (its rows: {known})', key)
    return index


def extent_of(
    index: int,
    pathway: Pathway,
    rows: dict[str, int],
    spans: dict[str, tuple[float, float]],
    rack_ids: frozenset[str],
) -> Extent | Problem:
    """Where ``pathway`` lies, or why it has no place (a missing or contradictory position)."""
    kind = pathway.kind_name
    if kind == "vertical-manager":
        return _manager(index, pathway, rack_ids)
    if pathway.rack is not None:
        return Problem(f"rack is for vertical managers; a {kind} runs on the hall's grid", "rack")
    if kind == "riser":
        return _riser(index, pathway, rows)
    plane = UNDER if kind == "under-floor" else OVER
    if pathway.row is not None and pathway.rows is None:
        return _along(index, pathway, pathway.row, plane, rows, spans)
    if pathway.rows is not None and pathway.row is None:
        return _across(index, pathway, pathway.rows, plane, rows)
    if pathway.row is not None:
        return Problem("give row (a run along a row) or rows (across rows), not both", "rows")
    return Problem(
        "a pathway needs a position: row (along a row), rows and slot (across rows), row and "
        "slot (a riser) or rack (a vertical manager)",
        None,
    )


def _manager(index: int, pathway: Pathway, rack_ids: frozenset[str]) -> Extent | Problem:
    """A vertical manager: in the rack it names."""
    if pathway.rack is None:
        return Problem("a vertical manager needs rack = the rack it runs up", "rack")
    if pathway.rack not in rack_ids:
        return Problem(f'rack = "{pathway.rack}" names no rack of the layout', "rack")
    return Extent(index, pathway.id, RACK, "", 0.0, 0.0, 0.0, 0.0, pathway.rack)


def _riser(index: int, pathway: Pathway, rows: dict[str, int]) -> Extent | Problem:
    """A riser: one point, its row and slot."""
    if pathway.row is None or pathway.slot is None:
        return Problem("a riser stands at one point: give row and slot", "row")
    y = _row(pathway.row, rows, "row")
    if isinstance(y, Problem):
        return y
    x = float(pathway.slot)
    return Extent(index, pathway.id, POINT, "", y, y, x, x)


def _along(
    index: int,
    pathway: Pathway,
    row: str,
    plane: str,
    rows: dict[str, int],
    spans: dict[str, tuple[float, float]],
) -> Extent | Problem:
    """A run along ``row``: its ``slots``, else the row's racks from first to last."""
    if pathway.slot is not None:
        return Problem(
            "slot places a cross-aisle run (with rows); a run along a row takes slots",
            "slot",
            'write slots = [first, last] for a run along the row, or rows = ["A", "H"] '
            "and slot for a run across rows",
        )
    y = _row(row, rows, "row")
    if isinstance(y, Problem):
        return y
    if pathway.slots is not None:
        x0, x1 = (float(v) for v in pathway.slots)
    elif row in spans:
        x0, x1 = spans[row]
    else:
        return Problem(f"row {row} has no rack with a slot: give slots = [first, last]", "slots")
    return Extent(index, pathway.id, ALONG, plane, y, y, x0, x1)


def _across(
    index: int, pathway: Pathway, names: Sequence[str], plane: str, rows: dict[str, int]
) -> Extent | Problem:
    """A run across the rows ``names`` (first and last) at its ``slot``."""
    if pathway.slot is None:
        return Problem("a run across rows needs slot = its position along the rows", "slot")
    if pathway.slots is not None:
        return Problem("slots is for a run along a row; across rows give slot", "slots")
    ends = [_row(name, rows, "rows") for name in names]
    for end in ends:
        if isinstance(end, Problem):
            return end
    y0, y1 = sorted(float(e) for e in ends if not isinstance(e, Problem))
    x = float(pathway.slot)
    return Extent(index, pathway.id, ACROSS, plane, y0, y1, x, x)


def meetings(a: Extent, b: Extent) -> list[tuple[float, float]]:
    """The grid points where ``a`` and ``b`` meet (none where they do not)."""
    if RACK in (a.axis, b.axis):
        return []
    if a.axis == POINT or b.axis == POINT:
        point, other = (a, b) if a.axis == POINT else (b, a)
        x, y = point.x0, point.y0
        return [(x, y)] if other.contains(x, y) else []
    if a.plane != b.plane:
        return []
    if a.axis == b.axis == ALONG:
        if abs(a.y0 - b.y0) > EPS:
            return []
        low, high = max(a.x0, b.x0), min(a.x1, b.x1)
        if low > high + EPS:
            return []
        return sorted({(low, a.y0), (high, a.y0)})
    if a.axis == b.axis == ACROSS:
        if abs(a.x0 - b.x0) > EPS:
            return []
        low, high = max(a.y0, b.y0), min(a.y1, b.y1)
        if low > high + EPS:
            return []
        return sorted({(a.x0, low), (a.x0, high)})
    along, across = (a, b) if a.axis == ALONG else (b, a)
    x, y = across.x0, along.y0
    return [(x, y)] if along.contains(x, y) and across.contains(x, y) else []


def components(extents: Sequence[Extent]) -> list[list[Extent]]:
    """The groups of pathways that meet, directly or through others, largest first (a
    vertical manager, inside one rack, is in none)."""
    grid = [e for e in extents if e.axis != RACK]
    parent = list(range(len(grid)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(grid):
        for j in range(i + 1, len(grid)):
            if find(i) != find(j) and meetings(a, grid[j]):
                parent[find(j)] = find(i)
    groups: dict[int, list[Extent]] = {}
    for i, extent in enumerate(grid):
        groups.setdefault(find(i), []).append(extent)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0].index))
