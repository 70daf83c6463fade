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
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.cords import rack_cords
from rackdesigner.analysis.reach import TWIN_PORT_BANDS, medium, speed_band
from rackdesigner.analysis.stock import metres, stock_length
from rackdesigner.model.layout import MEDIA
from rackdesigner.model.progress import each
from rackdesigner.model.spreadsheet import cells, needs_care
from rackdesigner.rules.cabling._common import link_form, link_tech
from rackdesigner.topology.structure import already, quick_links, wire_length

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts, End
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


def cable_rows(analysis: Analysis) -> list[tuple[str, ...]]:
    """One row per link, in the layout's order; ``cable_id`` is the link's ``a`` end."""
    rows: list[tuple[str, ...]] = []
    append = rows.append
    # A device's columns, a length's text and its stock length repeat: work each out once.
    places: dict[int, tuple[str, str, str]] = {}
    lengths: dict[float | None, tuple[str, str]] = {}

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

    def length_texts(length: float | None) -> tuple[str, str]:
        texts = lengths.get(length)
        if texts is None:
            stock = stock_length(length)
            texts = lengths[length] = (_number(length), "" if stock is None else metres(stock))
        return texts

    wires = None if already(analysis, "links") else quick_links(analysis)
    if wires is not None:
        # Every end resolves: read devices and ports without the analysis's link objects.
        for wire in wires:
            link, da, db, pa, pb = wire[0], wire[1], wire[2], wire[3], wire[4]
            media = link.media or ""
            append(
                (
                    link.a,
                    *device_columns(da),
                    pa,
                    *device_columns(db),
                    pb,
                    media,
                    link.grade or DEFAULT_GRADE.get(media, ""),
                    *length_texts(wire_length(analysis, wire)),
                    f"{link.a} ↔ {link.b}",
                )
            )
        return rows
    for facts in each(analysis.links, "listing cables"):
        link = facts.link
        media = link.media or ""
        grade = link.grade or DEFAULT_GRADE.get(media, "")
        append(
            (
                link.a,
                *end_columns(facts.a),
                *end_columns(facts.b),
                media,
                grade,
                *length_texts(facts.length),
                f"{link.a} ↔ {link.b}",
            )
        )
    return rows


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
    """Devices by model (:func:`device_items`), then cables by media and stock length, then
    optics by media and speed: at 400G and more one twin-port module per two ports of a
    switch and one per adapter port (a node), named by the media table's part; else one per
    end. Costs are None where unknown, never 0; cables and optics have none."""
    items = device_items(analysis)
    cables: dict[tuple[str, float | None], int] = defaultdict(int)
    # (media, speed, part or None, twin-port) -> modules; twin-port switch ends count
    # ports per switch first: one module takes two ports of a cage (media.toml)
    optics: dict[tuple[str, float | None, str | None, bool], int] = defaultdict(int)
    twin_ports: dict[tuple[str, float | None, str | None, str], int] = defaultdict(int)
    stock_of: dict[float | None, float | None] = {}  # lengths repeat across a regular hall
    for facts in analysis.links:
        media = facts.link.media or "unspecified"
        length = facts.length
        stock = stock_of.get(length, -1.0)
        if stock == -1.0:
            stock = stock_of[length] = stock_length(length)
        cables[media, stock] += 1
        if media in OPTICAL:
            form = link_form(facts)
            tech = link_tech(facts)  # 800G InfiniBand: XDR's modules (MMS4A00-XM, ...)
            row = medium(media, facts.speed, facts.link.grade, form, tech)
            for end in (facts.a, facts.b):
                speed = end.group.speed if end.group is not None else None
                switch = end.device is not None and end.device.kind == "switch"
                if switch and row is not None and speed_band(speed, tech) in TWIN_PORT_BANDS:
                    part = row.switch_transceiver
                    assert end.device is not None
                    twin_ports[media, speed, part, end.device.id] += 1
                elif row is not None:
                    part = row.switch_transceiver if switch else row.adapter_transceiver
                    optics[media, speed, part, False] += 1
                else:
                    optics[media, speed, None, False] += 1
    for (media, speed, part, _device), ports in twin_ports.items():
        optics[media, speed, part, True] += -(-ports // 2)

    def media_rank(media: str) -> int:
        return MEDIA_ORDER.index(media) if media in MEDIA_ORDER else len(MEDIA_ORDER)

    for (media, stock), count in sorted(
        cables.items(), key=lambda kv: (media_rank(kv[0][0]), kv[0][1] is None, kv[0][1] or 0)
    ):
        run = "unknown length" if stock is None else f"{metres(stock)} m"
        items.append(
            {
                "item": "cable",
                "model": f"{media}-{'unknown' if stock is None else metres(stock) + 'm'}",
                "name": f"{MEDIA_NAMES.get(media, media)}, {run}",
                "kind": media,
                "count": count,
                "unit_cost": None,
                "total": None,
            }
        )
    for (media, speed, part, twin), count in sorted(
        optics.items(),
        key=lambda kv: (media_rank(kv[0][0]), kv[0][1] or 0, not kv[0][3], kv[0][2] or ""),
    ):
        rate = "unknown-speed" if not speed else f"{speed / 1e9:g}G"
        name = f"{rate} {OPTICAL[media]} transceiver"
        if twin:
            name = f"twin-port 2x{rate} {OPTICAL[media]} transceiver (two switch ports)"
        items.append(
            {
                "item": "optic",
                "model": part or f"{media}-transceiver-{_speed_name(speed)}",
                "name": name,
                "kind": media,
                "count": count,
                "unit_cost": None,
                "total": None,
            }
        )
    return items


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
