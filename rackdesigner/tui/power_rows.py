"""The power view's lines (no Textual): the chain's elements as a tree from the sources
down, each with its load of its rating, margin, worst single failure and what its loss
takes down, in the words and figures of ``rackdesigner report``
(:mod:`rackdesigner.report.power_chain`, the one home of them).

The tree follows each element's normal source (the first of its ``fed_by``); an element
with others says so (``also gen-a``), as a transfer switch does. Built off the app's
thread (``checking.build_view``), like the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

# The share of its rating above which an element is marked (the floor plan's feed bars).
HIGH_USE = 0.8


@dataclass(frozen=True, slots=True)
class ChainLine:
    """One element, as the view draws it."""

    id: str
    kind: str
    prefix: str  # the tree's lines before the id ("│ ├ ")
    use: float | None  # load ÷ rating (None: no rating)
    load: str  # "319 kW"
    rating: str  # "900 kW" or "–"
    margin: str
    peak: str
    worst: str  # "ats ats-b: 637 kW, margin 263 kW" or "–"
    worst_over: bool  # its worst single failure puts it over its rating
    lost: str  # "512 GPUs on one path"
    also: str  # its other sources ("gen-a"), "" for none
    rack: str | None  # the first rack it feeds (enter opens it)

    @property
    def level(self) -> str | None:
        """``error`` over its rating (now, or after its worst single failure), ``warning``
        above :data:`HIGH_USE` of it, else None."""
        if (self.use is not None and self.use > 1.0 + 1e-9) or self.worst_over:
            return "error"
        if self.use is not None and self.use > HIGH_USE:
            return "warning"
        return None


@dataclass(slots=True)
class ChainView:
    """The view's data: the lines in tree order and what the heading says."""

    lines: list[ChainLine] = field(default_factory=list)
    factor: str = ""  # the transient peak factor used, and where it comes from
    over: int = 0  # elements over their rating now
    fragile: int = 0  # elements a single failure puts over their rating
    racks_on: int = 0
    racks_off: int = 0


def chain_view(analysis: Analysis) -> ChainView:
    """The chain of ``analysis`` as the power view shows it (empty: no chain declared)."""
    from rackdesigner.report.power_chain import power_chain_section, power_chain_table

    section = power_chain_section(analysis)
    if not section:
        return ChainView()
    chain = analysis.power_chain
    _, table = power_chain_table(section)
    by_id = {row["id"]: (row, cells) for row, cells in zip(section, table[1:], strict=True)}
    first_rack = _first_racks(analysis)
    view = ChainView(factor=section[0]["peak_factor"], racks_on=len(chain.racks))
    view.racks_off = len(analysis.racks) - view.racks_on
    for ident, prefix in _tree(section):
        row, cells = by_id[ident]
        worst = row["worst_failure"]
        line = ChainLine(
            id=ident,
            kind=row["kind"],
            prefix=prefix,
            use=row["utilisation"],
            load=cells[2],
            rating=cells[4],
            margin=cells[5],
            peak=cells[3],
            worst=cells[6],
            worst_over=worst is not None and (worst["margin_kw"] or 0.0) < 0,
            lost=cells[7],
            also=", ".join(row["fed_by"][1:]),
            rack=first_rack.get(ident),
        )
        view.over += line.use is not None and line.use > 1.0 + 1e-9
        view.fragile += line.worst_over
        view.lines.append(line)
    return view


def _tree(section: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(id, prefix) in tree order: the sources in file order, each element under its
    normal source (its first ``fed_by``), children in file order."""
    ids = {row["id"] for row in section}
    children: dict[str, list[str]] = {}
    roots = []
    for row in section:
        parents = [p for p in row["fed_by"] if p in ids]
        if parents:
            children.setdefault(parents[0], []).append(row["id"])
        else:
            roots.append(row["id"])
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def walk(ident: str, lead: str, last: bool, top: bool) -> None:
        if ident in seen:  # a cycle is refused at load; never walk one
            return
        seen.add(ident)
        out.append((ident, "" if top else lead + ("└ " if last else "├ ")))
        below = children.get(ident, [])
        inner = "" if top else lead + ("  " if last else "│ ")
        for number, child in enumerate(below):
            walk(child, inner, number == len(below) - 1, False)

    for root in roots:
        walk(root, "", True, True)
    out.extend((row["id"], "") for row in section if row["id"] not in seen)
    return out


def _first_racks(analysis: Analysis) -> dict[str, str]:
    """Each element's first rack (in layout order) among those hanging below it."""
    chain = analysis.power_chain
    out: dict[str, str] = {}
    for rack in chain.racks:
        rack_id = analysis.racks[rack.rack].rack.id
        for index in chain.rack_elements(rack.rack):
            out.setdefault(chain.elements[index].id, rack_id)
    return out
