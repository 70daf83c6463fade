"""(v1.4) The cable plant a generated layout is installed with: pathways for every row,
structured cabling between switch racks, media chosen by the routed lengths.

``rackdesigner new`` (and ``generate`` with ``--cabling``) call :func:`install`:

- **pathways** (:func:`hall_pathways`): an overhead tray over each row, from the aisle
  before its first rack to the aisle after its last, and cross-aisle runs joining the rows'
  trays at both ends of the rows and every :data:`CROSS_EVERY` racks between (so that a
  cable between rows takes no long detour; a choice of this generator, not a standard's).
  Each is sized after the cables are routed (:func:`size_pathways`): the narrowest width in
  50 mm steps, at a 100 mm depth, at which its busiest point stays within the 40 % design
  fill (CAB006, TIA-569's figure as cabling makers quote it);
- **structured cabling** (``cabling="structured"``, :func:`structure`): every fibre link
  between two switches in different racks (leaf to spine, spine to core: the links the
  SuperPOD reference architectures count as "Leaf-Spine" and "Spine-Core" cables) runs as
  a channel through 48-port MPO panels in the two switches' racks (the first free units
  from the top) and 144-fibre single-mode or multimode trunks between the racks, one
  per 12 channels of a rack pair (a 144-fibre trunk's twelve MPO-12 legs). The links stay
  the links the RAs count; panels and trunks are counted apart;
- **media by route** (:func:`route_media`): a link whose routed length its medium does not
  reach gets the cheapest medium that does (the generators chose by the row-and-slot
  length, which the pathways can only lengthen).
"""

from __future__ import annotations

import copy
import math
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis, LinkFacts
from rackdesigner.analysis.optics import link_shape
from rackdesigner.analysis.reach import MediaChooser
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.layout_io.catalog import for_layout as catalog_for
from rackdesigner.model.layout import Device, Layout, Pathway, Q, Rack, Trunk
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.design.generators.base import FabricPlan

CABLINGS = ("p2p", "structured")
CROSS_EVERY = 8  # racks between two cross-aisle runs
TRAY_DEPTH = 0.1  # m
TRAY_STEP = 0.05  # m: widths in 50 mm steps
TRAY_MIN = 0.1  # m
PANEL_MODEL = "fibre-panel-mpo-1u"
PANEL_PORTS = 48
TRUNK_FIBRES = 144
TRUNK_LINKS = TRUNK_FIBRES // 12  # a 144-fibre trunk's MPO-12 legs


@dataclass(slots=True)
class Installed:
    """What :func:`install` added: counts for the layout's header and the summary, and the
    compute cables now longer than ``cable_max`` (routed: CAB001 warns as many)."""

    pathways: int = 0
    panels: int = 0
    trunks: int = 0
    channels: int = 0
    remedia: int = 0
    long_runs: int = 0
    longest: tuple[str, float] | None = None
    notes: list[str] = field(default_factory=list)


def install(
    layout: Layout, cabling: str = "p2p", counted: frozenset[int] | None = None
) -> Installed:
    """Give ``layout`` its cable plant (see the module's docstring); in place. ``counted``:
    the links (by identity) whose long runs to count (a generator's), else every compute
    link."""
    done = Installed()
    if cabling == "structured":
        structure(layout, done)
    if not layout.pathways:
        layout.pathways = hall_pathways(layout)
        done.pathways = len(layout.pathways)
    if not layout.pathways:
        return done
    analysis = Analysis(layout)  # media, sizes and long runs read one analysis
    done.remedia = route_media(layout, analysis)
    size_pathways(layout, analysis)
    limit = float(analysis.thresholds["cable_max"]) + 1e-9
    for facts in analysis.links:
        length = facts.length
        if counted is not None and id(facts.link) not in counted:
            continue
        if facts.compute and length is not None and length > limit:
            done.long_runs += 1
            if done.longest is None or length > done.longest[1]:
                done.longest = (facts.link.name, length)
    if done.remedia:
        done.notes.append(remedia_note(done.remedia))
    return done


def install_in_place(layout: Layout, cabling: str | None) -> Installed:
    """``generate``'s part: an existing layout keeps its own pathways (none are added, none
    resized); ``structured`` runs its switch-to-switch fibre through panels and trunks, and
    where it declares pathways the media follow the routes."""
    done = Installed()
    if cabling == "structured":
        structure(layout, done)
    if layout.pathways:
        done.remedia = route_media(layout)
        if done.remedia:
            done.notes.append(remedia_note(done.remedia))
    return done


def remedia_note(changed: int) -> str:
    """What ``new``, ``generate`` and the designer's Generate fabric say of the cables whose
    medium the routes changed."""
    their = (
        "its route along the pathways is" if changed == 1 else "their routes along the pathways are"
    )
    return (
        f"{plural(changed, 'cable')} took another medium: {their} longer than "
        f"{'its' if changed == 1 else 'their'} first medium reaches"
    )


# -- pathways -------------------------------------------------------------------------------


def hall_pathways(layout: Layout) -> list[Pathway]:
    """A tray over each row and cross-aisle runs joining them (see the module's docstring);
    placeholders for size until :func:`size_pathways`."""
    spans: dict[str, tuple[int, int]] = {}
    order: list[str] = []
    for rack in layout.racks:
        if rack.slot is None:
            continue
        row = rack.row or ""
        if row not in spans:
            order.append(row)
            spans[row] = (rack.slot, rack.slot)
        low, high = spans[row]
        spans[row] = (min(low, rack.slot), max(high, rack.slot))
    if not order or any(not row for row in order):
        return []  # an unnamed row cannot be named by a pathway
    last = max(high for _, high in spans.values())
    out = [
        Pathway(
            f"tray-{row.lower()}",
            row=row,
            slots=[0, last + 1],
            width=TRAY_MIN,
            depth=TRAY_DEPTH,
            label=f"overhead tray, row {row}",
        )
        for row in order
    ]
    if len(order) > 1:
        crossings = sorted({0.0, float(last + 1), *_between(last)})
        for position in crossings:
            name = f"cross-{position:g}".replace(".", "_")
            out.append(
                Pathway(
                    name,
                    rows=[order[0], order[-1]],
                    slot=position,
                    width=TRAY_MIN,
                    depth=TRAY_DEPTH,
                    label=f"cross-aisle tray at slot {position:g}",
                )
            )
    return out


def _between(last: int) -> list[float]:
    """Cross-aisle positions every CROSS_EVERY racks, between two racks."""
    return [k + 0.5 for k in range(CROSS_EVERY, last, CROSS_EVERY)]


def size_pathways(layout: Layout, analysis: Analysis | None = None, fill: float = 0.4) -> None:
    """Each tray the narrowest width (50 mm steps, 100 mm deep) at which its busiest point
    stays within ``fill`` (the 40 % design fill, CAB006)."""
    if not layout.pathways:
        return
    analysis = analysis or Analysis(layout)
    for found in analysis.plant.fills(fill):
        pathway = found.pathway
        depth = float(pathway.depth or TRAY_DEPTH)
        needed = found.area / (fill * depth)
        steps = max(TRAY_MIN, math.ceil(needed / TRAY_STEP - 1e-9) * TRAY_STEP)
        width = round(steps, 3)
        pathway.width = Q(width, f"{width * 1000:g} mm")
        pathway.depth = Q(depth, f"{depth * 1000:g} mm")


# -- media by route -----------------------------------------------------------------------


def route_media(
    layout: Layout, analysis: Analysis | None = None, only: frozenset[int] | None = None
) -> int:
    """Give each link whose routed length its medium does not reach the cheapest medium
    that does; how many changed. ``only``: the links (by identity) to look at, else all.
    The channels through one trunk share its fibre: where one needs single-mode, all of
    them and the trunk take it (a single-mode channel through a multimode trunk is CAB013's
    error)."""
    if not layout.pathways:
        return 0
    analysis = analysis or Analysis(layout)
    media = _Media(layout)
    changed = 0
    trunked: dict[str, list[LinkFacts]] = defaultdict(list)
    for facts in analysis.links:
        if only is not None and id(facts.link) not in only:
            continue
        if facts.link.media is None or facts.length is None or facts.link.length is not None:
            continue
        if facts.link.trunk:
            trunked[facts.link.trunk].append(facts)
            continue
        chosen = media.needed(facts)
        if chosen is not None:
            facts.link.media = chosen
            changed += 1
    return changed + _trunk_media(layout, trunked, media)


class _Media:
    """The medium a link needs at its routed length, where its own does not reach (one
    MediaChooser per speed, form and technology)."""

    def __init__(self, layout: Layout) -> None:
        self.overrides = dict(layout.rules.thresholds) if layout.rules else {}
        self.choosers: dict[tuple[float | None, str, str | None], MediaChooser] = {}

    def needed(self, facts: LinkFacts) -> str | None:
        tech, form = link_shape(facts)
        key = (facts.speed, form, tech)
        chooser = self.choosers.get(key)
        if chooser is None:
            chooser = self.choosers[key] = MediaChooser(facts.speed, self.overrides, form, tech)
        reaches = dict((m, r) for r, m in chooser.steps)
        media, length = facts.link.media, facts.length or 0.0
        if media not in reaches or length <= reaches[media] + 1e-9:
            return None
        chosen = chooser(length)
        return chosen if chosen != media else None


def _trunk_media(layout: Layout, trunked: dict[str, list[LinkFacts]], media: _Media) -> int:
    """The channels of each trunk and the trunk on one fibre: each channel's medium (its own
    where it reaches), the farthest-reaching for all; how many channels changed. Channels
    that all reach on one medium are left as they are, with their trunk."""
    trunks = {trunk.id: trunk for trunk in layout.trunks}
    changed = 0
    for trunk_id, members in trunked.items():
        own = {facts.link.media for facts in members}
        needs = {media.needed(facts) or facts.link.media for facts in members}
        trunk = trunks.get(trunk_id)
        if trunk is None or (needs == own and len(own) == 1) or not needs <= {"mmf", "smf"}:
            continue  # a trunk is fibre: a channel that needs another medium is left to CAB003
        chosen = "smf" if "smf" in needs else "mmf"
        trunk.media = chosen
        for facts in members:
            if facts.link.media != chosen:
                facts.link.media = chosen
                changed += 1
    return changed


def plan_by_route(layout: Layout, plan: FabricPlan) -> int:
    """(The designer's Generate fabric) Re-choose the media of ``plan``'s cables by their
    routes along ``layout``'s pathways, as ``new`` does, and count its long runs by them;
    how many cables took another medium (said in the plan's notes). ``layout`` is left as
    it is: the plan is tried on a copy (its racks and lists copied, their devices and links
    shared), and only the plan's own links change."""
    if not layout.pathways or not plan.links:
        return 0
    from rackdesigner.design.generators.apply import apply_plan
    from rackdesigner.design.generators.build import long_runs_text

    trial = copy.copy(layout)
    trial.racks = [replace(rack, devices=list(rack.devices)) for rack in layout.racks]
    trial.links = list(layout.links)
    trial.catalog = dict(layout.catalog)
    racks = [replace(rack, devices=list(rack.devices)) for rack in plan.new_racks]
    apply_plan(trial, replace(plan, new_racks=racks))
    analysis = Analysis(trial)
    ours = frozenset(id(link) for link in plan.links)
    changed = route_media(trial, analysis, ours)
    limit = float(analysis.thresholds["cable_max"]) + 1e-9
    long_runs, longest = 0, None
    for facts in analysis.links:
        length = facts.length
        if id(facts.link) in ours and length is not None and length > limit:
            long_runs += 1
            if longest is None or length > longest[1]:
                longest = (facts.link.name, length)
    plan.long_runs, plan.longest = long_runs, longest
    # The generator said its long runs by the rows: say them again by the routes.
    plan.notes = [note for note in plan.notes if not _is_long_runs(note)]
    if longest is not None:
        plan.notes.append(
            long_runs_text(long_runs, len(plan.links), limit - 1e-9, longest[0], longest[1])
        )
    if changed:
        plan.notes.append(remedia_note(changed))
    return changed


def _is_long_runs(note: str) -> bool:
    return " cables run longer than " in note and "CAB001 warns" in note


# -- structured cabling -------------------------------------------------------------------


def structure(layout: Layout, done: Installed) -> None:
    """Run every fibre link between switches in two racks as a channel through panels in
    the two racks and trunks between them (see the module's docstring)."""
    catalog = catalog_for(layout)
    if PANEL_MODEL not in catalog.devices:
        return
    analysis = Analysis(layout)
    by_pair: dict[tuple[int, int], list] = defaultdict(list)
    for facts in analysis.links:
        da, db = facts.a.device, facts.b.device
        if facts.link.media not in ("mmf", "smf") or da is None or db is None:
            continue
        if da.kind != "switch" or db.kind != "switch" or da.rack is db.rack:
            continue
        key = (da.rack_index, db.rack_index)
        by_pair[key].append(facts)
    if not by_pair:
        return
    panels = _Panels(layout, catalog, done)
    for (ia, ib), members in sorted(by_pair.items()):
        rack_a, rack_b = layout.racks[ia], layout.racks[ib]
        for start in range(0, len(members), TRUNK_LINKS):
            group = members[start : start + TRUNK_LINKS]
            ends_a = [panels.port(rack_a) for _ in group]
            ends_b = [panels.port(rack_b) for _ in group]
            if None in ends_a or None in ends_b:
                done.notes.append(
                    f"{len(group)} links between {rack_a.id} and {rack_b.id} stay point to "
                    "point: no free unit for a patch panel"
                )
                continue
            media = group[0].link.media
            trunk = Trunk(
                f"t-{rack_a.id}-{rack_b.id}-{start // TRUNK_LINKS + 1}",
                a=str(ends_a[0]).partition(":")[0],
                b=str(ends_b[0]).partition(":")[0],
                fibres=TRUNK_FIBRES,
                media=media,
            )
            layout.trunks.append(trunk)
            done.trunks += 1
            for facts, pa, pb in zip(group, ends_a, ends_b, strict=True):
                panel_a, panel_b = str(pa).partition(":")[0], str(pb).partition(":")[0]
                if (panel_a, panel_b) != (trunk.a, trunk.b):
                    # The group's ports spilled onto a second panel: a trunk of its own.
                    trunk = Trunk(
                        f"{trunk.id}-{panel_a}",
                        a=panel_a,
                        b=panel_b,
                        fibres=TRUNK_FIBRES,
                        media=media,
                    )
                    layout.trunks.append(trunk)
                    done.trunks += 1
                facts.link.via = [str(pa), str(pb)]
                facts.link.trunk = trunk.id
                done.channels += 1
    if done.channels:
        done.notes.append(
            f"structured cabling: {done.channels:,} switch-to-switch links as channels through "
            f"{done.panels:,} patch panels and {done.trunks:,} trunks"
        )


class _Panels:
    """Patch panels added to racks as channels need ports, 48 ports each, in the rack's
    first free unit from the top."""

    def __init__(self, layout: Layout, catalog: Catalog, done: Installed):
        self.catalog = catalog
        self.done = done
        self.current: dict[int, tuple[str, int]] = {}  # rack -> (panel id, ports used)
        self.count: dict[int, int] = defaultdict(int)
        self.ids = {d.id for _, d in layout.devices()}

    def port(self, rack: Rack) -> str | None:
        found = self.current.get(id(rack))
        if found is None or found[1] >= PANEL_PORTS:
            panel = self._add(rack)
            if panel is None:
                return None
            found = (panel, 0)
        panel, used = found
        self.current[id(rack)] = (panel, used + 1)
        return f"{panel}:p{used + 1}"

    def _add(self, rack: Rack) -> str | None:
        position = self._free_unit(rack)
        if position is None:
            return None
        self.count[id(rack)] += 1
        ident = f"{rack.id}-pp{self.count[id(rack)]}"
        while ident in self.ids:
            self.count[id(rack)] += 1
            ident = f"{rack.id}-pp{self.count[id(rack)]}"
        self.ids.add(ident)
        at = next(
            (i for i, d in enumerate(rack.devices) if d.position and d.position > position),
            len(rack.devices),
        )
        rack.devices.insert(at, Device(ident, PANEL_MODEL, position=position, face="rear"))
        self.done.panels += 1
        return ident

    def _free_unit(self, rack: Rack) -> int | None:
        """The highest unit free on the rear face (a half-depth panel, mounted with the
        switches' ports to the hot aisle)."""
        taken: set[int] = set()
        for device in rack.devices:
            dtype = self.catalog.devices.get(device.model)
            if device.position is None or dtype is None or dtype.height_u <= 0:
                continue
            if not dtype.full_depth and device.face != "rear":
                continue
            taken.update(range(device.position, device.position + math.ceil(dtype.height_u)))
        height = int(rack.height_u)
        return next((u for u in range(height, 0, -1) if u not in taken), None)
