"""The operations team's tables: cable schedule, power-cord schedule, bill of materials.

Each table is a list of rows (plain strings and numbers) built from the analysis,
so ``export --cables/--power/--bom`` and ``report`` count the same things; the
CSV writer follows RFC 4180 (fields with a comma, quote or line break in double
quotes, quotes doubled, CRLF at the end of every record), UTF-8 without a byte-order mark.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.cords import rack_cords
from rackdesigner.analysis.reach import form_of, link_tech, medium
from rackdesigner.analysis.stock import metres, stock_length
from rackdesigner.layout_io.catalog import Medium, part_for
from rackdesigner.model.layout import MEDIA
from rackdesigner.model.progress import each
from rackdesigner.model.spreadsheet import cells, needs_care
from rackdesigner.topology.structure import Wire, already, quick_links, wire_length

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts, End, LinkFacts
    from rackdesigner.analysis.plant import Cable
    from rackdesigner.export.registry import ExportContext, Output

CABLE_COLUMNS = (
    "cable_id",
    "a_rack",
    "a_u",
    "a_device",
    "a_port",
    "b_rack",
    "b_u",
    "b_device",
    "b_port",
    "media",
    "grade",
    "length_m",
    "stock_length_m",
    "label",
    # (v1.4) the cable plant
    "part",
    "route",
    "routed_by",
    "channel",
)
POWER_COLUMNS = (
    "device",
    "rack",
    "u",
    "psu",
    "side",
    "feed",
    "pdu",
    "outlet_type",
    "inlet_type",
    "cord",
)
BOM_COLUMNS = ("item", "model", "name", "kind", "count", "unit_cost_usd", "total_cost_usd")

MEDIA_NAMES = {
    "dac": "direct-attach copper cable",
    "acc": "active copper cable",
    "aoc": "active optical cable",
    "mmf": "multimode fibre patch cord",
    "smf": "single-mode fibre patch cord",
    "copper-rj45": "RJ45 copper patch cord",
    "unspecified": "cable of unspecified media",
}
MEDIA_ORDER = (*MEDIA, "unspecified")
# Fibre needs a transceiver at each end; the other media have theirs built in (or none).
OPTICAL = {"mmf": "multimode", "smf": "single-mode"}
# rules.md: a multimode link without grade is taken as OM4; single-mode is OS2.
DEFAULT_GRADE = {"mmf": "om4", "smf": "os2"}


def to_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """RFC 4180 CSV, UTF-8 without BOM, every record ended by CRLF (a line break inside
    a quoted field is kept as it is); None is an empty field; a text cell that a
    spreadsheet would run as a formula starts with ``'`` (:mod:`rackdesigner.model.spreadsheet`).

    Most rows need no quoting: they are joined as they are, and only a row whose joined
    text shows a comma too many, a quote or a line break goes through the csv module
    (150,000 cable rows: a fifth of the time).
    """
    out = io.StringIO(newline="")
    end = "\r\n"
    writer = csv.writer(out, lineterminator=end, quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    separators = len(columns) - 1
    lines: list[str] = [out.getvalue()[: -len(end)]]
    for row in rows:
        try:
            line = ",".join(row)
        except TypeError:  # numbers or None among the fields
            row = ["" if value is None else str(value) for value in row]
            line = ",".join(row)
        if (
            line.count(",") == separators
            and '"' not in line
            and "\n" not in line
            and "\r" not in line
            and not needs_care(line)
        ):
            lines.append(line)
            continue
        out.seek(0)
        out.truncate()
        writer.writerow(cells(row))
        lines.append(out.getvalue()[: -len(end)])
    lines.append("")
    return end.join(lines).encode("utf-8")


def _number(value: float | None, digits: int = 2) -> str:
    if value is None:
        return ""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text or "0"


# -- cables -------------------------------------------------------------------------------


def _routed_columns(analysis: Analysis, facts: LinkFacts) -> tuple[str, str, str, str, str]:
    """(v1.4) stock length, part, route, how it was routed and the channel's parts of one
    link, from the cable plant."""
    route = analysis.plant.route(facts)
    runs = route.runs
    if len(runs) == 1:
        run = runs[0]
        stock = "" if run.stock is None else metres(run.stock)
        return stock, run.part or "", run.route_text, run.how, ""
    parts = "; ".join(
        f"{run.name} {'?' if run.length is None else _number(run.length)} m"
        + (f" ({metres(run.stock)} m stock)" if run.stock is not None else "")
        for run in runs
    )
    how = "pathways" if route.routed and route.legs else runs[0].how
    return "", "", route.route_text, how, parts


def cable_rows(analysis: Analysis) -> list[tuple[str, ...]]:
    """One row per link, in the layout's order; ``cable_id`` is the link's ``a`` end.

    (v1.4) The stock length is the shortest of the link's part's stock lengths that fits
    (the media table's), and four columns say what the installer orders and pulls: the
    ``part`` at that length, the ``route`` (the pathways it runs in, in order), how the
    length was found (``routed_by``: pathways, rows, rack) and a channel's ``channel``
    parts (patch cord, trunk, patch cord, each with its length)."""
    rows: list[tuple[str, ...]] = []
    append = rows.append
    # A device's columns, a length's text and its stock length repeat: work each out once.
    places: dict[int, tuple[str, str, str]] = {}

    def device_columns(device: DeviceFacts) -> tuple[str, str, str]:
        place = places.get(id(device))
        if place is None:
            position = device.device.position
            place = places[id(device)] = (
                device.rack.id,
                "" if position is None else str(position),
                device.id,
            )
        return place

    def end_columns(end: End) -> tuple[str, str, str, str]:
        device = end.device
        if device is None:
            name, _, port = end.text.partition(":")
            return "", "", name, port
        return (*device_columns(device), end.text.partition(":")[2])

    layout = analysis.layout
    plant = bool(layout.pathways or layout.trunks)
    wires = None if plant or already(analysis, "links") else quick_links(analysis)
    if wires is not None:
        quick_rows(analysis, wires, device_columns, append)
        return rows
    for facts in each(analysis.links, "listing cables"):
        link = facts.link
        media = link.media or ""
        grade = link.grade or DEFAULT_GRADE.get(media, "")
        stock, part, route, how, channel = _routed_columns(analysis, facts)
        append(
            (
                link.a,
                *end_columns(facts.a),
                *end_columns(facts.b),
                media,
                grade,
                _number(facts.length),
                stock,
                f"{link.a} ↔ {link.b}",
                part,
                route,
                how,
                channel,
            )
        )
    return rows


def quick_rows(
    analysis: Analysis,
    wires: list[Wire],
    device_columns: Callable[[DeviceFacts], tuple[str, str, str]],
    append: Callable[[tuple[str, ...]], None],
) -> None:
    """The schedule's rows read the quick way (every end resolves, no cable plant): the
    same columns as the analysis's, without its link objects."""
    lengths: dict[tuple[float | None, tuple[float, ...]], tuple[str, str]] = {}
    shapes: dict[tuple[object, ...], Medium | None] = {}
    for wire in wires:
        link, da, db, pa, pb = wire[0], wire[1], wire[2], wire[3], wire[4]
        media = link.media or ""
        row = _quick_medium(link.media, link.grade, da, db, pa, pb, shapes)
        stocks = row.stock if row is not None else ()
        length = wire_length(analysis, wire)
        texts = lengths.get((length, stocks))
        if texts is None:
            stock = stock_length(length, stocks)
            texts = lengths[length, stocks] = (
                _number(length),
                "" if stock is None else metres(stock),
            )
        part = part_for(row, stock_length(length, stocks)) if row is not None else None
        append(
            (
                link.a,
                *device_columns(da),
                pa,
                *device_columns(db),
                pb,
                media,
                link.grade or DEFAULT_GRADE.get(media, ""),
                *texts,
                f"{link.a} ↔ {link.b}",
                part or "",
                "",
                "rack" if da.rack is db.rack else ("rows" if length is not None else ""),
                "",
            )
        )


def _quick_medium(
    media: str | None,
    grade: str | None,
    da: DeviceFacts,
    db: DeviceFacts,
    pa: str,
    pb: str,
    cache: dict[tuple[object, ...], Medium | None],
) -> Medium | None:
    """The media table's row of a wire (its media at its ends' speed, technology, form)."""
    if media is None:
        return None
    ga = da.ports.get(pa.rstrip("0123456789"))
    gb = db.ports.get(pb.rstrip("0123456789"))
    key = (media, grade, id(ga), id(gb), da.kind, db.kind)
    if key not in cache:
        speeds = [g.speed for g in (ga, gb) if g is not None and g.speed is not None]
        tech = link_tech(ga.tech if ga else None, gb.tech if gb else None)
        form = form_of(da.kind == "switch", db.kind == "switch")
        cache[key] = medium(media, min(speeds) if speeds else None, grade, form, tech)
    return cache[key]


# -- power cords --------------------------------------------------------------------------


def power_rows(analysis: Analysis) -> list[tuple[str, ...]]:
    """One row per cord; ``u`` is the device's position, ``door`` for the rack's rear door
    (it hangs on the frame, in no unit)."""
    rows: list[tuple[str, ...]] = []
    for rack in each(analysis.racks, "listing power cords"):
        door = rack.rack.door
        for cord in rack_cords(rack):
            position = cord.device.device.position
            door_text = "door" if cord.device.id == door else ""
            u = door_text if position is None else str(position)
            rows.append(
                (
                    cord.device.id,
                    rack.rack.id,
                    u,
                    "" if cord.psu is None else str(cord.psu),
                    cord.side,
                    cord.feed,
                    cord.pdu,
                    cord.outlet,
                    cord.inlet,
                    cord.cord,
                )
            )
    return rows


def cord_summary(analysis: Analysis) -> list[dict[str, Any]]:
    """Per rack: cords by side and outlet type, and devices whose PSU count is assumed."""
    summary = []
    for rack in analysis.racks:
        cords = rack_cords(rack)
        if not cords:
            continue
        by: dict[str, dict[str, int]] = {}
        for cord in cords:
            outlets = by.setdefault(cord.side, {})
            key = cord.outlet or "unknown"
            outlets[key] = outlets.get(key, 0) + 1
        summary.append(
            {
                "rack": rack.rack.id,
                "cords": len(cords),
                "by_side": by,
                "assumed_one_psu": sorted({c.device.id for c in cords if c.psu is None}),
            }
        )
    return summary


# -- bill of materials --------------------------------------------------------------------


def _speed_name(speed: float | None) -> str:
    if not speed:
        return "unknown-speed"
    return f"{speed / 1e9:g}g"


def device_items(analysis: Analysis) -> list[dict[str, Any]]:
    """The bill's devices by model: the only items with a price (the catalog has no cable
    or optic costs), so what the bill costs is theirs (``rackdesigner diff`` prices two
    layouts without walking their cables)."""
    items: list[dict[str, Any]] = []
    for key, devices in sorted(analysis.types_used.items()):
        dtype = devices[0].type
        assert dtype is not None
        unit = float(dtype.cost) if dtype.cost is not None else None
        items.append(
            {
                "item": "device",
                "model": key,
                "name": dtype.name or key,
                "kind": dtype.kind or "",
                "count": len(devices),
                "unit_cost": unit,
                "total": unit * len(devices) if unit is not None else None,
            }
        )
    return items


def bom_items(analysis: Analysis) -> list[dict[str, Any]]:
    """Devices by model (:func:`device_items`), then (v1.4) cables by part and stock length
    (a twin-port copper cable carries two links; a channel is two patch cords), trunks,
    cassettes, transceivers by part and cage style (a twin-port module carries two ports),
    and last the links by media: what the counts above carry, kept apart from them (a
    BasePOD's 64 compute links on DGX H100 are 32 twin-port modules at the nodes). Costs
    are None where unknown, never 0; cables and optics have none."""
    items = device_items(analysis)
    plant = analysis.plant
    items.extend(_cable_items(plant.cables()))
    items.extend(_trunk_items(analysis))
    items.extend(_optic_items(analysis))
    links: dict[str, int] = defaultdict(int)
    for facts in analysis.links:
        links[facts.link.media or "unspecified"] += 1
    for media, count in sorted(links.items(), key=lambda kv: _media_rank(kv[0])):
        items.append(
            _item(
                "links",
                f"links-{media}",
                f"links on {MEDIA_NAMES.get(media, media)}s (not a part: what the cables "
                "and transceivers above carry)",
                media,
                count,
            )
        )
    return items


def _item(item: str, model: str, name: str, kind: str, count: int) -> dict[str, Any]:
    return {
        "item": item,
        "model": model,
        "name": name,
        "kind": kind,
        "count": count,
        "unit_cost": None,
        "total": None,
    }


def _media_rank(media: str) -> int:
    return MEDIA_ORDER.index(media) if media in MEDIA_ORDER else len(MEDIA_ORDER)


def _cable_items(cables: Iterable[Cable]) -> list[dict[str, Any]]:
    counts: dict[tuple[str, str, float | None, str | None], int] = defaultdict(int)
    for cable in cables:
        counts[cable.media, cable.kind, cable.stock, cable.part] += 1
    out = []
    for (media, kind, stock, part), count in sorted(
        counts.items(),
        key=lambda kv: (_media_rank(kv[0][0]), kv[0][1], kv[0][2] is None, kv[0][2] or 0),
    ):
        run = "unknown length" if stock is None else f"{metres(stock)} m"
        what = MEDIA_NAMES.get(media, media)
        if kind == "cord":
            what += " (channel)"
        model = part or f"{media}-{'unknown' if stock is None else metres(stock) + 'm'}"
        out.append(_item("cable", model, f"{what}, {run}", media, count))
    return out


def _trunk_items(analysis: Analysis) -> list[dict[str, Any]]:
    """Trunks by fibre, count, connector and length; the cassettes at panels whose ports
    differ from the trunk's connector (one per trunk leg: an MPO-12 leg to LC duplex)."""
    from rackdesigner.analysis.channels import DEFAULT_TRUNK_CONNECTOR, fibres_per_link
    from rackdesigner.analysis.plant import trunk_stock

    trunks: dict[tuple[str, str, int, str, str], int] = defaultdict(int)
    cassettes: dict[tuple[str, str], int] = defaultdict(int)
    by_id = analysis.device_by_id
    for trunk, run in analysis.plant.trunk_runs():
        connector = trunk.connector or DEFAULT_TRUNK_CONNECTOR
        stock = trunk_stock(trunk, run)
        text = "unknown" if stock is None else metres(stock)
        grade = trunk.grade or DEFAULT_GRADE.get(trunk.media or "", "")
        trunks[trunk.media or "", grade, int(trunk.fibres or 0), connector, text] += 1
        legs = max(1, int(trunk.fibres or 0) // fibres_per_link(trunk))
        for panel_id in (trunk.a, trunk.b):
            panel = by_id.get(panel_id)
            fronts = {g.connector for g in panel.ports.values()} if panel is not None else set()
            front = next((c for c in sorted(c for c in fronts if c)), None)
            if front is not None and front != connector:
                cassettes[connector, front] += legs
    out = []
    for (media, grade, fibres, connector, text), count in sorted(trunks.items()):
        out.append(
            _item(
                "trunk",
                f"trunk-{media}-{fibres}f-{connector}-{text}m",
                f"{fibres}-fibre {grade.upper()} trunk, {connector.upper()} ends, {text} m",
                media,
                count,
            )
        )
    for (rear, front), count in sorted(cassettes.items()):
        out.append(
            _item(
                "cassette",
                f"cassette-{rear}-{front}",
                f"{rear.upper()} to {front.upper()} breakout cassette (one a trunk leg)",
                "patch-panel",
                count,
            )
        )
    return out


def _optic_items(analysis: Analysis) -> list[dict[str, Any]]:
    """Transceivers by part and cage style: one per module (a twin-port module takes two
    ports of one cage, counted once)."""
    plant = analysis.plant
    modules: dict[tuple[str, str, str | None], set[tuple[str, str, int]]] = defaultdict(set)
    names: dict[str, str] = {}
    for facts in analysis.links:
        media = facts.link.media
        if media not in OPTICAL:
            continue
        for optic in plant.optics(facts):
            if optic is None:
                continue
            modules[media, optic.part, optic.cage].add(optic.module)
            if optic.spec is not None and optic.spec.name:
                names[optic.part] = optic.spec.name
            elif optic.part not in names:
                speed = optic.part.rpartition("-")[2]
                twin = "twin-port " if optic.ports == 2 else ""
                names[optic.part] = f"{twin}{speed.upper()} {OPTICAL[media]} transceiver"
    out = []
    for (media, part, cage), found in sorted(
        modules.items(), key=lambda kv: (_media_rank(kv[0][0]), kv[0][1], kv[0][2] or "")
    ):
        named = part in plant.parts  # a table part's name says its top (finned, flat)
        name = names[part] + (f" ({cage})" if cage and not named else "")
        out.append(_item("optic", part, name, media, len(found)))
    return out


def bom_rows(analysis: Analysis) -> list[tuple[Any, ...]]:
    return [
        (
            item["item"],
            item["model"],
            item["name"],
            item["kind"],
            item["count"],
            _number(item["unit_cost"]),
            _number(item["total"]),
        )
        for item in bom_items(analysis)
    ]


# -- export entry points (registered in registry.KINDS) ------------------------------------


def export_cables(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import Output

    return [Output(path, to_csv(CABLE_COLUMNS, cable_rows(context.analysis)))]


def export_power(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import Output

    return [Output(path, to_csv(POWER_COLUMNS, power_rows(context.analysis)))]


def export_bom(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import Output

    return [Output(path, to_csv(BOM_COLUMNS, bom_rows(context.analysis)))]
