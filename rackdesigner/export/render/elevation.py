"""Rack elevations: every rack's front and rear, side by side, on one sheet or one file each.

Painted in layers, as NetBox's ``dcim/svg/racks.py`` does (frame and empty units, then the
devices, then marks), with every dimension in :class:`Geometry` and every colour in CSS
classes. Unlike NetBox it draws both faces in one document, a full-depth device as blocked
on the face it does not mount on, 0U devices (PDUs, manifolds) on the side rails, U numbers
on both rails, findings by severity, and a header with the rack's figures; it links to
nothing and embeds no images, so a file stands alone.

Repeated things are defined once: the frame with its empty units and U numbers per rack
height, and each device type's body per height (``<symbol>``, placed with ``<use>``); fills
come from the class of the group around a device, which the body inherits. One pass over
the racks writes the sheet.

Views: the front as seen from the cold aisle, the rear as seen from the hot aisle, so the
rack's left rail is on the right of the rear view. 0U devices are drawn on the rear view,
where their side channels are serviced; rear doors as a band around the rear view.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
from rackdesigner.analysis.weight import rack_weight
from rackdesigner.export.render import svg
from rackdesigner.export.render.findings import Marks, by_subject
from rackdesigner.export.render.palette import (
    KIND_LABELS,
    PART_LABELS,
    PART_MARKS,
    SEVERITY_SYMBOLS,
    drawn_kind,
)
from rackdesigner.export.render.svg import SEVERITY_CLASS, clip, kind_class, kw, named, num, text
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.progress import each

# A rack-scale part's marks: (from the body's right edge, step, count, (width, height,
# top within the unit, corner radius)); elevation kinds of palette.py, whose PART_MARKS
# counts them for the designer too.
_BODY_MARKS: dict[str, tuple[int, int, int, tuple[int, int, int, int]]] = {
    "nvl-compute": (42, 9, PART_MARKS["nvl-compute"][1], (7, 6, 4, 0)),
    "nvl-switch": (24, 10, PART_MARKS["nvl-switch"][1], (8, 8, 3, 1)),
    "power-shelf": (46, 7, PART_MARKS["power-shelf"][1], (5, 8, 3, 0)),
}


@dataclass(frozen=True, slots=True)
class Geometry:
    """Every dimension of an elevation, in px of the drawing."""

    unit: int = 14  # one rack unit
    body: int = 132  # a device's width
    rail: int = 18  # the rails with U numbers, each side
    zero: int = 12  # the side channel outside each rail, for 0U devices
    face_gap: int = 14  # between the front and rear view of one rack
    rack_gap: int = 30  # between racks
    header: int = 70  # the rack's header, above the views
    caption: int = 18  # FRONT / REAR
    footer: int = 14  # a line below the views (the rear door, devices in no unit)
    char: float = 6.02  # advance of one 10 px monospaced character
    char_small: float = 4.82  # ... of an 8 px one

    @property
    def face(self) -> int:
        return 2 * (self.zero + self.rail) + self.body

    @property
    def pair(self) -> int:
        return 2 * self.face + self.face_gap

    @property
    def pitch(self) -> int:
        return self.pair + self.rack_gap

    @property
    def body_x(self) -> int:
        return self.zero + self.rail

    def span(self, rack_units: int, position: int, height: int) -> tuple[int, int]:
        """Top y and height in px of ``height`` units from ``position`` (1 = the bottom
        unit), measured from the top of the rack's highest unit."""
        top_unit = position + height - 1
        return (rack_units - top_unit) * self.unit, height * self.unit


GEOMETRY = Geometry()
# Width at the right of a body taken by its drawing (vents, ports), kept free of the label.
_DECOR = {"blank": 42, "patch-panel": 52, "nvl-compute": 42, "nvl-switch": 24, "power-shelf": 46}
# The rear of a liquid-cooled rack: a supply and a return manifold down its sides (px wide,
# inside the body's width), and the labels of what they cover moved in by as much.
MANIFOLD = 5
BUSBAR = 8  # the DC busbar down the middle of a rack-scale rack's rear
# Kinds that draw no power of their own: their tooltips show no "0.0 kW".
_PASSIVE = ("pdu", "blank", "patch-panel", "rear-door")
PER_LINE = 36  # racks on one line of a sheet; a longer row of the hall wraps, balanced


@dataclass(slots=True)
class Placed:
    """A device with units: where it is drawn and what blocks the other face."""

    dev: DeviceFacts
    kind: str
    position: int
    height: int  # units drawn (cut at the rack top)
    face: str  # the face it mounts on
    full: bool  # full depth: blocks the other face
    note: str = ""  # "extends above the rack top"


@dataclass(slots=True)
class RackPlan:
    facts: RackFacts
    units: int
    placed: list[Placed] = field(default_factory=list)
    sides: dict[str, list[DeviceFacts]] = field(default_factory=lambda: {"left": [], "right": []})
    doors: list[DeviceFacts] = field(default_factory=list)
    loose: list[tuple[DeviceFacts, str]] = field(default_factory=list)  # (device, why)
    busbars: list[DeviceFacts] = field(default_factory=list)  # 0 U, down the rear's middle
    manifolds: bool = False  # liquid to cold plates: supply and return down the rear

    def span(
        self, kinds: tuple[str, ...] = ("nvl-compute", "nvl-switch", "power-shelf")
    ) -> tuple[int, int] | None:
        """The lowest and highest unit of the devices drawn as ``kinds`` (by default the
        rack-scale parts: trays and power shelves)."""
        units = [
            u
            for p in self.placed
            if p.kind in kinds
            for u in (p.position, p.position + p.height - 1)
        ]
        return (min(units), max(units)) if units else None

    def count(self, kind: str) -> int:
        return sum(1 for p in self.placed if p.kind == kind)

    @property
    def footer_lines(self) -> int:
        return (1 if self.doors else 0) + (1 if self.loose else 0)


_TRAYS = ("nvl-compute", "nvl-switch")  # the NVLink domain's trays


def plan_rack(facts: RackFacts) -> RackPlan:
    """Sort a rack's devices into units, side channels, doors, busbars and those in no unit."""
    units = max(1, round(facts.rack.height_u))
    plan = RackPlan(facts, units)
    plan.manifolds = facts.cooling == "liquid" and facts.loop_heat > 0
    alternate = 0
    for dev in facts.devices:
        dtype = dev.type
        kind = drawn_kind(dtype)
        height = dev.height_u if dtype is not None else 1.0
        if dtype is not None and height <= 0:
            if kind == "rear-door":
                plan.doors.append(dev)
                continue
            if kind == "busbar":
                plan.busbars.append(dev)
                continue
            side = dev.device.side
            if side not in ("left", "right"):
                side = ("left", "right")[alternate % 2]
                alternate += 1
            plan.sides[side].append(dev)
            continue
        position = dev.device.position
        h = max(1, round(height))
        if position is None:
            plan.loose.append((dev, "no position"))
            continue
        if position > units or position < 1:
            plan.loose.append((dev, f"U{position}, above the {units} U rack"))
            continue
        note = ""
        if position + h - 1 > units:
            note = f"extends above U{units}, the rack top"
            h = units - position + 1
        face = dev.device.face if dev.device.face in ("front", "rear") else "front"
        full = dtype.full_depth if dtype is not None else True
        plan.placed.append(Placed(dev, kind, position, h, face, full, note))
    return plan


class _Symbols:
    """``<symbol>`` definitions made on first use: frames per rack height and face, bodies
    per (model, height), blocked units and finding outlines per height. Ids come from first
    use in the drawing's own order, so the same layout gives the same ids. Bodies are drawn
    at the body's x inside a face, so a device needs no transform of its own."""

    def __init__(self, g: Geometry):
        self.g = g
        self.defs: list[str] = []
        self.ids: dict[tuple[object, ...], str] = {}

    def frame(self, units: int, face: str) -> str:
        key = ("frame", units, face)
        found = self.ids.get(key)
        if found:
            return found
        g = self.g
        ident = self.ids[key] = f"{face[0]}{units}"
        height = units * g.unit
        bx = g.body_x
        right_rail = bx + g.body
        grid = "".join(f"M{bx} {i * g.unit}h{g.body}" for i in range(1, units))
        # One text per number, centred on its rail by its own width. (One text per rail
        # with a position per character drew faster in cairosvg, but librsvg, and the
        # viewers and converters built on it, ignores the per-character positions and
        # piled every number at the top.) The frame is a symbol: written once per height.
        numbers = []
        for rail_x in (g.zero, right_rail):
            for u in range(units, 0, -1):
                label = str(u)
                y = num((units - u) * g.unit + g.unit / 2 + 3)
                left = num(rail_x + g.rail / 2 - len(label) * g.char_small / 2)
                numbers.append(f'<text x="{left}" y="{y}">{label}</text>')
        caption = "FRONT" if face == "front" else "REAR (from behind)"
        self.defs.append(
            f'<symbol id="{ident}" overflow="visible">'
            f'<text class="sm mu" x="{bx}" y="-11">{caption}</text>'
            f'<rect class="fr" x="{g.zero - 2}" y="-3" width="{2 * g.rail + g.body + 4}" '
            f'height="{height + 6}"/>'
            f'<rect class="rl" x="{g.zero}" width="{g.rail}" height="{height}"/>'
            f'<rect class="rl" x="{right_rail}" width="{g.rail}" height="{height}"/>'
            f'<rect class="sl" x="{bx}" width="{g.body}" height="{height}"/>'
            f'<path class="grid" d="{grid}"/>'
            f'<g class="un">{"".join(numbers)}</g></symbol>\n'
        )
        return ident

    def body(self, model: str, kind: str, height: int) -> str:
        key = ("body", model, height)
        found = self.ids.get(key)
        if found:
            return found
        g = self.g
        ident = self.ids[key] = f"m{len(self.ids)}"
        h = num(height * g.unit - 1)
        w = g.body
        x = g.body_x
        parts = [f'<rect class="b" x="{x}" y=".5" width="{w}" height="{h}" rx="1"/>']
        if kind == "blank":
            # Vents at the right of the panel, two per unit.
            vents = "".join(
                f"M{x + w - 40} {u * g.unit + y}h30" for u in range(height) for y in (5, 9)
            )
            parts.append(f'<path class="ven" d="{vents}"/>')
        elif kind == "patch-panel":
            ports = "".join(
                f'<rect class="prt" x="{px}" y="{u * g.unit + 9}" width="4" height="3"/>'
                for u in range(height)
                for px in range(x + w - 50, x + w - 8, 7)
            )
            parts.append(ports)
        elif kind in _BODY_MARKS:
            # Four GPUs to a compute tray (two GB200 superchips), two NVLink switch chips to
            # a switch tray, six PSUs to a power shelf: marks at the right of each unit.
            right, step, count, (mw, mh, top, rx) = _BODY_MARKS[kind]
            round_ = f' rx="{rx}"' if rx else ""
            parts.append(
                "".join(
                    f'<rect class="prt" x="{x + w - right + step * i}" y="{u * g.unit + top}" '
                    f'width="{mw}" height="{mh}"{round_}/>'
                    for u in range(height)
                    for i in range(count)
                )
            )
        if kind not in ("blank", "patch-panel"):
            # Rack ears: it reads as equipment, and adjacent devices stay apart.
            parts.append(f'<rect class="ear" x="{x}" y=".5" width="4" height="{h}"/>')
            parts.append(f'<rect class="ear" x="{x + w - 4}" y=".5" width="4" height="{h}"/>')
        self.defs.append(f'<symbol id="{ident}" overflow="visible">{"".join(parts)}</symbol>\n')
        return ident

    def blocked(self, height: int) -> str:
        key = ("blocked", height)
        found = self.ids.get(key)
        if found:
            return found
        g = self.g
        ident = self.ids[key] = f"x{height}"
        self.defs.append(
            f'<symbol id="{ident}" overflow="visible"><rect class="bk" x="{g.body_x}" y=".5" '
            f'width="{g.body}" height="{num(height * g.unit - 1)}"/></symbol>\n'
        )
        return ident

    def channel(self, length: float) -> str:
        """The body of a 0U device in a side channel, ``length`` px long."""
        key = ("channel", num(length))
        found = self.ids.get(key)
        if found:
            return found
        ident = self.ids[key] = f"z{len(self.ids)}"
        self.defs.append(
            f'<symbol id="{ident}" overflow="visible"><rect class="b" '
            f'width="{self.g.zero - 2}" height="{num(length)}" rx="1"/></symbol>\n'
        )
        return ident

    def outline(self, severity: str, height: int) -> str:
        """A finding's outline around a body of ``height`` units, with its severity mark."""
        sev = SEVERITY_CLASS[severity]
        key = ("outline", sev, height)
        found = self.ids.get(key)
        if found:
            return found
        g = self.g
        ident = self.ids[key] = f"o{sev}{height}"
        self.defs.append(
            f'<symbol id="{ident}" overflow="visible"><rect class="f{sev}" x="{g.body_x - 1}" '
            f'y="-.5" width="{g.body + 2}" height="{height * g.unit + 1}"/>'
            f'<use href="#s{sev}" x="{g.body_x + g.body - 14}" y="2"/></symbol>\n'
        )
        return ident


def _tooltip(
    dev: DeviceFacts, placed: Placed | None, marks: Marks | None, extra: str, detail: bool
) -> str:
    """A device's tooltip: id and label, model, units, power, GPUs, weight, findings (with
    their messages when ``detail``, else by code)."""
    d = dev.device
    lines = [d.id + (f" ({d.label})" if d.label and d.label != d.id else "")]
    dtype = dev.type
    where = _where(dev, placed, detail)
    if dtype is None:
        lines.append(f"{d.model}: not in the catalog")
    elif detail:
        kind = KIND_LABELS.get(dtype.kind or "other", dtype.kind or "other")
        name = f" – {dtype.name}" if dtype.name else ""
        lines.append(f"{d.model}{name} · {kind}")
    else:
        where = f"{d.model} · {where}" if where else d.model
    if where:
        lines.append(where)
    figures = _figures(dev, detail)
    if figures:
        lines.append(" · ".join(figures))
    if d.hostname:
        lines.append(f"hostname {d.hostname}")
    if extra:
        lines.append(extra)
    if marks is not None:
        if detail:
            lines.extend(marks.lines)
        else:
            lines.append(" ".join(marks.codes))
    return text("\n".join(lines))


def _where(dev: DeviceFacts, placed: Placed | None, detail: bool) -> str:
    """Where a device is: its units (and depth), or its 0U rail."""
    if placed is not None:
        top = placed.position + placed.height - 1
        where = f"U{placed.position}" if top == placed.position else f"U{placed.position}–U{top}"
        if not placed.full:
            where += f" · half depth, {placed.face}"
        elif detail:
            where += " · full depth"
        return where
    if dev.device.side:
        return f"0U, {dev.device.side} rail"
    return ""


def _figures(dev: DeviceFacts, detail: bool) -> list[str]:
    """A device's power (unknown, or estimated), GPUs and (with ``detail``) weight."""
    figures = []
    if dev.power or (dev.kind not in _PASSIVE and dev.type is not None):
        power = "power unknown" if dev.power is None else kw(dev.power)
        figures.append(power + (" (estimated)" if dev.power_estimated else ""))
    if dev.gpus:
        figures.append(f"{dev.gpus} GPUs")
    if dev.weight is not None and detail:
        figures.append(f"{dev.weight:.0f} kg")
    return figures


# Above this many racks a sheet's tooltips name findings by code only (the messages of a
# warning on every node of a 100,000-GPU hall would double the file); files of one rack
# and print pages always carry the messages.
DETAIL_MAX_RACKS = 500


class ElevationWriter:
    """Draws racks into one SVG body; :func:`sheet` and :func:`single` wrap it."""

    def __init__(
        self,
        analysis: Analysis,
        diagnostics: Iterable[Diagnostic] = (),
        *,
        theme: str = "light",
        geometry: Geometry = GEOMETRY,
        detail: bool = True,
    ):
        self.analysis = analysis
        self.theme = theme
        self.g = geometry
        self.detail = detail
        diagnostics = list(diagnostics)
        self.device_marks = by_subject(diagnostics, "device")
        self.rack_marks = by_subject(diagnostics, "rack")
        self.symbols = _Symbols(geometry)
        self.kinds: set[str] = set()
        self.severities: set[str] = set()

    # -- one rack ------------------------------------------------------------------------

    def block_height(self, plan: RackPlan) -> int:
        g = self.g
        return g.header + g.caption + plan.units * g.unit + 6 + plan.footer_lines * g.footer + 4

    def stand(self, plans: list[RackPlan]) -> tuple[list[float], float]:
        """How far down each rack of a line starts so that all stand on one floor (U1
        level whatever their heights and footer lines), and the line's height."""
        g = self.g
        floor = max(plan.units for plan in plans) * g.unit
        drops = [float(floor - plan.units * g.unit) for plan in plans]
        return drops, max(d + self.block_height(p) for d, p in zip(drops, plans, strict=True))

    def rack(self, out: list[str], plan: RackPlan, x: float, y: float) -> None:
        """Draw ``plan``'s rack with its block's top-left corner at (x, y)."""
        g = self.g
        out.append(f'<g transform="translate({num(x)},{num(y)})">')
        self._header(out, plan.facts, plan)
        faces_y = g.header + g.caption
        rear_x = g.face + g.face_gap
        for face, fx in (("front", 0), ("rear", rear_x)):
            frame = self.symbols.frame(plan.units, face)
            out.append(f'<g transform="translate({fx},{faces_y})"><use href="#{frame}"/>')
            rear = face == "rear"
            if rear:
                self._side_channels(out, plan)
            elif plan.span(_TRAYS) is not None:
                self._domain(out, plan)
            blocked: list[str] = []
            cartridges = plan.span(("nvl-switch",)) if rear else None
            for placed in plan.placed:
                if placed.face == face:
                    self._device(out, plan, placed)
                elif placed.full:
                    hidden = cartridges is not None and placed.kind == "nvl-switch"
                    self._blocked(blocked, plan, placed, label=not hidden)
            if blocked:
                out.append('<g class="bt">')
                out.extend(blocked)
                out.append("</g>")
            if rear:
                self._rear_parts(out, plan)
                for door in plan.doors:
                    self._door(out, plan, door)
            out.append("</g>")
        y_footer = faces_y + plan.units * g.unit + 6 + g.footer - 3
        if plan.doors:
            # Named under the rear view it surrounds, in full: the caption above it has
            # room for "REAR (from behind)" only (it cut "door a01-door" to "door a01-do…").
            names = ", ".join(d.id for d in plan.doors)
            shown = clip("rear door " + names, int(g.face / g.char_small))
            out.append(
                f'<text class="sm mu" x="{rear_x}" y="{y_footer + 2}">'
                f"<title>rear door {text(names)}</title>{text(shown)}</text>"
            )
            y_footer += g.footer
        if plan.loose:
            y_loose = y_footer
            full = "; ".join(f"{d.id} ({why})" for d, why in plan.loose)
            shown = clip("in no unit: " + full, int(g.pair / g.char_small))
            out.append(
                f'<text class="sm" x="0" y="{y_loose}"><title>{text(full)}</title>'
                f"{text(shown)}</text>"
            )
            for dev, _ in plan.loose:
                self.kinds.add(dev.kind or "other")
        out.append("</g>\n")

    def header_lines(self, facts: RackFacts, plan: RackPlan) -> list[str]:
        """The figures under a rack's id: place and units, power, heat and cooling, GPUs
        and weight."""
        rack = facts.rack
        row = rack.row if rack.row is not None else "–"
        slot = rack.slot if rack.slot is not None else "–"
        lines = [f"row {row} · slot {slot} · {facts.units_used:.0f}/{plan.units} U used"]
        load = ("≥ " if facts.load_unknown else "") + kw(facts.load)
        if facts.capacity:
            lines.append(
                f"power {load} / {kw(facts.capacity)} usable ({facts.load / facts.capacity:.0%})"
            )
        else:
            lines.append(f"power {load} · no feeds")
        heat = f"heat {load} · {facts.cooling}"
        if facts.loop_heat > 0 and facts.door_heat > 0:
            # A liquid rack with a rear door (v1.3): the cooling table's split, the loop's
            # cold plates, the door's coil and the room's air.
            heat += (
                f" {kw(facts.loop_heat)} + door {kw(facts.door_heat)} + air {kw(facts.air_heat)}"
            )
        elif facts.liquid_heat > 0:
            heat += f" {kw(facts.liquid_heat)} + air {kw(facts.air_heat)}"
        lines.append(f"{heat} · {self.analysis.cooling_verdict(facts)}")
        carried = rack_weight(facts)  # as PLC004 counts it: an NVL72 rack's 1.36 t as built
        weight = f"{carried.carried:.0f} kg"
        if carried.unknown:
            weight = "≥ " + weight
        if rack.max_weight:
            weight += f" of {float(rack.max_weight):.0f} kg"
        gpus = f"{facts.gpus} GPUs · {facts.gpu_nodes} nodes" if facts.gpus else "no GPUs"
        if rack.nvlink_domain:
            trays = f"{plan.count('nvl-compute')} + {plan.count('nvl-switch')} trays"
            gpus = f"{facts.gpus} GPUs · NVLink domain {rack.nvlink_domain} ({trays})"
        lines.append(f"{gpus} · {weight}")
        return lines

    def _header(self, out: list[str], facts: RackFacts, plan: RackPlan) -> None:
        g = self.g
        rack = facts.rack
        chars = int(g.pair / g.char)
        title = rack.id + (f" · {rack.label}" if rack.label else "")
        marks = self.rack_marks.get(rack.id)
        title_room = int(g.pair / (g.char * 1.3))  # 13 px bold
        if marks is not None:
            self.severities.add(marks.severity)
            sev = SEVERITY_CLASS[marks.severity]
            codes = clip(" ".join(marks.codes), 30)
            out.append(
                f"<g><title>{text(chr(10).join(marks.lines))}</title>"
                f'<use href="#s{sev}" x="{g.pair - 12}" y="4"/>'
                f'<text class="sm r" x="{g.pair - 16}" y="12">{text(codes)}</text></g>'
            )
            title_room -= int((len(codes) * g.char_small + 24) / (g.char * 1.3))
        shown = clip(title, title_room)
        tip = f"<title>{text(title)}</title>" if shown != title else ""
        out.append(f'<text class="h3" x="0" y="14">{tip}{text(shown)}</text>')
        lines = self.header_lines(facts, plan)
        shown_lines = [clip(line, chars) for line in lines]
        body = "".join(
            f'<text x="0" y="{28 + 12 * i}">{text(line)}</text>'
            for i, line in enumerate(shown_lines)
        )
        if shown_lines != lines:  # a line was cut: the tooltip has them whole
            body = f"<g><title>{text(chr(10).join(lines))}</title>{body}</g>"
        out.append(body)

    def _device(self, out: list[str], plan: RackPlan, placed: Placed) -> None:
        g = self.g
        dev = placed.dev
        d = dev.device
        kind = placed.kind
        self.kinds.add(kind)
        y, _ = g.span(plan.units, placed.position, placed.height)
        body = self.symbols.body(d.model, kind, placed.height)
        marks = self.device_marks.get(d.id)
        label_room = g.body - 8 - (14 if marks is not None else 0) - _DECOR.get(kind, 0)
        inset = MANIFOLD + 1 if plan.manifolds and placed.face == "rear" else 0
        label_room -= inset
        tx = g.body_x + 6 + inset
        tip = _tooltip(dev, placed, marks, placed.note, self.detail)
        chars = int(label_room / g.char)
        label = named(d.id, d.label, chars)
        # A label cut short beside the id goes whole under it when the device has a line
        # to spare (2 U and more), before the model.
        below = placed.height >= 2 and label != named(d.id, d.label, 10**6)
        if below:
            label = clip(d.id, chars)
        parts = [
            f'<g class="{kind_class(kind)}"><title>{tip}</title><use href="#{body}" y="{y}"/>'
            f'<text x="{tx}" y="{y + 10}">{text(label)}'
        ]
        if placed.height >= 2:
            second = f"{d.label} · {d.model}" if below else d.model
            if dev.power:
                second += f" · {kw(dev.power)}"
            room = g.body - 10 - _DECOR.get(kind, 0)
            parts.append(
                f'<tspan x="{tx}" dy="11">{text(clip(second, int(room / g.char_small)))}</tspan>'
            )
        parts.append("</text>")
        if marks is not None:
            self.severities.add(marks.severity)
            parts.append(
                f'<use href="#{self.symbols.outline(marks.severity, placed.height)}" y="{y}"/>'
            )
        parts.append("</g>")
        out.append("".join(parts))

    def _blocked(
        self, out: list[str], plan: RackPlan, placed: Placed, *, label: bool = True
    ) -> None:
        # No tooltip: the label names the device, the legend says what the hatch means,
        # and the device's own tooltip is on the other face (a third of the sheet's bytes).
        g = self.g
        y, _ = g.span(plan.units, placed.position, placed.height)
        out.append(f'<use href="#{self.symbols.blocked(placed.height)}" y="{y}"/>')
        if not label:  # under the cable cartridges: they are drawn over it
            return
        d = placed.dev.device
        # The rear of a liquid-cooled rack has a manifold down each side and, in a
        # rack-scale one, the busbar down the middle: the label keeps left of both.
        inset = MANIFOLD + 1 if plan.manifolds and placed.face == "front" else 0
        room = g.body - 8 - inset
        if plan.busbars:
            room = g.body // 2 - BUSBAR // 2 - 8 - inset
        shown = text(named(d.id, d.label, int(room / g.char)))
        out.append(f'<text x="{g.body_x + 6 + inset}" y="{y + 10}">{shown}</text>')

    def _domain(self, out: list[str], plan: RackPlan) -> None:
        """The NVLink domain on the front: a bracket in the left side channel over the
        rack-scale parts, named up the channel."""
        g = self.g
        span = plan.span(_TRAYS)
        domain = plan.facts.rack.nvlink_domain
        if span is None or not domain:
            return
        top, height = g.span(plan.units, span[0], span[1] - span[0] + 1)
        x = g.zero - 4
        name = clip(f"NVLink domain {domain}", int((height - 6) / g.char_small))
        out.append(
            f"<g><title>NVLink domain {text(domain)}</title>"
            f'<path class="dom" d="M{x + 3} {top + 1}H{x}V{top + height - 1}H{x + 3}"/>'
            f'<text class="sm mu" transform="rotate(-90)" x="{-(top + height - 3)}" '
            f'y="{x - 2}">{text(name)}</text></g>'
        )

    def _rear_parts(self, out: list[str], plan: RackPlan) -> None:
        """What the rear of a liquid-cooled or rack-scale rack shows over its devices: the
        NVLink cable cartridges behind the switch trays, the supply and return manifolds
        down the sides and the DC busbar down the middle (DGX GB200 user guide, Hardware:
        the rear gives access to the manifolds, the cable cartridges and the bus bar)."""
        g = self.g
        total = plan.units * g.unit
        bx = g.body_x
        span = plan.span(("nvl-switch",))
        if span is not None:
            self.kinds.add("cartridge")
            top, height = g.span(plan.units, span[0], span[1] - span[0] + 1)
            x = bx + (MANIFOLD + 1 if plan.manifolds else 1)
            w = g.body - 2 * (x - bx)
            cables = "".join(f"M{x + i} {top + 2}v{height - 4}" for i in range(4, w - 2, 4))
            room = int((g.body // 2 - BUSBAR // 2 - 6 - (x - bx)) / g.char_small)
            lines = "".join(
                f'<tspan x="{x + 4}" dy="10">{clip(word, room)}</tspan>'
                for word in ("cable", "cartridges")
            )
            out.append(
                f'<g class="kx"><title>NVLink cable cartridges: copper from every compute '
                f"tray to the switch trays (U{span[0]}–U{span[1]}), not modelled as links"
                f'</title><rect class="b" x="{x}" y="{top + 0.5}" width="{w}" '
                f'height="{height - 1}" rx="2"/><path class="cab" d="{cables}"/>'
                f'<text class="sm" x="{x + 4}" y="{top + 12}">{clip("NVLink", room)}'
                f"{lines}</text></g>"
            )
        if plan.manifolds:
            facts = plan.facts
            cdus = ", ".join(c.id for c in facts.cdus if c is not None) or "no CDU named"
            for part, x in (("supply", bx + 1), ("return", bx + g.body - 1 - MANIFOLD)):
                self.kinds.add(part)
                tip = f"liquid manifold, {part}: {kw(facts.loop_heat)} to the cold plates ({cdus})"
                out.append(
                    f'<g class="{kind_class(part)}"><title>{text(tip)}</title>'
                    f'<rect class="b" x="{x}" y="1" width="{MANIFOLD}" height="{total - 2}" '
                    f'rx="2"/></g>'
                )
        if plan.busbars:
            self.kinds.add("busbar")
            span = plan.span() or (1, plan.units)
            top, height = g.span(plan.units, span[0], span[1] - span[0] + 1)
            x = bx + g.body // 2 - BUSBAR // 2
            names = clip(" ".join(b.id for b in plan.busbars), int((height - 8) / g.char_small))
            marks = [self.device_marks.get(b.id) for b in plan.busbars]
            found = [m for m in marks if m is not None]
            tips = "\n\n".join(
                _tooltip(b, None, m, "DC busbar, rear", self.detail)
                for b, m in zip(plan.busbars, marks, strict=True)
            )
            outline = ""
            if found:
                worst = min(found, key=lambda m: ("error", "warning", "info").index(m.severity))
                self.severities.add(worst.severity)
                outline = (
                    f'<rect class="f{SEVERITY_CLASS[worst.severity]}" x="{x - 1}" '
                    f'y="{top - 1}" width="{BUSBAR + 2}" height="{height + 2}"/>'
                )
            out.append(
                f'<g class="ku"><title>{tips}</title><rect class="b" x="{x}" y="{top + 0.5}" '
                f'width="{BUSBAR}" height="{height - 1}"/>'
                f'<text class="xs" transform="rotate(-90)" x="{-(top + height - 4)}" '
                f'y="{x + 6}">{text(names)}</text>{outline}</g>'
            )

    def _side_channels(self, out: list[str], plan: RackPlan) -> None:
        g = self.g
        total = plan.units * g.unit
        # Seen from behind, the rack's left rail is on the right of the view.
        zones = {"left": g.face - g.zero, "right": 0}
        for side in ("left", "right"):
            devices = plan.sides[side]
            if not devices:
                continue
            n = len(devices)
            seg = (total - 2 * (n - 1)) / n
            x0 = zones[side] + 1
            labels = []
            for i, dev in enumerate(devices):
                kind = dev.kind or "other"
                self.kinds.add(kind)
                top = i * (seg + 2)
                marks = self.device_marks.get(dev.id)
                label = named(dev.id, dev.device.label, int((seg - 6) / g.char_small))
                tip = _tooltip(dev, None, marks, "", self.detail)
                outline = ""
                if marks is not None:
                    self.severities.add(marks.severity)
                    outline = (
                        f'<rect class="f{SEVERITY_CLASS[marks.severity]}" x="{x0 - 1}" '
                        f'y="{num(top - 1)}" width="{g.zero}" height="{num(seg + 2)}"/>'
                    )
                out.append(
                    f'<g class="{kind_class(kind)}"><title>{tip}</title>'
                    f'<use href="#{self.symbols.channel(seg)}" x="{x0}" y="{num(top)}"/>'
                    f"{outline}</g>"
                )
                # Labels run up the channel; one rotated group holds a side's labels.
                labels.append(
                    f'<text class="{kind_class(kind)}" x="{num(-(top + seg - 3))}" '
                    f'y="{x0 + 8}">{text(label)}</text>'
                )
            out.append(f'<g class="sm" transform="rotate(-90)">{"".join(labels)}</g>')

    def _door(self, out: list[str], plan: RackPlan, door: DeviceFacts) -> None:
        g = self.g
        self.kinds.add("rear-door")
        marks = self.device_marks.get(door.id)
        cls = f"door f{SEVERITY_CLASS[marks.severity]}" if marks is not None else "door"
        if marks is not None:
            self.severities.add(marks.severity)
        out.append(
            f"<g><title>{_tooltip(door, None, marks, 'rear door', self.detail)}</title>"
            f'<rect class="{cls}" x="-3" y="-7" width="{g.face + 6}" '
            f'height="{plan.units * g.unit + 14}" rx="3"/></g>'
        )

    # -- legend --------------------------------------------------------------------------

    def legend(self, out: list[str], x: float, y: float, width: float) -> float:
        """Draw the legend from (x, y) wrapping at ``width``; return its height."""
        items: list[tuple[str, str, int]] = []  # (swatch, label, its width)
        # A rear door is drawn as a band, not a body: it has its own item below.
        for kind in svg.legend_kinds(self.kinds - {"rear-door"}):
            items.append((f'<rect class="{kind_class(kind)} b" width="22" height="12"/>', kind, 22))
        items.append(('<rect class="sl" width="22" height="12"/>', "empty unit", 22))
        items.append(
            (
                '<rect class="bk" width="22" height="12"/>',
                "blocked: a full-depth device on the other face",
                22,
            )
        )
        if "rear-door" in self.kinds:
            items.append(
                ('<rect class="door" x="1.5" y="1.5" width="19" height="9"/>', "rear door", 22)
            )
        items.append(
            (
                '<rect class="kp b" x="8" width="6" height="12"/>',
                "0U device: side channel, rear view",
                22,
            )
        )
        for severity in ("error", "warning", "info"):
            sev = SEVERITY_CLASS[severity]
            items.append(
                (
                    f'<rect class="f{sev}" x="1" y="1" width="20" height="10"/>'
                    f'<use href="#s{sev}" x="27" y="1"/>',
                    f"{severity} {SEVERITY_SYMBOLS[severity]} (codes in the tooltip)",
                    38,
                )
            )
        cx, cy = x, y
        row_h = 20
        for swatch, label, swatch_w in items:
            name = KIND_LABELS.get(label) or PART_LABELS.get(label, label)
            w = swatch_w + 8 + len(name) * self.g.char + 24
            if cx + w > x + width and cx > x:
                cx, cy = x, cy + row_h
            out.append(
                f'<g transform="translate({num(cx)},{num(cy)})">{swatch}'
                f'<text x="{swatch_w + 8}" y="10">{text(name)}</text></g>'
            )
            cx += w
        return cy + row_h - y

    # -- documents -----------------------------------------------------------------------

    def defs(self) -> str:
        parts = svg.part_style(self.theme) if self.kinds & set(PART_LABELS) else ""
        return parts + "".join(self.symbols.defs)


def _ordered_rows(analysis: Analysis) -> list[list[RackFacts]]:
    """Racks by row (in order of first appearance), by slot within a row (racks without a
    slot last, in file order)."""
    rows: dict[int, list[RackFacts]] = {}
    for facts in analysis.racks:
        rows.setdefault(facts.place.row_index, []).append(facts)
    ordered = []
    for index in sorted(rows):
        racks = rows[index]
        racks.sort(key=lambda r: (r.rack.slot is None, r.rack.slot or 0, r.index))
        ordered.append(racks)
    return ordered


def _lines(row: list[RackFacts], per_line: int) -> list[list[RackFacts]]:
    """A row cut into lines of at most ``per_line`` racks, as even as possible."""
    if not row:
        return []
    count = math.ceil(len(row) / per_line)
    size = math.ceil(len(row) / count)
    return [row[i : i + size] for i in range(0, len(row), size)]


def _totals(analysis: Analysis) -> str:
    layout = analysis.layout
    load = ("≥ " if analysis.site_load_unknown else "") + kw(analysis.site_load)
    parts = [f"{len(analysis.racks)} racks", f"{analysis.total_gpus} GPUs", f"load {load}"]
    if layout.revision:
        parts.insert(0, f"revision {layout.revision}")
    return " · ".join(parts)


@dataclass(slots=True)
class _Arrangement:
    """Where a sheet puts its row headings and racks (shared by the sheet and its
    overview, so both have one geometry)."""

    width: float
    height: float  # below the title block, before the legend's shift
    rows: list[tuple[str, int, float]]  # (row name, racks, y of the heading)
    racks: list[tuple[RackPlan, float, float]]  # (plan, x, y of the block)


SHEET_MARGIN = 24
SHEET_TOP = SHEET_MARGIN + 80  # the title block and legend go above


def _arrange(writer: ElevationWriter, per_line: int) -> _Arrangement:
    g = writer.g
    margin = SHEET_MARGIN
    rows = _ordered_rows(writer.analysis)
    widest = max((len(line) for row in rows for line in _lines(row, per_line)), default=1)
    width = margin * 2 + max(widest * g.pitch - g.rack_gap, 900)
    arrangement = _Arrangement(width, 0.0, [], [])
    y = float(SHEET_TOP)
    for row in rows:
        name = row[0].rack.row if row[0].rack.row is not None else "(no row)"
        arrangement.rows.append((name, len(row), y))
        y += 30
        for line in _lines(row, per_line):
            plans = [plan_rack(facts) for facts in line]
            drops, height = writer.stand(plans)
            for i, (plan, drop) in enumerate(zip(plans, drops, strict=True)):
                arrangement.racks.append((plan, margin + i * g.pitch, y + drop))
            y += height + 20
    arrangement.height = y
    return arrangement


def _head(writer: ElevationWriter, width: float, date: str | None) -> tuple[list[str], float]:
    """The title, totals and legend of a sheet, and how far the legend pushes the racks."""
    margin = SHEET_MARGIN
    analysis = writer.analysis
    head = [f'<text class="h1" x="{margin}" y="{margin + 18}">{text(analysis.layout.name)}</text>']
    sub = "Rack elevations · " + _totals(analysis) + (f" · {date}" if date else "")
    head.append(f'<text class="mu" x="{margin}" y="{margin + 36}">{text(sub)}</text>')
    legend_h = writer.legend(head, margin, margin + 48, width - 2 * margin)
    return head, max(0, legend_h - 30)  # a legend of more than one line pushes racks down


def sheet(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    theme: str = "light",
    date: str | None = None,
    per_line: int = PER_LINE,
) -> str:
    """Every rack, front and rear, in row order; a row of the hall starts a new line."""
    writer = ElevationWriter(
        analysis, diagnostics, theme=theme, detail=len(analysis.racks) <= DETAIL_MAX_RACKS
    )
    arrangement = _arrange(writer, per_line)
    margin = SHEET_MARGIN
    body: list[str] = []
    racks = iter(each(arrangement.racks, "drawing rack elevations"))
    pending = next(racks, None)
    for name, count, y in arrangement.rows:
        body.append(
            f'<text class="h2" x="{margin}" y="{num(y + 16)}">Row {text(name)}'
            f'<tspan class="mu" dx="10">{count} rack{"s" if count != 1 else ""}'
            "</tspan></text>\n"
        )
        for _ in range(count):
            assert pending is not None
            plan, x, ry = pending
            writer.rack(body, plan, x, ry)
            pending = next(racks, None)
    head, shift = _head(writer, arrangement.width, date)
    content = [*head, f'<g transform="translate(0,{num(shift)})">\n', *body, "</g>\n"]
    return svg.document(
        arrangement.width,
        arrangement.height + margin + shift,
        content,
        theme=theme,
        title=f"{analysis.layout.name}: rack elevations",
        defs=writer.defs(),
    )


@dataclass(slots=True)
class Overview:
    """A sheet as it looks from afar: its size, the boxes of each style, and the texts
    that stay readable (for rasters of large halls, drawn by :mod:`.raster`)."""

    width: float
    height: float
    boxes: dict[str, list[tuple[float, float, float, float]]]  # style -> (x, y, w, h)
    texts: list[tuple[str, float, float, str]]  # (style, x, y, text)
    kinds: list[str]
    title: str
    subtitle: str


def overview(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    date: str | None = None,
    per_line: int = PER_LINE,
    scale: float = 1.0,
) -> Overview:
    """The sheet's places, colours, hatching and outlines, with text only where it stays
    readable at ``scale`` (4 px and more)."""
    writer = ElevationWriter(analysis, diagnostics, detail=False)
    g = writer.g
    arrangement = _arrange(writer, per_line)
    boxes: dict[str, list[tuple[float, float, float, float]]] = {}

    def box(style: str, x: float, y: float, w: float, h: float) -> None:
        boxes.setdefault(style, []).append((x, y, w, h))

    texts: list[tuple[str, float, float, str]] = []
    # Row names and rack ids always: the raster draws them at a readable size.
    texts.extend(("h2", SHEET_MARGIN, y + 16, f"Row {name}") for name, _, y in arrangement.rows)
    for plan, x, y in arrangement.racks:
        faces_y = y + g.header + g.caption
        height = plan.units * g.unit
        texts.append(("h3", x, y + 14, clip(plan.facts.rack.id, 30)))
        labels = 10 * scale >= 4  # device labels and the header's figures stay readable
        if labels:
            for i, line in enumerate(writer.header_lines(plan.facts, plan)):
                texts.append(("t", x, y + 28 + 12 * i, clip(line, int(g.pair / g.char))))
        marks = writer.rack_marks.get(plan.facts.rack.id)
        if marks is not None:
            box(f"f{SEVERITY_CLASS[marks.severity]}", x - 4, y, g.pair + 8, g.header - 8)
        for face, fx in (("front", 0), ("rear", g.face + g.face_gap)):
            left = x + fx
            box("fr", left + g.zero - 2, faces_y - 3, 2 * g.rail + g.body + 4, height + 6)
            box("sl", left + g.body_x, faces_y, g.body, height)
            for placed in plan.placed:
                top, h = g.span(plan.units, placed.position, placed.height)
                chars = int((g.body - 8 - _DECOR.get(placed.kind, 0)) / g.char)
                label = named(placed.dev.id, placed.dev.device.label, chars)
                if placed.face == face:
                    writer.kinds.add(placed.kind)
                    box(placed.kind, left + g.body_x, faces_y + top + 0.5, g.body, h - 1)
                    if labels:
                        texts.append(
                            (
                                f"t:{placed.kind}",
                                left + g.body_x + 6,
                                faces_y + top + 10,
                                label,
                            )
                        )
                    found = writer.device_marks.get(placed.dev.id)
                    if found is not None:
                        box(
                            f"f{SEVERITY_CLASS[found.severity]}",
                            left + g.body_x - 1,
                            faces_y + top - 0.5,
                            g.body + 2,
                            h + 1,
                        )
                elif placed.full:
                    box("bk", left + g.body_x, faces_y + top + 0.5, g.body, h - 1)
                    if labels:
                        texts.append(("tm", left + g.body_x + 6, faces_y + top + 10, label))
            if 8 * scale >= 4:
                for u in range(1, plan.units + 1):
                    uy = faces_y + (plan.units - u) * g.unit + g.unit / 2 + 3
                    for rail in (left + g.zero, left + g.body_x + g.body):
                        ux = rail + g.rail / 2 - len(str(u)) * g.char_small / 2
                        texts.append(("u", ux, uy, str(u)))
            if face == "rear":
                for side, zone in (("left", g.face - g.zero), ("right", 0)):
                    devices = plan.sides[side]
                    n = len(devices)
                    for i, dev in enumerate(devices):
                        seg = (height - 2 * (n - 1)) / n
                        kind = dev.kind or "other"
                        writer.kinds.add(kind)
                        box(kind, left + zone + 1, faces_y + i * (seg + 2), g.zero - 2, seg)
                if plan.doors:
                    box("door", left - 3, faces_y - 7, g.face + 6, height + 14)
    sub = "Rack elevations (overview) · " + _totals(analysis) + (f" · {date}" if date else "")
    # The sheet's legend may push its racks down: the overview keeps the sheet's places.
    _, shift = _head(writer, arrangement.width, date)
    if shift:
        boxes = {k: [(x, y + shift, w, h) for x, y, w, h in v] for k, v in boxes.items()}
        texts = [(style, x, y + shift, t) for style, x, y, t in texts]
    return Overview(
        arrangement.width,
        arrangement.height + SHEET_MARGIN + shift,
        boxes,
        texts,
        svg.legend_kinds(writer.kinds),
        analysis.layout.name,
        sub,
    )


def single(
    analysis: Analysis,
    facts: RackFacts,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    theme: str = "light",
    date: str | None = None,
) -> str:
    """One rack's elevation with its own legend (``--svg-dir``)."""
    writer = ElevationWriter(analysis, diagnostics, theme=theme)
    g = writer.g
    margin = 16
    plan = plan_rack(facts)
    body: list[str] = []
    writer.rack(body, plan, margin, margin + 24)
    width = g.pair + 2 * margin
    head = [
        f'<text class="mu" x="{margin}" y="{margin + 8}">'
        f"{text(clip(analysis.layout.name + (' · ' + date if date else ''), 64))}</text>"
    ]
    y_legend = margin + 24 + writer.block_height(plan) + 8
    legend_h = writer.legend(body, margin, y_legend, g.pair)
    height = y_legend + legend_h + margin
    return svg.document(
        width,
        height,
        [*head, *body],
        theme=theme,
        title=f"{analysis.layout.name}: rack {facts.rack.id}",
        defs=writer.defs(),
    )
