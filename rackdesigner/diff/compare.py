"""What a change to a layout means: entities by id, figures before → after, findings.

:func:`diff` compares two layouts by entity id, never by line. Renames are detected
first, so that an id changed on an otherwise identical entity reads as a rename:

- a **rack** removed and one added with the same row, slot, height, cooling and devices
  (models, positions, faces) is renamed;
- a **device** removed and one added with the same model, rack, position, face and cables
  (the same ports to the same peers) is renamed.

Links have no id: one is the same link when it joins the same two ports (after renames),
re-routed when it keeps one end and the other moved, else added or removed.

Figures per rack (load, heat to air and liquid, units, weight) come from the analysis;
per fabric (switches, cables, oversubscription, bisection, expected bus bandwidth) from
:mod:`rackdesigner.topology.figures`, computed only where cables or fabric devices changed.
Findings are matched by code and subject as a baseline matches them
(:func:`rackdesigner.check.suppressions.subject_of`), renamed subjects mapped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.weight import rack_weight
from rackdesigner.whatif.incremental import common_ends

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Device, Feed, Layout, Link, Rack

LENGTH_TOLERANCE = 0.5  # m: a cable length that changes by less is not reported
FIGURE_TOLERANCE = 1e-6  # relative: figures closer than this are equal

RACK_FIELDS = ("height", "cooling", "door", "cdu", "inrow", "airflow", "max_weight", "weight")
FEED_FIELDS = (
    "side",
    "voltage",
    "phases",
    "current",
    "circuit",
    "wiring",
    "derate",
    "source",  # (v1.4) the power-chain element it hangs on
    "position",
)
# (v1.4) A power-chain element's fields a diff reports.
ELEMENT_FIELDS = (
    "kind",
    "fed_by",
    "model",
    "label",
    "capacity",
    "apparent_power",
    "voltage",
    "primary_voltage",
    "current",
    "phases",
    "power_factor",
    "derate",
    "efficiency",
    "modules",
    "redundancy",
    "runtime",
    "overload",
    "start_time",
    "step_load",
    "positions",
)
DEVICE_FIELDS = ("label", "hostname", "phase", "side", "feed", "supply_setpoint")
# (v1.4) A water loop's declared keys, as the diff compares them.
LOOP_FIELDS = (
    "kind",
    "ashrae_class",
    "supply_temperature",
    "capacity",
    "flow",
    "fluid",
    "plant",
    "devices",
)


@dataclass(slots=True)
class Change:
    """One entity that changed: what it is, and each field as (name, before, after)."""

    kind: str  # "rack", "device", "link", (v1.4) "power element"
    id: str
    what: str  # "added", "removed", "renamed", "moved", "changed", "remodelled", "rerouted"
    fields: list[tuple[str, str, str]] = field(default_factory=list)

    def text(self) -> str:
        detail = "; ".join(f"{name} {old} → {new}" for name, old, new in self.fields)
        return f"{self.kind} {self.id} {self.what}" + (f": {detail}" if detail else "")


@dataclass(slots=True)
class Figures:
    """Figures of one rack or fabric, before and after (None: not there)."""

    kind: str  # "rack", "fabric", "site", (v1.4) "power element"
    id: str
    before: dict[str, float | None] | None
    after: dict[str, float | None] | None

    def changed(self) -> list[str]:
        if self.before is None or self.after is None:
            return list((self.before or self.after or {}).keys())
        return [k for k in self.before if not _same(self.before[k], self.after.get(k))]


@dataclass(slots=True)
class Diff:
    racks: list[Change] = field(default_factory=list)
    devices: list[Change] = field(default_factory=list)
    links: list[Change] = field(default_factory=list)
    rack_figures: list[Figures] = field(default_factory=list)
    fabric_figures: list[Figures] = field(default_factory=list)
    findings_new: list[Diagnostic] = field(default_factory=list)
    findings_fixed: list[Diagnostic] = field(default_factory=list)
    cost: tuple[float, float] = (0.0, 0.0)  # USD, known prices, before and after
    other: list[Change] = field(default_factory=list)  # site, workload, catalog
    loops: list[Change] = field(default_factory=list)  # (v1.4) [[cooling.loops]]
    loop_figures: list[Figures] = field(default_factory=list)  # (v1.4) heat, temperatures
    # Whole-layout figures, (before, after): racks, devices, links, gpus, load (W), cost.
    totals: dict[str, tuple[float, float]] = field(default_factory=dict)
    # (v1.4) power-chain elements added, removed or changed, and their figures
    power: list[Change] = field(default_factory=list)
    power_figures: list[Figures] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.racks
            or self.devices
            or self.links
            or self.rack_figures
            or self.fabric_figures
            or self.findings_new
            or self.findings_fixed
            or self.other
            or self.power
            or self.power_figures
            or self.loops
            or self.loop_figures
            or not _same(self.cost[0], self.cost[1])
        )

    @property
    def new_errors(self) -> list[Diagnostic]:
        return [d for d in self.findings_new if d.severity == "error"]


Numbers = dict[str, float | None]


@dataclass(slots=True)
class Side:
    """What :func:`diff` reads of one layout's analysis: the layout, each link's length (in
    the layout's order), each rack's figures, the totals and the cost; the fabric figures
    when asked (only where cables or fabric devices changed). Plain data, so that the
    old layout's side can be computed in another process (:mod:`rackdesigner.diff.sides`)."""

    layout: Layout
    lengths: list[float | None]
    racks: list[tuple[str, Numbers]]
    devices: int
    gpus: float
    load: float
    cost: float
    fabric: Callable[[], dict[str, Numbers]]
    # (v1.4) each power-chain element's figures (id, numbers), in file order
    power: list[tuple[str, Numbers]] = field(default_factory=list)
    loops: list[tuple[str, Numbers]] = field(default_factory=list)  # (v1.4) each loop's

    @classmethod
    def of(cls, analysis: Analysis, *, lengths: list[float | None] | None = None) -> Side:
        """``lengths``: each cable's, where the caller has them (the new side of
        :func:`~rackdesigner.diff.sides.check_pair` takes the old side's where alike)."""
        if lengths is None:
            lengths = [facts.length for facts in analysis.links]
        layout = analysis.layout
        return cls(
            layout=layout,
            lengths=lengths,
            racks=[(rack.rack.id, _rack_numbers(rack)) for rack in analysis.racks],
            devices=len(analysis.devices),
            gpus=float(analysis.total_gpus),
            load=analysis.site_load,
            cost=_cost(analysis),
            fabric=lambda: _fabric_numbers(analysis),
            power=_power_numbers(analysis),
            loops=_loop_numbers(analysis),
        )


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= FIGURE_TOLERANCE * max(1.0, abs(a), abs(b))


def _text(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, list):
        # (v1.4) a UPS's overload table: [load, time] pairs as written
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, tuple):
        return " for ".join(_text(v) for v in value)
    if isinstance(value, float) and not hasattr(value, "text"):
        return f"{value:g}"
    return str(value)


def _values_equal(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return float(a) == float(b)
    return a == b


# -- renames ------------------------------------------------------------------------------------


def _unique_pairs(
    removed: Sequence[str], added: Sequence[str], signature: Callable[[str, bool], object]
) -> dict[str, str]:
    """Old id -> new id where exactly one removed and one added entity share a signature."""
    olds: dict[object, list[str]] = {}
    for ident in removed:
        olds.setdefault(signature(ident, True), []).append(ident)
    news: dict[object, list[str]] = {}
    for ident in added:
        news.setdefault(signature(ident, False), []).append(ident)
    return {
        olds[key][0]: ids[0]
        for key, ids in news.items()
        if len(ids) == 1 and len(olds.get(key, ())) == 1
    }


def _device_table(layout: Layout) -> dict[str, tuple[Rack, Device]]:
    out: dict[str, tuple[Rack, Device]] = {}
    for rack in layout.racks:
        for device in rack.devices:
            out.setdefault(device.id, (rack, device))
    return out


def _ports(links: Sequence[Link]) -> dict[str, list[tuple[str, str]]]:
    """Each device's cabled ports: (its port, the far end), from both ends."""
    out: dict[str, list[tuple[str, str]]] = {}
    for link in links:
        a_dev, _, a_port = link.a.partition(":")
        b_dev, _, b_port = link.b.partition(":")
        out.setdefault(a_dev, []).append((a_port, link.b))
        out.setdefault(b_dev, []).append((b_port, link.a))
    return out


def _map_end(end: str, renamed: dict[str, str]) -> str:
    device, colon, port = end.partition(":")
    new = renamed.get(device)
    return f"{new}{colon}{port}" if new is not None else end


# -- the comparison -----------------------------------------------------------------------------


def diff(
    old: Analysis | Side,
    new: Analysis | Side,
    *,
    old_findings: Sequence[Diagnostic] | None = None,
    new_findings: Sequence[Diagnostic] | None = None,
    length_tolerance: float = LENGTH_TOLERANCE,
) -> Diff:
    """What changed from ``old`` to ``new`` (analyses of the two layouts, or their
    :class:`Side`). Findings are compared when both lists are given (the rules' findings of
    each layout)."""
    if not isinstance(old, Side):
        old = Side.of(old)
    if not isinstance(new, Side):
        new = Side.of(new)
    result = Diff()
    a, b = old.layout, new.layout
    old_racks = {r.id: r for r in a.racks}
    new_racks = {r.id: r for r in b.racks}
    removed_racks = [i for i in old_racks if i not in new_racks]
    added_racks = [i for i in new_racks if i not in old_racks]

    def rack_signature(ident: str, is_old: bool) -> object:
        rack = (old_racks if is_old else new_racks)[ident]
        devices = tuple(sorted((d.model, d.position or 0, d.face or "") for d in rack.devices))
        return (rack.row, rack.slot, rack.height_u, rack.cooling_mode, devices)

    rack_renames = _unique_pairs(removed_racks, added_racks, rack_signature)
    old_devices = _device_table(a)
    new_devices = _device_table(b)
    removed_devices = [i for i in old_devices if i not in new_devices]
    added_devices = [i for i in new_devices if i not in old_devices]
    old_ports = _ports(a.links) if removed_devices and added_devices else {}
    new_ports = _ports(b.links) if removed_devices and added_devices else {}
    removed_set = set(removed_devices)

    def device_signature(ident: str, is_old: bool) -> object:
        rack, device = (old_devices if is_old else new_devices)[ident]
        rack_id = rack_renames.get(rack.id, rack.id) if is_old else rack.id
        ports = (old_ports if is_old else new_ports).get(ident, [])
        # A peer renamed too is unknown yet: compare ports, and peers not renamed.
        peers = []
        for port, far in ports:
            peer = far.partition(":")[0]
            peers.append((port, "?" if (is_old and peer in removed_set) else far))
        if not is_old:
            peers = [
                (port, "?" if far.partition(":")[0] in added_set else far) for port, far in peers
            ]
        return (device.model, rack_id, device.position, device.face, tuple(sorted(peers)))

    added_set = set(added_devices)
    device_renames = _unique_pairs(removed_devices, added_devices, device_signature)

    _racks(result, old_racks, new_racks, rack_renames)
    _devices(result, old_devices, new_devices, rack_renames, device_renames)
    fabric_touched = _links(result, old, new, device_renames, length_tolerance)
    for change in result.devices:
        if change.what in ("added", "removed", "remodelled"):
            fabric_touched = True
    _rack_figures(result, old, new, rack_renames)
    _fabric_figures(result, old, new, fabric_touched)
    _other(result, a, b)
    _power(result, a, b)
    _power_figures(result, old, new)
    _loops(result, old, new)
    if old_findings is not None and new_findings is not None:
        _findings(result, old_findings, new_findings, rack_renames, device_renames)
    result.cost = (old.cost, new.cost)
    result.totals = {
        "racks": (float(len(a.racks)), float(len(b.racks))),
        "devices": (float(old.devices), float(new.devices)),
        "links": (float(len(a.links)), float(len(b.links))),
        "gpus": (old.gpus, new.gpus),
        "load": (old.load, new.load),
        "cost": result.cost,
    }
    if old_findings is not None and new_findings is not None:
        for severity in ("error", "warning"):
            result.totals[severity + "s"] = (
                float(sum(1 for d in old_findings if d.severity == severity and not d.suppressed)),
                float(sum(1 for d in new_findings if d.severity == severity and not d.suppressed)),
            )
    return result


def _field_changes(old: object, new: object, names: Sequence[str]) -> list[tuple[str, str, str]]:
    out = []
    for name in names:
        before, after = getattr(old, name), getattr(new, name)
        if not _values_equal(before, after):
            out.append((name, _text(before), _text(after)))
    return out


def _feed_changes(old: Sequence[Feed], new: Sequence[Feed]) -> list[tuple[str, str, str]]:
    before = {f.id: f for f in old}
    after = {f.id: f for f in new}
    out = []
    for ident, feed in before.items():
        if ident not in after:
            out.append((f"feed {ident}", "present", "removed"))
            continue
        for name, was, now in _field_changes(feed, after[ident], FEED_FIELDS):
            out.append((f"feed {ident} {name}", was, now))
    for ident in after:
        if ident not in before:
            out.append((f"feed {ident}", "absent", "added"))
    return out


def _racks(
    result: Diff, old: dict[str, Rack], new: dict[str, Rack], renames: dict[str, str]
) -> None:
    renamed_to = set(renames.values())
    for ident, rack in old.items():
        target = renames.get(ident, ident)
        other = new.get(target)
        if other is None:
            result.racks.append(Change("rack", ident, "removed"))
            continue
        if target != ident:
            result.racks.append(Change("rack", ident, "renamed", [("id", ident, target)]))
        moved = _field_changes(rack, other, ("row", "slot"))
        if moved:
            result.racks.append(Change("rack", target, "moved", moved))
        changed = _field_changes(rack, other, RACK_FIELDS) + _feed_changes(rack.feeds, other.feeds)
        if changed:
            result.racks.append(Change("rack", target, "changed", changed))
    for ident in new:
        if ident not in old and ident not in renamed_to:
            result.racks.append(Change("rack", ident, "added"))


def _devices(
    result: Diff,
    old: dict[str, tuple[Rack, Device]],
    new: dict[str, tuple[Rack, Device]],
    rack_renames: dict[str, str],
    renames: dict[str, str],
) -> None:
    renamed_to = set(renames.values())
    for ident, (rack, device) in old.items():
        target = renames.get(ident, ident)
        found = new.get(target)
        if found is None:
            result.devices.append(Change("device", ident, "removed", [("in rack", rack.id, "–")]))
            continue
        other_rack, other = found
        if (
            other == device
            and target == ident
            and rack_renames.get(rack.id, rack.id) == (other_rack.id)
        ):
            continue  # the common case: every field alike, nothing to look at one by one
        if target != ident:
            result.devices.append(Change("device", ident, "renamed", [("id", ident, target)]))
        moved = []
        if rack_renames.get(rack.id, rack.id) != other_rack.id:
            moved.append(("rack", rack.id, other_rack.id))
        moved += _field_changes(device, other, ("position", "face"))
        if moved:
            result.devices.append(Change("device", target, "moved", moved))
        if device.model != other.model:
            result.devices.append(
                Change("device", target, "remodelled", [("model", device.model, other.model)])
            )
        changed = _field_changes(device, other, DEVICE_FIELDS)
        if changed:
            result.devices.append(Change("device", target, "changed", changed))
    for ident, (rack, _) in new.items():
        if ident not in old and ident not in renamed_to:
            result.devices.append(Change("device", ident, "added", [("in rack", "–", rack.id)]))


def _link_keys(links: Sequence[Link], renames: dict[str, str]) -> list[frozenset[str]]:
    if renames:
        return [frozenset((_map_end(link.a, renames), _map_end(link.b, renames))) for link in links]
    return [frozenset((link.a, link.b)) for link in links]


Keys = dict[int, frozenset[str]]


def _pair_links(
    old: Sequence[Link], new: Sequence[Link], renames: dict[str, str]
) -> tuple[list[tuple[int, int]], list[int], list[int], Keys, Keys]:
    """The links that are the same (old index, new index), the old ones left and the new
    ones left (each in order), and the keys (the two ends, renames applied) of those left.

    One link is another when it joins the same two ports: the k-th old link of a key is
    the k-th new one of that key. Without renames, the lists' common head and tail
    (:func:`~rackdesigner.whatif.incremental.common_ends`) pair by place, unless a
    link of theirs might share its key with one between them (both its ends are ends of
    those): then, as with renames, every link is keyed."""
    head, tail = (0, 0) if renames else common_ends(old, new)
    middle_old = range(head, len(old) - tail)
    middle_new = range(head, len(new) - tail)
    if head or tail:
        ends = {
            end
            for links, span in ((old, middle_old), (new, middle_new))
            for i in span
            for end in (links[i].a, links[i].b)
        }
        if any(link.a in ends and link.b in ends for link in old[:head]) or any(
            link.a in ends and link.b in ends for link in old[len(old) - tail :]
        ):
            head = tail = 0
            middle_old, middle_new = range(len(old)), range(len(new))
    if head or tail:
        old_keys = {i: frozenset((old[i].a, old[i].b)) for i in middle_old}
    else:
        old_keys = dict(enumerate(_link_keys(old, renames)))
    new_keys = {i: frozenset((new[i].a, new[i].b)) for i in middle_new}
    unmatched: dict[frozenset[str], list[int]] = {}
    for index in middle_new:
        unmatched.setdefault(new_keys[index], []).append(index)
    pairs = [(i, i) for i in range(head)]
    left_old: list[int] = []
    for index in middle_old:
        found = unmatched.get(old_keys[index])
        if found:
            pairs.append((index, found.pop(0)))
        else:
            left_old.append(index)
    shift = len(new) - len(old)
    pairs.extend((i, i + shift) for i in range(len(old) - tail, len(old)))
    left_new = sorted(i for ids in unmatched.values() for i in ids)
    return pairs, left_old, left_new, old_keys, new_keys


def _links(result: Diff, old: Side, new: Side, renames: dict[str, str], tolerance: float) -> bool:
    """Link changes; True when a cable was added, removed or re-routed (the fabric)."""
    old_links, new_links = old.layout.links, new.layout.links
    pairs, left_old, left_new, old_keys, new_keys = _pair_links(old_links, new_links, renames)
    touched = bool(left_old or left_new)
    # Re-routed: one end kept, the other moved.
    by_end: dict[str, list[int]] = {}
    for index in left_new:
        for end in new_keys[index]:
            by_end.setdefault(end, []).append(index)
    taken: set[int] = set()
    for index in left_old:
        link = old_links[index]
        match = None
        for end in (_map_end(link.a, renames), _map_end(link.b, renames)):
            for candidate in by_end.get(end, ()):
                if candidate not in taken:
                    match = (end, candidate)
                    break
            if match:
                break
        if match is None:
            result.links.append(Change("link", link.name, "removed"))
            continue
        end, candidate = match
        taken.add(candidate)
        other = new_links[candidate]
        was = next(iter(old_keys[index] - {end}), end)
        now = next(iter(new_keys[candidate] - {end}), end)
        result.links.append(Change("link", other.name, "rerouted", [("end", was, now)]))
    for index in left_new:
        if index not in taken:
            result.links.append(Change("link", new_links[index].name, "added"))
    old_lengths, new_lengths = old.lengths, new.lengths
    for i, j in pairs:
        link, other = old_links[i], new_links[j]
        if link.media == other.media and link.grade == other.grade:
            fields = []  # the common case, without a look at each field
        else:
            fields = _field_changes(link, other, ("media", "grade"))
        before, after = old_lengths[i], new_lengths[j]
        if (before is None) != (after is None) or (
            before is not None and after is not None and abs(after - before) > tolerance
        ):
            fields.append(("length", _metres(before), _metres(after)))
        if fields:
            what = "re-mediaed" if any(f[0] == "media" for f in fields) else "changed"
            result.links.append(Change("link", other.name, what, fields))
    return touched


def _metres(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} m"


def _rack_numbers(rack: Any) -> dict[str, float | None]:
    return {
        "load": rack.load,
        "liquid_heat": rack.liquid_heat,
        "air_heat": rack.air_heat,
        "units_used": rack.units_used,
        "weight": rack_weight(rack).carried,  # as PLC004 judges it and validate prints it
        "gpus": float(rack.gpus),
    }


def _rack_figures(result: Diff, old: Side, new: Side, renames: dict[str, str]) -> None:
    after = dict(new.racks)
    seen: set[str] = set()
    for ident, numbers in old.racks:
        target = renames.get(ident, ident)
        other = after.get(target)
        seen.add(target)
        figures = Figures("rack", target, dict(numbers), dict(other) if other is not None else None)
        if figures.after is None or figures.changed():
            result.rack_figures.append(figures)
    for ident, numbers in after.items():
        if ident not in seen:
            result.rack_figures.append(Figures("rack", ident, None, dict(numbers)))


def _fabric_numbers(analysis: Analysis) -> dict[str, Numbers]:
    from rackdesigner.rules.network.allreduce_bandwidth import acceptance_tests
    from rackdesigner.topology.figures import all_fabric_figures

    efficiency = analysis.thresholds["nccl_efficiency"]
    out = {}
    for figures in all_fabric_figures(analysis, detail=False):
        fabric = figures.fabric
        # The report's whole-fabric acceptance figure (across NVLink domains for NVL72).
        whole = [t.busbw for t in acceptance_tests(fabric, efficiency) if t.scope == "fabric"]
        out[fabric.name] = {
            "gpus": float(fabric.gpus),
            "switches": float(len(fabric.switches)),
            "cables": float(len(fabric.links)),
            "oversubscription": figures.oversubscription,
            "bisection": figures.bisection.bandwidth,
            "busbw": whole[0] if whole else figures.inter,
        }
    return out


def _fabric_figures(result: Diff, old: Side, new: Side, touched: bool) -> None:
    if not touched:
        return
    before, after = old.fabric(), new.fabric()
    # Fabrics are named by their first leaf; a renamed anchor pairs by order.
    only_before = [n for n in before if n not in after]
    only_after = [n for n in after if n not in before]
    pairs = {n: n for n in before if n in after}
    pairs.update(zip(only_before, only_after, strict=False))
    for name, numbers in before.items():
        target = pairs.get(name)
        figures = Figures("fabric", target or name, numbers, after.get(target) if target else None)
        if figures.after is None or figures.changed():
            result.fabric_figures.append(figures)
    for name in after:
        if name not in pairs.values():
            result.fabric_figures.append(Figures("fabric", name, None, after[name]))


def _other(result: Diff, a: Layout, b: Layout) -> None:
    for section in ("site", "workload"):
        before, after = getattr(a, section), getattr(b, section)
        if before == after:
            continue
        if before is None or after is None:
            what = "added" if before is None else "removed"
            result.other.append(Change(section, "", what))
            continue
        names = [f for f in type(before).__slots__ if f not in ("comment", "notes")]
        fields = _field_changes(before, after, names)
        if fields:
            result.other.append(Change(section, "", "changed", fields))
    for key in sorted(set(a.catalog) | set(b.catalog)):
        before, after = a.catalog.get(key), b.catalog.get(key)
        if before == after:
            continue
        what = "added" if before is None else "removed" if after is None else "changed"
        result.other.append(Change("catalog entry", key, what))


def _power(result: Diff, a: Layout, b: Layout) -> None:
    """(v1.4) Power-chain elements added, removed and changed, by id."""
    before = {e.id: e for e in a.power_elements}
    after = {e.id: e for e in b.power_elements}
    for ident, element in before.items():
        other = after.get(ident)
        if other is None:
            result.power.append(Change("power element", ident, "removed"))
        elif other != element:
            fields = _field_changes(element, other, ELEMENT_FIELDS)
            if fields:
                result.power.append(Change("power element", ident, "changed", fields))
    for ident, element in after.items():
        if ident not in before:
            result.power.append(
                Change("power element", ident, "added", [("kind", "–", element.kind or "–")])
            )


def _power_numbers(analysis: Analysis) -> list[tuple[str, Numbers]]:
    """Each chain element's load, transient peak, rating and margin (W)."""
    if not analysis.layout.power_elements:
        return []
    return [
        (
            facts.id,
            {
                "load": facts.load,
                "peak": facts.peak,
                "rating": facts.rating,
                "margin": facts.margin,
            },
        )
        for facts in analysis.power_chain.elements
    ]


def _power_figures(result: Diff, old: Side, new: Side) -> None:
    after = dict(new.power)
    for ident, numbers in old.power:
        figures = Figures("power element", ident, dict(numbers), after.get(ident))
        if figures.after is not None and figures.changed():
            result.power_figures.append(figures)
    before = dict(old.power)
    for ident, numbers in new.power:
        if ident not in before:
            result.power_figures.append(Figures("power element", ident, None, dict(numbers)))


def _loop_numbers(analysis: Analysis) -> list[tuple[str, Numbers]]:
    """Each water loop's heat and temperatures (v1.4), where the layout declares loops."""
    if not analysis.layout.cooling_loops:
        return []
    from rackdesigner.analysis.liquid import plant_of

    return [
        (
            state.loop.id,
            {
                "loop_heat": state.heat,
                "supply_temperature": state.supply,
                "return_temperature": state.return_temperature,
            },
        )
        for state in plant_of(analysis).loops
    ]


def _loops(result: Diff, old: Side, new: Side) -> None:
    """(v1.4) Loops added, removed and changed (their declared keys), and their figures
    before and after."""
    before = {loop.id: loop for loop in old.layout.cooling_loops}
    after = {loop.id: loop for loop in new.layout.cooling_loops}
    for ident, loop in before.items():
        if ident not in after:
            result.loops.append(Change("loop", ident, "removed"))
            continue
        fields = _field_changes(loop, after[ident], LOOP_FIELDS)
        if fields:
            result.loops.append(Change("loop", ident, "changed", fields))
    for ident in after:
        if ident not in before:
            result.loops.append(Change("loop", ident, "added"))
    numbers = dict(new.loops)
    for ident, figures in old.loops:
        other = numbers.pop(ident, None)
        found = Figures("loop", ident, dict(figures), dict(other) if other is not None else None)
        if found.after is None or found.changed():
            result.loop_figures.append(found)
    for ident, figures in numbers.items():
        result.loop_figures.append(Figures("loop", ident, None, dict(figures)))


def _findings(
    result: Diff,
    old: Sequence[Diagnostic],
    new: Sequence[Diagnostic],
    rack_renames: dict[str, str],
    device_renames: dict[str, str],
) -> None:
    from rackdesigner.check.suppressions import subject_of

    def key(diagnostic: Diagnostic, renamed: bool) -> tuple[str, str, str]:
        kind, ident = subject_of(diagnostic)
        if renamed:
            if kind == "rack":
                ident = rack_renames.get(ident, ident)
            elif kind in ("device", "fabric"):
                ident = device_renames.get(ident, ident)
            elif kind == "link":
                ident = _map_end(ident, device_renames)
        return (diagnostic.code, kind, ident)

    def counted(findings: Sequence[Diagnostic]) -> list[Diagnostic]:
        return [d for d in findings if not d.suppressed and not d.is_load_error]

    before = Counter(key(d, True) for d in counted(old))
    after = Counter(key(d, False) for d in counted(new))
    left = Counter(before)
    for diagnostic in counted(new):
        k = key(diagnostic, False)
        if left[k] > 0:
            left[k] -= 1
        else:
            result.findings_new.append(diagnostic)
    right = Counter(after)
    for diagnostic in counted(old):
        k = key(diagnostic, True)
        if right[k] > 0:
            right[k] -= 1
        else:
            result.findings_fixed.append(diagnostic)


def _cost(analysis: Analysis) -> float:
    """USD at known prices: the bill of materials' total, which is its devices' (cables and
    optics carry no price; ``tests/diff`` holds the two to each other)."""
    from rackdesigner.export.tables import device_items

    return float(sum(item["total"] for item in device_items(analysis) if item["total"] is not None))
