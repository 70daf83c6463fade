"""The compute fabric drawn in tiers: core and spines on top, leaves, then the nodes by rack.

Each fabric (a connected part of the compute network, as the analysis finds it) is one
panel. Boxes, not devices, are drawn: a switch, a group of switches of one model in one
tier, or the nodes of one rack. Cables become bundles: one line per pair of boxes and
cable media, with the number of cables and their speed.

Large fabrics stay readable by aggregation. A scalable unit (SU) is a set of leaves and
the racks of nodes cabled only to them (a connected part of the fabric below the spines).
SUs of the same shape (the same racks of nodes, the same leaves, the same cables) are
drawn once with a count ("× 24 SUs"); an SU's racks or leaves beyond
:data:`MAX_BOXES` are drawn as one box with a count, and so is a tier of upper switches.
A 100,000-GPU fabric is a few dozen boxes and lines, never 100,000 lines.

Marked: switches whose downlinks exceed their uplinks (the ratio, dashed amber outline)
and single points of failure (a switch or cable whose loss splits the GPU nodes; red
outline, "SPOF").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.analysis.fabric_graph import Fabric
from rackdesigner.analysis.grouping import Groups
from rackdesigner.export.render import svg
from rackdesigner.export.render.palette import MEDIA
from rackdesigner.export.render.svg import MEDIA_CLASS, clip, kind_class, num, text
from rackdesigner.model.diagnostics import Diagnostic

MAX_BOXES = 12  # boxes in one tier of one drawn SU before they merge into one
BOX_W = 150
BOX_H = 44
GAP = 18
TIER_H = 150
ROWS_TOP = 66  # the first tier below the fabric's heading and its SU frames
TIER_NAMES = {1: "leaf", 2: "spine", 3: "core"}
# Where along its line (0 the upper box, 1 the lower) a bundle's count may go, in the
# order tried: the middle first, then nearer either end, until it overlaps nothing.
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85)
# Character widths of the drawings' monospace font (DejaVu Sans Mono: 0.602 em) at the
# .xs (7 px) and .sm (8 px) sizes.
XS_CHAR = 7 * 0.602
SM_CHAR = 8 * 0.602
CELL = 40.0  # px: the grid the placed labels are looked up in


def _width(label: str, char: float) -> float:
    return len(label) * char


class _Taken:
    """Rectangles already used, in a grid of CELL-sized cells (a hall's fabric drawing has
    thousands of labels: each looks only at its neighbours)."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _keys(self, rect: tuple[float, float, float, float]) -> Iterable[tuple[int, int]]:
        x0, y0, x1, y1 = rect
        for cx in range(int(x0 // CELL), int(x1 // CELL) + 1):
            for cy in range(int(y0 // CELL), int(y1 // CELL) + 1):
                yield cx, cy

    def add(self, rect: tuple[float, float, float, float]) -> None:
        for key in self._keys(rect):
            self.cells.setdefault(key, []).append(rect)

    def free(self, rect: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = rect
        for key in self._keys(rect):
            for a0, b0, a1, b1 in self.cells.get(key, ()):
                if x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1:
                    return False
        return True


def _free_spot(
    spots: list[tuple[float, float]], width: float, taken: _Taken
) -> tuple[float, float]:
    """The first of ``spots`` (text x, baseline) whose label overlaps nothing taken (else
    the first), marked taken."""
    chosen = spots[0]
    for x, y in spots:
        if taken.free((x - 1, y - 6.5, x + width + 1, y + 2.5)):
            chosen = (x, y)
            break
    x, y = chosen
    taken.add((x - 1, y - 6.5, x + width + 1, y + 2.5))
    return chosen


def _speed(bps: float | None) -> str:
    if not bps:
        return "?"
    if bps >= 1e12:
        return f"{bps / 1e12:g}T"
    if bps >= 1e9:
        return f"{bps / 1e9:g}G"
    return f"{bps / 1e6:g}M"


@dataclass(slots=True)
class Box:
    key: str
    tier: int  # 0 nodes, 1 leaves, ...; -1 switches no GPU node reaches
    title: str
    detail: str
    kind: str
    members: list[DeviceFacts] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    oversubscription: float | None = None  # the worst of its members
    oversubscribed: int = 0
    spof: int = 0
    count_note: str = ""  # "× 24 SUs like this"


@dataclass(slots=True)
class Bundle:
    cables: int = 0
    speeds: Counter[float] = field(default_factory=Counter)
    spof: bool = False


def _tier_name(tier: int, max_tier: int) -> str:
    if tier == 0:
        return "nodes"
    if tier < 0:
        return "not reached from GPU nodes"
    if tier == max_tier and tier >= 2:
        return "spine" if tier == 2 else ("core" if tier == 3 else f"tier {tier}")
    return TIER_NAMES.get(tier, f"tier {tier}")


_Unit = dict[str, list[str]]  # a scalable unit: {"racks": [...], "leaves": [...]}


def _cabled_pairs(fabric: Fabric) -> tuple[dict[str, set[str]], Counter[tuple[str, str]]]:
    """Each device's cabled neighbours, and the cables of each pair (in id order)."""
    adjacency: dict[str, set[str]] = defaultdict(set)
    cables: Counter[tuple[str, str]] = Counter()
    for link in fabric.links:
        a, b = link.a.device.id, link.b.device.id  # type: ignore[union-attr]
        adjacency[a].add(b)
        adjacency[b].add(a)
        cables[(a, b) if a < b else (b, a)] += 1
    return adjacency, cables


def _scalable_units(
    endpoints: dict[str, list[DeviceFacts]], adjacency: dict[str, set[str]], leaf_ids: set[str]
) -> dict[str, _Unit]:
    """Racks of endpoints joined through the leaves they are cabled to (a union-find over
    racks and leaves), by their root."""
    groups = Groups()
    for rack_id, devs in endpoints.items():
        groups.add("r:" + rack_id)
        for dev in devs:
            for other in adjacency[dev.id]:
                if other in leaf_ids:
                    groups.join("s:" + other, "r:" + rack_id)
    for leaf in leaf_ids:
        groups.add("s:" + leaf)
    units: dict[str, _Unit] = {}
    for member in sorted(str(m) for found in groups.sets() for m in found):
        root = str(groups.find(member))
        unit = units.setdefault(root, {"racks": [], "leaves": []})
        kind, _, ident = member.partition(":")
        unit["racks" if kind == "r" else "leaves"].append(ident)
    return units


def _cables_per_unit(
    units: dict[str, _Unit],
    endpoints: dict[str, list[DeviceFacts]],
    cables: Counter[tuple[str, str]],
) -> tuple[Counter[str], Counter[str]]:
    """The cables inside each unit and leaving it, by its root, in one pass over the
    cabled pairs."""
    unit_of: dict[str, str] = {}
    for root, unit in units.items():
        for r in unit["racks"]:
            for d in endpoints[r]:
                unit_of[d.id] = root
        for leaf in unit["leaves"]:
            unit_of[leaf] = root
    inside: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    for (a, b), n in cables.items():
        ua, ub = unit_of.get(a), unit_of.get(b)
        if ua is not None and ua == ub:
            inside[ua] += n
        else:
            if ua is not None:
                outside[ua] += n
            if ub is not None:
                outside[ub] += n
    return inside, outside


class _FabricDrawing:
    def __init__(self, analysis: Analysis, fabric: Fabric):
        self.analysis = analysis
        self.fabric = fabric
        self.boxes: dict[str, Box] = {}
        self.box_of: dict[str, str] = {}  # device id -> box key (drawn instances only)
        self.notes: list[str] = []
        # Made by build and place: the SU classes (one drawn for each), the bundles of
        # cables between boxes, the tiers top to bottom, each SU class's (x, width).
        self.su_classes: list[list[dict[str, list[str]]]] = []
        self.bundles: dict[tuple[str, str, str], Bundle] = {}
        self.rows: list[int] = []
        self.su_spans: list[tuple[float, float]] = []

    def _tier(self, dev: DeviceFacts) -> int:
        switch = self.fabric.switches.get(dev.id)
        if switch is not None:
            return switch.tier if switch.tier is not None else -1
        return 0

    def build(self) -> None:
        """The boxes and bundles: each class of alike scalable units drawn once (its nodes
        by rack, its leaves), then the switches of the tiers above, then the cables."""
        endpoints, switches = self._by_tier()
        adjacency, cables = _cabled_pairs(self.fabric)
        leaf_ids = {d.id for d in switches.get(1, [])}
        units = _scalable_units(endpoints, adjacency, leaf_ids)
        self.su_classes = self._su_classes(units, endpoints, cables)
        by_id = self.analysis.device_by_id
        rack_order = {f.rack.id: f.index for f in self.analysis.racks}
        device_order = {d.id: i for i, d in enumerate(self.analysis.devices)}
        for index, same in enumerate(self.su_classes):
            unit = same[0]  # drawn once, for all of its class
            note = f"× {len(same)} scalable units like this" if len(same) > 1 else ""
            racks = sorted(unit["racks"], key=lambda r: rack_order.get(r, 0))
            leaves = sorted(unit["leaves"], key=lambda s: device_order[s])
            self._group(f"su{index}-n", 0, [d for r in racks for d in endpoints[r]], note, racks)
            self._switch_boxes(f"su{index}-l", 1, [by_id[s] for s in leaves])
        for tier in sorted(t for t in switches if t >= 2 or t < 0):
            self._switch_boxes(f"t{tier}", tier, switches[tier])
        self._bundles(cables)

    def _by_tier(self) -> tuple[dict[str, list[DeviceFacts]], dict[int, list[DeviceFacts]]]:
        """The fabric's endpoints by rack, and its switches by tier."""
        endpoints: dict[str, list[DeviceFacts]] = defaultdict(list)
        switches: dict[int, list[DeviceFacts]] = defaultdict(list)
        for dev in self.fabric.devices:
            tier = self._tier(dev)
            if tier == 0:
                endpoints[dev.rack.id].append(dev)
            else:
                switches[tier].append(dev)
        return endpoints, switches

    def _su_classes(
        self,
        units: dict[str, _Unit],
        endpoints: dict[str, list[DeviceFacts]],
        cables: Counter[tuple[str, str]],
    ) -> list[list[_Unit]]:
        """Scalable units alike (the same racks of models, leaf models and cables inside
        and out) in classes; units in the order of their first rack, then of their first
        leaf (layout order: stable, and not tied to where the file put them)."""
        inside, outside = _cables_per_unit(units, endpoints, cables)
        by_id = self.analysis.device_by_id
        root_of = {id(unit): root for root, unit in units.items()}

        def signature(unit: _Unit) -> tuple[object, ...]:
            racks = sorted(
                tuple(sorted(Counter(d.device.model for d in endpoints[r]).items()))
                for r in unit["racks"]
            )
            leaves = sorted(by_id[s].device.model for s in unit["leaves"])
            root = root_of[id(unit)]
            return (tuple(racks), tuple(leaves), inside[root], outside[root])

        rack_order = {f.rack.id: f.index for f in self.analysis.racks}
        device_order = {d.id: i for i, d in enumerate(self.analysis.devices)}
        last = len(device_order) + len(rack_order)
        ordered = sorted(
            units.values(),
            key=lambda u: (
                min((rack_order.get(r, last) for r in u["racks"]), default=last),
                min((device_order[s] for s in u["leaves"]), default=last),
            ),
        )
        classes: dict[tuple[object, ...], list[_Unit]] = {}
        for unit in ordered:
            classes.setdefault(signature(unit), []).append(unit)
        return list(classes.values())

    def _group(
        self, key: str, tier: int, devs: list[DeviceFacts], note: str, racks: list[str]
    ) -> None:
        by_rack: dict[str, list[DeviceFacts]] = defaultdict(list)
        for dev in devs:
            by_rack[dev.rack.id].append(dev)
        merged = len(racks) > MAX_BOXES
        groups = [("all", devs)] if merged else [(r, by_rack[r]) for r in racks]
        for i, (rack_id, members) in enumerate(groups):
            models = Counter(d.device.model for d in members)
            what = ", ".join(f"{n} × {m}" for m, n in sorted(models.items()))
            gpus = sum(d.gpus for d in members)
            title = f"{len(racks)} racks" if merged else f"rack {rack_id}"
            kinds = {d.kind or "other" for d in members}
            box = Box(
                f"{key}{i}",
                tier,
                title,
                what + (f" · {gpus} GPUs" if gpus else ""),
                kinds.pop() if len(kinds) == 1 else "other",
                members,
                count_note=note if i == 0 else "",
            )
            self.boxes[box.key] = box
            for dev in members:
                self.box_of[dev.id] = box.key

    def _switch_boxes(self, key: str, tier: int, devs: list[DeviceFacts]) -> None:
        if not devs:
            return
        if len(devs) > MAX_BOXES:
            # One box per model of the tier.
            by_model: dict[str, list[DeviceFacts]] = defaultdict(list)
            for dev in devs:
                by_model[dev.device.model].append(dev)
            groups = [(f"{len(m)} × {model}", "", m) for model, m in sorted(by_model.items())]
        else:
            groups = [(d.id, d.device.model, [d]) for d in devs]
        cut = {d.id for d, _ in self.fabric.cut_switches}
        for i, (title, detail, members) in enumerate(groups):
            box = Box(f"{key}-{i}", tier, title, detail, "switch", members)
            ratios = []
            for dev in members:
                facts = self.fabric.switches.get(dev.id)
                ratio = facts.oversubscription if facts is not None else None
                if ratio is not None and ratio > 1.0 + 1e-9:
                    ratios.append(ratio)
                if dev.id in cut:
                    box.spof += 1
            if ratios:
                box.oversubscription = max(ratios)
                box.oversubscribed = len(ratios)
            self.boxes[box.key] = box
            for dev in members:
                self.box_of[dev.id] = box.key

    def _bundles(self, cables: Counter[tuple[str, str]]) -> None:
        bundles: dict[tuple[str, str, str], Bundle] = {}
        cut = {id(link) for link, _ in self.fabric.cut_links}
        box_of = self.box_of
        for link in self.fabric.links:
            a = box_of.get(link.a.device.id)  # type: ignore[union-attr]
            b = box_of.get(link.b.device.id)  # type: ignore[union-attr]
            if a is None or b is None or a == b:
                continue  # an SU not drawn (its class is), or inside one box
            media = link.link.media if link.link.media in MEDIA else "unknown"
            key = (a, b, media) if a < b else (b, a, media)
            bundle = bundles.get(key)
            if bundle is None:
                bundle = bundles[key] = Bundle()
            bundle.cables += 1
            bundle.speeds[link.speed or 0.0] += 1
            bundle.spof |= id(link) in cut
        self.bundles = bundles

    # -- placing and drawing -------------------------------------------------------------

    def place(self, x0: float, y0: float) -> tuple[float, float]:
        """Put the boxes in rows by tier; return the panel's width and height."""
        tiers = sorted({b.tier for b in self.boxes.values() if b.tier >= 1}, reverse=True)
        has_lost = any(b.tier < 0 for b in self.boxes.values())
        rows = [*tiers, 0] + ([-1] if has_lost else [])
        self.rows = rows
        # The SUs side by side: each as wide as its widest tier (leaves or racks).
        step = BOX_W + GAP
        x = x0 + 110
        su_spans: list[tuple[float, float]] = []
        for index in range(len(self.su_classes)):
            leaves = [b for k, b in self.boxes.items() if k.startswith(f"su{index}-l")]
            nodes = [b for k, b in self.boxes.items() if k.startswith(f"su{index}-n")]
            span = max(len(leaves), len(nodes), 1) * step
            for row_boxes in (leaves, nodes):
                offset = (span - len(row_boxes) * step) / 2
                for i, box in enumerate(row_boxes):
                    box.x = x + offset + i * step
            su_spans.append((x, span))
            x += span + GAP * 2
        width = max(x - x0, 600.0)
        for tier in rows:
            if tier in (0, 1):
                continue
            row_boxes = [b for b in self.boxes.values() if b.tier == tier]
            span = len(row_boxes) * step
            start = x0 + 110 + max(0.0, (width - 110 - span) / 2)
            for i, box in enumerate(row_boxes):
                box.x = start + i * step
            width = max(width, 110 + span + GAP)
        for r, tier in enumerate(rows):
            for box in self.boxes.values():
                if box.tier == tier:
                    box.y = y0 + ROWS_TOP + r * TIER_H
        self.su_spans = su_spans
        return width, ROWS_TOP + (len(rows) - 1) * TIER_H + BOX_H + 30

    def draw(self, out: list[str], x0: float, y0: float, width: float) -> None:
        fabric = self.fabric
        head = (
            f"fabric {fabric.name} · {fabric.tech} · {len(fabric.nodes)} GPU nodes · "
            f"{fabric.gpus} GPUs · {len(fabric.switches)} switches · {len(fabric.links)} cables"
        )
        out.append(f'<text class="h2" x="{num(x0)}" y="{num(y0 + 18)}">{text(head)}</text>\n')
        for r, tier in enumerate(self.rows):
            y = y0 + ROWS_TOP + r * TIER_H + BOX_H / 2 + 4
            out.append(
                f'<text class="h3 mu" x="{num(x0)}" y="{num(y)}">'
                f"{text(_tier_name(tier, fabric.max_tier))}</text>"
            )
        captions = self._frames(out, y0)
        labels = self._bundle_lines(out)
        for box in self.boxes.values():
            self._box(out, box)
        # Over the lines: each bundle's count where it collides with no other count, SU
        # caption or box, then the captions, both on the frame's colour.
        taken = _Taken()
        for box in self.boxes.values():
            taken.add((box.x, box.y, box.x + BOX_W, box.y + BOX_H))
        for x, y, caption in captions:
            taken.add((x - 2, y - 9, x + _width(caption, SM_CHAR) + 2, y + 3))
        for candidates, label in labels:
            x, y = _free_spot(candidates, _width(label, XS_CHAR), taken)
            out.append(
                f'<rect class="cap" x="{num(x - 1)}" y="{num(y - 6.5)}" '
                f'width="{num(_width(label, XS_CHAR) + 2)}" height="9"/>'
                f'<text class="xs" x="{num(x)}" y="{num(y)}">{text(label)}</text>\n'
            )
        for x, y, caption in captions:
            out.append(
                f'<rect class="cap" x="{num(x - 2)}" y="{num(y - 9)}" '
                f'width="{num(_width(caption, SM_CHAR) + 4)}" height="12"/>'
                f'<text class="sm mu" x="{num(x)}" y="{num(y)}">{text(caption)}</text>\n'
            )

    def _frames(self, out: list[str], y0: float) -> list[tuple[float, float, str]]:
        """The SU frames; their captions, (x, baseline, text), drawn last."""
        captions = []
        for index, (sx, span) in enumerate(self.su_spans):
            same = self.su_classes[index]
            top = (
                y0 + ROWS_TOP + self.rows.index(1) * TIER_H - 26
                if 1 in self.rows
                else y0 + ROWS_TOP
            )
            bottom = y0 + ROWS_TOP + self.rows.index(0) * TIER_H + BOX_H + 10
            label = f"scalable unit {index + 1}"
            if len(same) > 1:
                label += f" · × {len(same)} identical, drawn once"
            out.append(
                f'<rect class="grp" x="{num(sx - 8)}" y="{num(top)}" '
                f'width="{num(span - GAP + 16)}" height="{num(bottom - top)}" rx="6"/>\n'
            )
            captions.append((sx, top + 12, label))
        return captions

    def _bundle_lines(self, out: list[str]) -> list[tuple[list[tuple[float, float]], str]]:
        """The bundles' lines; for each, the spots along it its count may take (the middle
        first) and the count, placed once every line is drawn."""
        labels = []
        for (a, b, media), bundle in sorted(self.bundles.items()):
            ba, bb = self.boxes[a], self.boxes[b]
            upper, lower = (ba, bb) if ba.y <= bb.y else (bb, ba)
            x1, y1 = upper.x + BOX_W / 2, upper.y + BOX_H
            x2, y2 = lower.x + BOX_W / 2, lower.y
            if upper.y == lower.y:
                y1, y2 = upper.y + BOX_H / 2, lower.y + BOX_H / 2
                x1, x2 = upper.x + BOX_W, lower.x
            shift = (MEDIA.index(media) - 2) * 3
            x1 += shift
            x2 += shift
            widths = 1 + min(4.0, bundle.cables**0.5 / 2)
            speeds = " + ".join(
                f"{n} × {_speed(speed)}" if n > 1 else _speed(speed)
                for speed, n in sorted(bundle.speeds.items())
            )
            tip = f"{ba.title} ↔ {bb.title}: {bundle.cables} cables, {speeds}, {media}"
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            spof = ""
            if bundle.spof:
                tip += " · single point of failure"
                spof = f'<text class="sm se" x="{num(mx + 4)}" y="{num(my + 10)}">SPOF</text>'
            out.append(
                f'<g><title>{text(tip)}</title><path class="ln {MEDIA_CLASS[media]}" '
                f'stroke-width="{num(widths)}" d="M{num(x1)} {num(y1)}L{num(x2)} {num(y2)}"/>'
                f"{spof}</g>\n"
            )
            spots = [(x1 + (x2 - x1) * t + 3, y1 + (y2 - y1) * t) for t in LABEL_SPOTS]
            labels.append((spots, f"×{bundle.cables}"))
        return labels

    def _box(self, out: list[str], box: Box) -> None:
        tip = [box.title, box.detail] if box.detail else [box.title]
        if len(box.members) > 1 and box.tier != 0:
            tip.append(
                ", ".join(d.id for d in box.members[:20]) + (" …" if len(box.members) > 20 else "")
            )
        if box.count_note:
            tip.append(box.count_note)
        marks = []
        if box.oversubscription is not None:
            ratio = f"{box.oversubscription:.2g}:1"
            tip.append(
                f"oversubscribed: downlinks {ratio} of uplinks"
                + (f" ({box.oversubscribed} switches)" if len(box.members) > 1 else "")
            )
            marks.append(
                f'<rect class="ovs" x="{num(box.x - 3)}" y="{num(box.y - 3)}" '
                f'width="{BOX_W + 6}" height="{BOX_H + 6}" rx="4"/>'
                f'<text class="sm r" x="{num(box.x + BOX_W - 4)}" y="{num(box.y + BOX_H - 5)}">'
                f"{ratio}</text>"
            )
        if box.spof:
            tip.append(
                "single point of failure"
                + (f" ({box.spof} switches)" if len(box.members) > 1 else "")
            )
            marks.append(
                f'<rect class="spof" x="{num(box.x - 6)}" y="{num(box.y - 6)}" '
                f'width="{BOX_W + 12}" height="{BOX_H + 12}" rx="6"/>'
                f'<use href="#se" x="{num(box.x + BOX_W - 12)}" y="{num(box.y + 2)}"/>'
                f'<text class="sm" x="{num(box.x + BOX_W - 40)}" y="{num(box.y + 10)}">SPOF</text>'
            )
        chars = int((BOX_W - 8) / 6.02)
        small = int((BOX_W - 8) / 4.82)
        lines = [box.detail] if box.detail else []
        if box.count_note:
            lines.append(box.count_note)
        sub = "".join(
            f'<text class="sm" x="{num(box.x + 5)}" y="{num(box.y + 26 + 10 * i)}">'
            f"{text(clip(line, small))}</text>"
            for i, line in enumerate(lines[:2])
        )
        out.append(
            f'<g class="{kind_class(box.kind)}"><title>{text(chr(10).join(tip))}</title>'
            f'<rect class="b" x="{num(box.x)}" y="{num(box.y)}" width="{BOX_W}" '
            f'height="{BOX_H}" rx="3"/>'
            f'<text x="{num(box.x + 5)}" y="{num(box.y + 13)}">'
            f"{text(clip(box.title, chars))}</text>"
            f"{sub}{''.join(marks)}</g>\n"
        )


def topology(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic] = (),
    *,
    theme: str = "light",
    date: str | None = None,
) -> str:
    width, height, parts = topology_parts(analysis, diagnostics, date=date)
    return svg.document(
        width, height, parts, theme=theme, title=f"{analysis.layout.name}: topology"
    )


def topology_parts(
    analysis: Analysis, diagnostics: Iterable[Diagnostic] = (), *, date: str | None = None
) -> tuple[float, float, list[str]]:
    """The topology drawing's size and elements, for a document or a print page."""
    layout = analysis.layout
    margin = 24
    body: list[str] = []
    y: float = margin + 90
    width = 900.0
    for fabric in analysis.fabrics:
        drawing = _FabricDrawing(analysis, fabric)
        drawing.build()
        w, h = drawing.place(margin, y)
        drawing.draw(body, margin, y, w)
        width = max(width, w + 2 * margin)
        y += h + 40
    if not analysis.fabrics:
        body.append(
            f'<text class="h3" x="{margin}" y="{y + 20}">No compute fabric: no cables between '
            "compute ports.</text>"
        )
        y += 40
    head = [
        f'<text class="h1" x="{margin}" y="{margin + 18}">{text(layout.name)}</text>',
        f'<text class="mu" x="{margin}" y="{margin + 36}">'
        f"{text('Compute fabric topology' + (' · ' + date if date else ''))}</text>",
    ]
    cx: float = margin
    for media in MEDIA:
        head.append(
            f'<path class="ln {MEDIA_CLASS[media]}" stroke-width="2" '
            f'd="M{cx} {margin + 56}h26"/><text class="sm" x="{cx + 30}" y="{margin + 59}">'
            f"{media}</text>"
        )
        cx += 40 + len(media) * 4.82 + 14
    head.append(
        f'<rect class="ovs" x="{cx}" y="{margin + 50}" width="18" height="12"/>'
        f'<text class="sm" x="{cx + 24}" y="{margin + 59}">oversubscribed (down:up)</text>'
        f'<rect class="spof" x="{cx + 160}" y="{margin + 50}" width="18" height="12"/>'
        f'<text class="sm" x="{cx + 184}" y="{margin + 59}">single point of failure</text>'
        f'<text class="sm mu" x="{margin}" y="{margin + 76}">boxes: a switch, a group of '
        "switches, or the nodes of a rack; lines: bundles of cables (×N), one per media</text>"
    )
    width = max(width, cx + 340)
    return width, y + margin, [*head, "\n", *body]
