"""(v1.4) Pull sheets: what an installer pulls, sheet by sheet, in the order the work goes
(``export --pull-sheets DIR``, the print pack's ``pulls`` pages).

One **sheet** per pathway, or per pair of racks where no pathway joins them (a rack alone
for what runs inside it). Every physical run is on exactly one sheet, so the sheets add up
to the bill: a cable, a channel's patch cord, a trunk (a twin-port copper cable carrying two
links is one run). A run goes on the sheet of the pathway it lies in longest (its "street":
where the pull is laid; the pathways it turns into are in its ``route``), else on its racks'.

On a sheet, runs are grouped into **pulls**: the runs between the same two racks, which
share their route and are pulled as one bundle ("scheduling multiple cable runs to be
pulled at one time will reduce labor costs", Cabling Installation & Maintenance,
"Pre-planning the cable pull", 1996). The order, our decision (no standard prescribes
one):

1. trunks first, then cables, then patch cords: the backbone is laid before the cables
   and cords that branch off it (the "streets and avenues" of Bridge Cable's installers'
   tips, https://www.bridgecable.com/structured-cabling-tips/), and patch cords go in last,
   into panels and equipment already in place;
2. pulls longest first: a long bundle laid first lies under the shorter ones, which leave
   the tray before it and so never have to be pulled out from under it;
3. within a pull, by destination (the far rack's devices in file order, port by port), so
   the far end is worked along its rack; every run is written from its ``a`` end (a node's
   or a leaf's, as the generators write links) to its ``b`` end: "start at the nodes of
   the fabric ... and work toward the switch" (Oracle InfiniBand Switch IS2-46
   Installation Guide, Route the Cables).

Sheets are numbered in the layout's order of pathways, then the rack pairs' in the order of
their racks; the files are named by number so they list in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis.plant import IN_RACK, Run, trunk_stock
from rackdesigner.analysis.stock import metres
from rackdesigner.export.labels import Identifiers

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts, End
    from rackdesigner.export.registry import ExportContext, Output
    from rackdesigner.model.layout import Rack

PULL_COLUMNS = (
    "step",
    "pull",
    "kind",
    "cable",
    "from_rack",
    "from_u",
    "from_port",
    "to_rack",
    "to_u",
    "to_port",
    "media",
    "part",
    "length_m",
    "stock_length_m",
    "route",
    "label",
)
INDEX_COLUMNS = (
    "sheet",
    "file",
    "where",
    "what",
    "runs",
    "pulls",
    "length_m",
    "stock_length_m",
)
KIND_ORDER = {"trunk": 0, "cable": 1, "cord": 2}
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True, slots=True)
class Pull:
    """One physical run to pull: a cable, a patch cord or a trunk, end to end."""

    kind: str  # "trunk" | "cable" | "cord"
    cable: str  # the link's a end (as the cable schedule), two joined by " + ", a trunk's id
    a: DeviceFacts | None
    a_port: str
    b: DeviceFacts | None
    b_port: str
    media: str
    run: Run
    label: str
    # Where it goes, then where it comes from: each end's device (file order) and port.
    order: tuple[object, ...] = ()

    @property
    def length(self) -> float:
        return self.run.length or 0.0


@dataclass(slots=True)
class Sheet:
    """One sheet: the pathway (or racks) its runs are laid in, and its pulls in order."""

    key: tuple[object, ...]  # (0, pathway index) | (1, rack index a, rack index b)
    where: str  # the pathway's id, "a03 ↔ a07", "rack a03"
    what: str  # the pathway's label or kind; how the runs are measured without one
    pulls: list[list[Pull]] = field(default_factory=list)
    pending: list[Pull] = field(default_factory=list)

    @property
    def runs(self) -> list[Pull]:
        return [run for pull in self.pulls for run in pull]

    @property
    def length(self) -> float:
        return sum(run.length for pull in self.pulls for run in pull)

    @property
    def stock(self) -> float:
        return sum(run.run.stock or 0.0 for pull in self.pulls for run in pull)

    def file_name(self, number: int, width: int) -> str:
        """``003-tray-a.csv``: numbered in the order of the work, then where."""
        stem = _SAFE.sub("_", self.where.replace(" ↔ ", "--").replace("rack ", ""))
        return f"{number:0{width}d}-{stem}.csv"


def _longest_pathway(run: Run) -> str | None:
    """The pathway a run lies in longest (the first of equals), or None."""
    along: dict[str, float] = {}
    for leg in run.legs:
        along[leg.pathway] = along.get(leg.pathway, 0.0) + leg.length
    if not along:
        return None
    best = max(along.values())
    return next(name for name, length in along.items() if length >= best - 1e-9)


class _Sheets:
    """The sheets being filled, by pathway or by rack pair."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        graph = analysis.pathway_graph
        self.pathways = {p.id: (i, p) for i, p in enumerate(graph.pathways)} if graph else {}
        self.by_key: dict[tuple[object, ...], Sheet] = {}
        self.rack_index = {id(r.rack): r.index for r in analysis.racks}

    def sheet_for(self, pull: Pull) -> Sheet:
        pathway = _longest_pathway(pull.run)
        if pathway is not None and pathway in self.pathways:
            index, declared = self.pathways[pathway]
            key: tuple[object, ...] = (0, index)
            where = declared.id
            what = declared.label or declared.kind_name.replace("-", " ")
        else:
            a = pull.a.rack if pull.a is not None else None
            b = pull.b.rack if pull.b is not None else None
            key, where, what = self._racks(a, b, pull.run.how == IN_RACK)
        found = self.by_key.get(key)
        if found is None:
            found = self.by_key[key] = Sheet(key, where, what)
        found.pending.append(pull)
        return found

    def _racks(
        self, a: Rack | None, b: Rack | None, inside: bool
    ) -> tuple[tuple[object, ...], str, str]:
        if a is None or b is None:
            return (2,), "unplaced", "runs whose ends are in no rack or no place"
        ia, ib = self.rack_index[id(a)], self.rack_index[id(b)]
        if ia > ib:
            a, b, ia, ib = b, a, ib, ia
        if a is b:
            return (1, ia, ib), f"rack {a.id}", "inside the rack"
        if inside:
            how = ""
        elif self.pathways:
            how = "no pathway joins them: measured along the rows"
        else:
            how = "measured along the rows (the layout declares no pathways)"
        return (1, ia, ib), f"{a.id} ↔ {b.id}", how


def _pull_key(pull: Pull) -> tuple[object, ...]:
    """The runs one pull bundles: one kind between the same two racks (either way)."""
    a = pull.a.rack_index if pull.a is not None else -1
    b = pull.b.rack_index if pull.b is not None else -1
    return (pull.kind, min(a, b), max(a, b))


def _destination(pull: Pull) -> tuple[object, ...]:
    return (*pull.order, pull.cable)


def _end_order(end: End | None, device: DeviceFacts | None) -> tuple[object, ...]:
    """An end's place: its device in file order, its port group and number."""
    order = device.order if device is not None else 1 << 30
    if end is None:
        return (order, "", 0)
    group = end.group.name if end.group is not None else end.port
    return (order, group, end.index)


def _order(sheet: Sheet) -> None:
    """Pulls: trunks, cables, cords; each kind longest first; runs by destination."""
    groups: dict[tuple[object, ...], list[Pull]] = {}
    for pull in sheet.pending:
        groups.setdefault(_pull_key(pull), []).append(pull)
    bundles = [sorted(runs, key=_destination) for runs in groups.values()]
    bundles.sort(
        key=lambda runs: (
            KIND_ORDER.get(runs[0].kind, 3),
            -round(max(run.length for run in runs), 6),
            _destination(runs[0]),
        )
    )
    sheet.pulls = bundles
    sheet.pending = []


def _pulls(analysis: Analysis, names: Identifiers) -> list[Pull]:
    """Every physical run: the cables and cords of the plant's bill, and the trunks."""
    from rackdesigner.analysis.channels import channel_of

    out: list[Pull] = []
    for cable in analysis.plant.cables():
        run = cable.run
        if run is None:
            continue
        first = cable.links[0]
        if len(cable.links) == 1:
            ident = first.link.a
        else:
            ident = " + ".join([facts.link.a for facts in cable.links])
        a_end: End = first.a
        b_end: End = first.b
        if cable.kind == "cord":
            channel = channel_of(first)
            if channel is None:
                continue
            if cable.end == "a":
                b_end = channel.panel_a
            else:
                a_end = channel.panel_b
        near, far = names.end(a_end), names.end(b_end)
        out.append(
            Pull(
                cable.kind,
                ident,
                a_end.device,
                a_end.port,
                b_end.device,
                b_end.port,
                cable.media,
                run,
                f"{near}/{far}",
                (*_end_order(b_end, b_end.device), *_end_order(a_end, a_end.device)),
            )
        )
    by_id = analysis.device_by_id
    for trunk, run in analysis.plant.trunk_runs():
        pa, pb = by_id[trunk.a], by_id[trunk.b]
        label = f"{names.device(pa)}/{names.device(pb)}"
        ordered = replace(run, stock=trunk_stock(trunk, run))
        order = (*_end_order(None, pb), *_end_order(None, pa))
        media = trunk.media or ""
        out.append(Pull("trunk", trunk.id, pa, "", pb, "", media, ordered, label, order))
    return out


def sheets(analysis: Analysis) -> list[Sheet]:
    """The pull sheets, in the order of the work (see the module's docstring)."""
    names = Identifiers(analysis)
    filling = _Sheets(analysis)
    for pull in _pulls(analysis, names):
        filling.sheet_for(pull)
    found = sorted(filling.by_key.values(), key=lambda s: s.key)
    for sheet in found:
        _order(sheet)
    return found


def _number(value: float | None) -> str:
    if value is None:
        return ""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _place(device: DeviceFacts | None, port: str) -> tuple[str, str, str]:
    if device is None:
        return "", "", port
    position = device.device.position
    where = f"{device.id}:{port}" if port else device.id
    return device.rack.id, "" if position is None else str(position), where


def sheet_rows(sheet: Sheet) -> list[tuple[str, ...]]:
    """A sheet's rows: step, pull and the run, end to end."""
    rows: list[tuple[str, ...]] = []
    step = 0
    for number, pull in enumerate(sheet.pulls, 1):
        for run in pull:
            step += 1
            stock = run.run.stock
            rows.append(
                (
                    str(step),
                    str(number),
                    run.kind,
                    run.cable,
                    *_place(run.a, run.a_port),
                    *_place(run.b, run.b_port),
                    run.media,
                    run.run.part or "",
                    _number(run.run.length),
                    "" if stock is None else metres(stock),
                    run.run.route_text,
                    run.label,
                )
            )
    return rows


def index_rows(found: list[Sheet]) -> list[tuple[str, ...]]:
    width = max(3, len(str(len(found))))
    return [
        (
            str(number),
            sheet.file_name(number, width),
            sheet.where,
            sheet.what,
            str(len(sheet.runs)),
            str(len(sheet.pulls)),
            _number(sheet.length),
            _number(sheet.stock),
        )
        for number, sheet in enumerate(found, 1)
    ]


def export_pull_sheets(context: ExportContext, path: Path) -> list[Output]:
    """``DIR/index.csv`` (the sheets in order, what each holds) and one CSV per sheet."""
    from rackdesigner.export.registry import ExportError, Output
    from rackdesigner.export.tables import to_csv

    if path.exists() and not path.is_dir():
        raise ExportError(f"--pull-sheets {path}: not a directory")
    found = sheets(context.analysis)
    index = index_rows(found)
    outputs = [Output(path / "index.csv", to_csv(INDEX_COLUMNS, index))]
    for row, sheet in zip(index, found, strict=True):
        outputs.append(Output(path / row[1], to_csv(PULL_COLUMNS, sheet_rows(sheet))))
    return outputs
