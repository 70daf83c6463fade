"""Derived facts, read by rules, reports, exports and the designer.

The facts are plain data (:mod:`.facts`) computed by pure functions: per device
(:mod:`.devices`), per rack (:mod:`.racks`), per link (:mod:`.links`) and per
fabric (:mod:`rackdesigner.analysis.fabric_graph`). :class:`Analysis` is the thin cache
over them that rules read: rack and device facts are computed at once, the
expensive parts (links, fabrics, CDU loads) on first use, so a run that selects
only power rules never builds the fabric graph. After an edit,
:class:`rackdesigner.edit.live.LiveAnalysis` recomputes what the edit can have changed.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from rackdesigner.analysis.devices import device_facts, liquid_fraction
from rackdesigner.analysis.facts import (
    POWERED_KINDS,
    ZERO_DRAW_KINDS,
    CduLoad,
    DeviceFacts,
    End,
    FeedFacts,
    LinkFacts,
    LinkRefs,
    PhaseConflict,
    RackFacts,
)
from rackdesigner.analysis.failures import Failed, RackPower, rack_power
from rackdesigner.analysis.geometry import RackPlace, SiteGeometry, rack_places
from rackdesigner.analysis.kept_links import KeptLinks, kept_ok
from rackdesigner.analysis.links import Edges, derive_link, derive_links, edges_of, resolve_links
from rackdesigner.analysis.power_sides import SQRT3
from rackdesigner.analysis.racks import (
    cdu_loads,
    cdu_loads_after,
    cdu_named,
    cooling_verdict,
    phase_misfit,
    rack_facts,
    running_loads,
)
from rackdesigner.layout_io import catalog as catalog_module
from rackdesigner.model.layout import Layout, PortGroup
from rackdesigner.model.refs import Numbering, Ref
from rackdesigner.model.thresholds import resolve

if TYPE_CHECKING:
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.analysis.loops import Loops
    from rackdesigner.analysis.pathways import PathwayGraph
    from rackdesigner.analysis.plant import CablePlant
    from rackdesigner.analysis.power_chain import PowerChain
    from rackdesigner.analysis.storage import StorageFacts
    from rackdesigner.layout_io.catalog import Catalog

__all__ = [
    "POWERED_KINDS",
    "SQRT3",
    "ZERO_DRAW_KINDS",
    "Analysis",
    "CduLoad",
    "DeviceFacts",
    "End",
    "FeedFacts",
    "Like",
    "LinkFacts",
    "LinkRefs",
    "PhaseConflict",
    "RackFacts",
    "phase_misfit",
]

_T = TypeVar("_T")


# Usable power (W), heat (W) and the cooling verdict in a few words.
SiteFigures = tuple[float, float, str]


def site_figures_of(racks: list[RackFacts], verdicts: list[str]) -> SiteFigures:
    """Usable power, heat and the cooling verdict over the racks and their verdicts."""
    usable = sum(r.capacity for r in racks if r.capacity is not None)
    heat = sum(r.heat for r in racks)
    return usable, heat, cooling_summary(verdicts)


def cooling_summary(verdicts: list[str], bad: int | None = None, first: int | None = None) -> str:
    """The racks' cooling verdicts in a few words: "ok", or how many are not and the
    first one's. ``bad`` and ``first`` (how many are not "ok", the index of the first)
    spare a caller that keeps them the walk over every verdict."""
    if not verdicts:
        return "–"
    if bad is None:
        wrong = [v for v in verdicts if v != "ok"]
        bad, word = len(wrong), wrong[0] if wrong else ""
    else:
        word = verdicts[first] if first is not None else ""
    if not bad:
        return "ok"
    return f"{bad} rack{'s' if bad != 1 else ''}: {word}"


class _LoadFigures:
    """A CDU group's figures as ``cooling_verdict`` reads them, computed once (each is a
    walk over the group's CDUs)."""

    __slots__ = ("capacity", "heat", "indexes", "load", "margin")

    def __init__(self, load: CduLoad) -> None:
        self.load = load
        self.capacity = load.capacity
        self.heat = load.heat
        self.indexes = load.indexes
        self.margin = load.margin


@dataclass(frozen=True, slots=True)
class Like:
    """(what-if) The analysis of a layout that another differs from only in some racks and
    in fewer cables (a failed layout: :mod:`rackdesigner.whatif.failed`), for the other's
    analysis to share what the difference leaves alone: the devices' facts of the racks
    not ``touched`` and, where ``kept`` says which of its cables the other keeps (indexes,
    in order), the cables' ends (:func:`.links.derive_links`)."""

    analysis: Analysis
    touched: frozenset[str]  # rack ids whose devices' facts are made anew
    kept: Sequence[int] | None = None
    # The other's fabrics derived from this analysis's, or None where they must be built
    # (rackdesigner.whatif.fabric_derived).
    fabrics: Callable[[Analysis], list[Fabric] | None] | None = None
    # The same of its storage facts.
    storage: Callable[[Analysis], StorageFacts | None] | None = None

    def fits(self, layout: Layout) -> bool:
        """Whether ``layout`` reads the same catalog and thresholds as this analysis's."""
        before = self.analysis.layout
        return (
            layout.catalog is before.catalog
            and layout.gpus is before.gpus
            and layout.rules is before.rules
        )

    def fresh(self, layout: Layout, failed: Failed) -> frozenset[str]:
        """The racks of ``layout`` whose devices' facts are made anew: those touched, and
        any with a failed device (its facts change) or a failed feed."""
        dark = failed.devices
        racks = {rack for rack, _feed in failed.feeds}
        if dark and layout.racks is self.analysis.layout.racks:
            racks.update(self.analysis.racks_holding(dark))
        elif dark:
            racks.update(r.id for r in layout.racks if any(d.id in dark for d in r.devices))
        return self.touched | racks


@dataclass(slots=True)
class _RackIndex:
    """An analysis's racks by id, by the devices their door and CDUs name, and the racks
    holding each device id (:meth:`Analysis._rack_index`)."""

    by_rack: dict[str, list[int]]
    naming: dict[str, list[int]]
    holding: dict[str, list[str]]


class Analysis:
    """Everything rules, reports and exports derive from a layout.

    Safe to read from several threads: the parts computed on first use are computed
    once, under a lock.
    """

    def __init__(
        self,
        layout: Layout,
        *,
        file: str = "",
        thresholds: dict[str, float] | None = None,
        failed: Failed | None = None,
        like: Like | None = None,
    ):
        self.layout = layout
        self.file = file
        # (what-if) Parts of the layout that have failed (docs/whatif.md): feeds that carry
        # nothing and devices that work no more; the rules judge the rack as it runs.
        self.failed = failed or Failed()
        self._lock = threading.RLock()
        self._like = like if like is not None and thresholds is None and like.fits(layout) else None
        base = self._like.analysis if self._like is not None else None
        # Port groups by model, shared (with ``like``'s analysis, as are its catalog and
        # thresholds: the devices' facts it shares read them).
        self._ports: dict[str, dict[str, PortGroup]] = base._ports if base else {}
        self.catalog: Catalog = base.catalog if base else catalog_module.for_layout(layout)
        self.thresholds: dict[str, float] = (
            base.thresholds
            if base
            else thresholds
            if thresholds is not None
            else resolve(layout.rules.thresholds if layout.rules else None)
        )
        self.geometry = SiteGeometry.of(layout.site)
        self.workload = layout.workload
        # (what-if) ``like``'s analysis where this layout holds its very racks (a failed
        # layout's): their places, names and devices' order are its, to be adjusted only
        # where facts are made anew.
        self._alike = base if base is not None and layout.racks is base.layout.racks else None
        self._places: dict[int, RackPlace] = (
            self._alike._places
            if self._alike is not None and layout.site is self._alike.layout.site
            else rack_places(layout)
        )
        self.devices: list[DeviceFacts] = []
        self.device_by_id: dict[str, DeviceFacts] = {}
        # (what-if) With ``like``: the indexes of the racks whose facts are made anew (the
        # others' are ``like``'s analysis's, the same objects); None without it.
        self.made_racks: frozenset[int] | None = None
        self.racks: list[RackFacts] = []
        self._index: _RackIndex | None = None  # _rack_index()
        if self._alike is not None:
            self._facts_alike(self._alike)
        else:
            self._facts_all()
        # (what-if) How each rack with a feed, PDU or power shelf lost runs now.
        self.running: dict[int, RackPower] = self._run_failed() if self.failed else {}
        # Names, places and site totals (_totals).
        self.types_used: dict[str, list[DeviceFacts]] = defaultdict(list)
        self._site_load: float | None = None  # site_load, summed on first read
        self.site_load_unknown = False
        self.total_gpus = 0
        # (what-if) Of a layout's analysis, for its failed layouts': each rack figure's sum
        # and sum of magnitudes (_rack_sum), how many racks' loads are unknown, whether any
        # rack names in-row coolers; worked out once (a plain analysis only: a live one
        # replaces its racks' facts in place).
        self._rack_sums: dict[str, tuple[float, float]] = {}
        self._unknown_racks: int | None = None
        self._inrows: bool | None = None
        self._unknown_by_type: dict[str, tuple[list[DeviceFacts], list[DeviceFacts]]] = {}
        self._slots: dict[int, int] | None = None  # _type_slots()
        self._totals()
        # Computed on first use.
        self._pathways: tuple[PathwayGraph | None] | None = None
        self._plant: CablePlant | None = None
        self._links: tuple[list[LinkFacts], Edges] | None = None
        self._unclean: list[int] | None = None  # unclean_links()
        self._kept: KeptLinks | Literal[False] | None = None  # _kept_links(); False: not so
        self._fabrics: list[Fabric] | None = None
        self._cdu_loads: list[CduLoad] | None = None
        self._storage: StorageFacts | None = None
        # (cdu_loads, the figures of each rack's groups), for that cdu_loads.
        self._loads_by_rack: tuple[list[CduLoad], dict[int, list[_LoadFigures]]] | None = None
        # (cdu_loads, racks, site_figures()), for those.
        self._site_figures: tuple[list[CduLoad], list[RackFacts], SiteFigures] | None = None
        # (v1.4) (cdu_loads, racks, the power chain), for those.
        self._power_chain: tuple[list[CduLoad], list[RackFacts], PowerChain] | None = None
        # (v1.4) (the layout's list of loops, the loops by id and device), for that list.
        self._loops: tuple[list[Any], Loops] | None = None

    @property
    def like(self) -> Like | None:
        """(what-if) The analysis this one shares its facts with, and how; None if none."""
        return self._like

    def _facts_all(self) -> None:
        """The devices' and racks' facts (``like``'s where it shares them)."""
        device_lists, shared = self._device_lists()
        self._index_devices(device_lists)
        dark = self.failed.devices
        for dev in self.devices if dark else ():
            if dev.id in dark:  # a failed device draws nothing
                dev.power, dev.power_estimated, dev.power_demand = 0.0, False, None
        self.racks = self._make_racks(self._places, device_lists, shared)

    def _facts_alike(self, before: Analysis) -> None:
        """``_facts_all`` for a layout that holds ``before``'s very racks (a failed
        layout's): ``before``'s facts, but for the racks ``like`` says are made anew and
        those whose door or a CDU is one of their devices or failed (``_make_racks``):
        found by index, the others not looked at."""
        assert self._like is not None
        index = before._rack_index()
        racks, catalog, thresholds, ports = (
            self.layout.racks,
            self.catalog,
            self.thresholds,
            self._ports,
        )
        fresh = self._like.fresh(self.layout, self.failed)
        lists = {
            i: [device_facts(d, racks[i], i, catalog, thresholds, ports) for d in racks[i].devices]
            for i in sorted({i for rack in fresh for i in index.by_rack.get(rack, ())})
        }
        self._index_made(lists)
        dark = self.failed.devices
        for dev in (d for devices in lists.values() for d in devices) if dark else ():
            if dev.id in dark:  # a failed device draws nothing
                dev.power, dev.power_estimated, dev.power_demand = 0.0, False, None
        made = {dev.id for devices in lists.values() for dev in devices} | dark
        rebuilt = set(lists).union(*(index.naming.get(device, ()) for device in made))
        self.racks = list(before.racks)
        lookup = self.device_by_id.get
        for i in sorted(rebuilt):
            devices = lists[i] if i in lists else list(before.racks[i].devices)
            place = self._places[id(racks[i])]
            self.racks[i] = rack_facts(racks[i], i, place, devices, thresholds, lookup, dark)
        self.made_racks = frozenset(rebuilt)

    def _rack_index(self) -> _RackIndex:
        """Each rack id's indexes, the indexes of the racks whose door or CDUs name each
        device id, and the ids of the racks holding each device id (worked out once)."""
        if self._index is None:
            found = self._index = _RackIndex({}, {}, {})
            for i, facts in enumerate(self.racks):
                rack = facts.rack
                found.by_rack.setdefault(rack.id, []).append(i)
                for name in dict.fromkeys([rack.door, *rack.cdus]):
                    if name is not None:
                        found.naming.setdefault(name, []).append(i)
                for dev in facts.devices:
                    found.holding.setdefault(dev.id, []).append(rack.id)
        return self._index

    def _run_failed(self) -> dict[int, RackPower]:
        """Each rack with a feed, PDU or power shelf lost, as it runs: its feeds' loads and
        line currents, and its capacity, are those with no further loss."""
        out: dict[int, RackPower] = {}
        capping = bool(self.workload is not None and self.workload.power_capping)
        dark = self.failed.devices
        power_factor = self.thresholds["power_factor"]
        made = self.made_racks
        # A rack with a feed or a device failed has its facts made anew (Like.fresh).
        racks = self.racks if made is None else [self.racks[index] for index in sorted(made)]
        for facts in racks:
            lost = self.failed.lost_feeds(facts.rack)
            supply = {  # the parts of the rack's supply that failed
                d.id
                for d in facts.devices
                if d.id in dark and (d.kind == "pdu" or (d.type and d.type.is_power_shelf))
            }
            if not lost and not supply:
                continue
            down = {d.id for d in facts.devices if d.id in dark} - supply
            running = out[facts.index] = rack_power(facts, lost, supply, down=down, capping=capping)
            running_loads(facts, running, power_factor)
            # What the live feeds deliver: the rack runs on them, no further loss assumed.
            facts.capacity = sum(
                facts.feeds[i].capacity for key in running.keys for i in running.live_feeds(key)
            )
        return out

    def _device_lists(self) -> tuple[list[list[DeviceFacts]], set[int]]:
        """Each rack's devices' facts, and the indexes of the racks whose facts are
        ``like``'s analysis's: with ``like``, those of a rack it leaves alone (the same
        facts: they read only the device, its rack and the catalog)."""
        like = self._like
        before = like.analysis.layout.racks if like is not None else ()
        fresh = like.fresh(self.layout, self.failed) if like is not None else frozenset()
        lists: list[list[DeviceFacts]] = []
        shared: set[int] = set()
        for index, rack in enumerate(self.layout.racks):
            if (
                like is not None
                and index < len(before)
                and before[index] is rack
                and rack.id not in fresh
            ):
                lists.append(list(like.analysis.racks[index].devices))
                shared.add(index)
                continue
            lists.append(
                [
                    device_facts(device, rack, index, self.catalog, self.thresholds, self._ports)
                    for device in rack.devices
                ]
            )
        return lists, shared

    def _make_racks(
        self, places: dict[int, RackPlace], lists: list[list[DeviceFacts]], shared: set[int]
    ) -> list[RackFacts]:
        """Each rack's facts over its devices' (``lists``). A rack whose devices' facts are
        ``like``'s analysis's (``shared``) has its facts too, unless the door or a CDU it
        names is a device whose facts are not (made anew, or failed)."""
        lookup = self.device_by_id.get
        dark = self.failed.devices
        made = {
            dev.id for index, devices in enumerate(lists) if index not in shared for dev in devices
        }
        made |= dark
        before = self._like.analysis.racks if self._like is not None else []
        racks: list[RackFacts] = []
        fresh: list[int] = []
        for index, (rack, devices) in enumerate(zip(self.layout.racks, lists, strict=True)):
            if index in shared and rack.door not in made and not any(c in made for c in rack.cdus):
                racks.append(before[index])
            else:
                place = places[id(rack)]
                racks.append(rack_facts(rack, index, place, devices, self.thresholds, lookup, dark))
                fresh.append(index)
        if self._like is not None:
            self.made_racks = frozenset(fresh)
        return racks

    # -- the cache -----------------------------------------------------------------------

    def _index_devices(self, device_lists: list[list[DeviceFacts]]) -> None:
        self.devices = []
        self.device_by_id = {}
        by_id = self.device_by_id
        append = self.devices.append
        for devices in device_lists:
            for dev in devices:
                dev.order = len(self.devices)
                append(dev)
                by_id.setdefault(dev.id, dev)

    def _index_made(self, device_lists: dict[int, list[DeviceFacts]]) -> None:
        """``_index_devices`` from ``_alike``'s: its devices, with those of the racks at
        ``device_lists``' indexes (their facts made anew, in the same order) put in their
        places."""
        before = self._alike
        assert before is not None
        self.devices = devices = list(before.devices)
        self.device_by_id = by_id = dict(before.device_by_id)
        for index, made in device_lists.items():
            for dev, was in zip(made, before.racks[index].devices, strict=True):
                dev.order = was.order
                devices[was.order] = dev
                if by_id.get(was.id) is was:
                    by_id[was.id] = dev

    def _totals(self) -> None:
        before, made = self._derived_from()
        if before is not None and made is not None:
            self._totals_made(before, made)
            # The same racks but those made anew: the GPUs and the racks of unknown load
            # counted are the layout's less the replaced facts' plus the new ones' (whole
            # numbers: exactly what a pass over every rack counts).
            olds, news = [before.racks[i] for i in made], [self.racks[i] for i in made]
            self.total_gpus = (
                before.total_gpus - sum(r.gpus for r in olds) + sum(r.gpus for r in news)
            )
            unknown = before._unknown_count()
            unknown += sum(r.load_unknown for r in news) - sum(r.load_unknown for r in olds)
            self.site_load_unknown = unknown > 0
            return
        if self._alike is not None and self.made_racks is not None:
            self._totals_made(self._alike, self.made_racks)
        else:
            self._totals_all()
        self._site_load = None  # summed again on first read
        self.site_load_unknown = any(r.load_unknown for r in self.racks)
        self.total_gpus = sum(r.gpus for r in self.racks)

    @property
    def site_load(self) -> float:
        """The racks' loads summed in their order (W; a lower bound where
        ``site_load_unknown``), on first read: a failed layout's rules ask whether it
        exceeds the budget (:meth:`racks_sum_above`), most of them never read it."""
        if self._site_load is None:
            self._site_load = sum(r.load for r in self.racks)
        return self._site_load

    @site_load.setter
    def site_load(self, value: float) -> None:
        self._site_load = value

    def _derived_from(self) -> tuple[Analysis | None, frozenset[int] | None]:
        """(what-if) The plain analysis this one holds the very racks of, and the indexes
        of the racks whose facts it made anew; (None, None) where it is not so."""
        before, made = self._alike, self.made_racks
        if before is None or made is None or type(before) is not Analysis:
            return None, None
        return before, made

    def _unknown_count(self) -> int:
        """How many racks' loads are unknown (counted once: see ``_rack_sums``)."""
        if self._unknown_racks is None or type(self) is not Analysis:
            self._unknown_racks = sum(r.load_unknown for r in self.racks)
        return self._unknown_racks

    def _rack_sum(self, name: str) -> tuple[float, float]:
        """The racks' figure ``name`` summed in their order, and its magnitudes summed
        (counted once: see ``_rack_sums``)."""
        found = self._rack_sums.get(name) if type(self) is Analysis else None
        if found is None:
            values = [getattr(r, name) for r in self.racks]
            found = self._rack_sums[name] = (sum(values), sum(map(abs, values)))
        return found

    def racks_sum_above(self, name: str, bound: float) -> bool:
        """Whether the racks' figure ``name`` (``load``, ``air_heat``) summed in their
        order, as ``sum(r.NAME for r in racks)`` adds it, is not at most ``bound``.

        A failed layout's analysis (the layout's racks, a few made anew) first adjusts the
        layout's sum by what the racks made anew changed. Summing n numbers in order is
        off the exact sum by at most n·u·Σ|x| (u = 2⁻⁵³, to first order; Higham, Accuracy
        and Stability of Numerical Algorithms, 2002, §4.2), the layout's sum and this
        pass's alike, and the adjustment's 2k + 2 operations add as much over their own
        terms: the estimate is within ``margin`` (twice that bound, and twice again for the
        magnitudes' own rounding) of the sum a full pass makes. Only where the bound is
        within that margin (or a figure is not finite) are the racks summed."""
        before, made = self._derived_from()
        if before is not None and made is not None:
            total, magnitude = before._rack_sum(name)
            olds = [getattr(before.racks[i], name) for i in made]
            news = [getattr(self.racks[i], name) for i in made]
            value = total - sum(olds) + sum(news)
            terms = len(self.racks) + 2 * len(made) + 8
            size = magnitude + sum(map(abs, olds)) + sum(map(abs, news))
            margin = 4 * terms * 2.0**-52 * size
            if math.isfinite(value) and math.isfinite(margin):
                if value - margin > bound:
                    return True
                if value + margin <= bound:
                    return False
        return not sum(getattr(r, name) for r in self.racks) <= bound

    def power_unknown(self, key: str, devices: list[DeviceFacts]) -> list[DeviceFacts]:
        """The devices of ``devices`` (``types_used[key]``) whose draw is unknown, in their
        order. A failed layout's list of a model is the layout's with the devices of the
        racks made anew in their places (``_totals_made``): the layout's unknown ones but
        those, and those of them unknown now; the layout's very list where no rack made
        anew holds one of the model (found once: see ``_rack_sums``)."""
        before, made = self._derived_from()
        if before is None or made is None or self.types_used.get(key) is not devices:
            return [d for d in devices if d.power is None]
        listed = before.types_used.get(key)
        if listed is None:
            return [d for d in devices if d.power is None]
        was = before._unknown_of(key, listed)
        if listed is devices:
            return was
        changed = {
            dev.order: dev
            for index in made
            for dev in self.racks[index].devices
            if dev.type is not None and dev.device.model == key
        }
        found = [d for d in was if d.order not in changed]
        found.extend(d for d in changed.values() if d.power is None)
        return sorted(found, key=lambda dev: dev.order)

    def _unknown_of(self, key: str, devices: list[DeviceFacts]) -> list[DeviceFacts]:
        """``power_unknown`` of a plain analysis, each model's worked out once."""
        memo = self._unknown_by_type if type(self) is Analysis else {}
        found = memo.get(key)
        if found is None or found[0] is not devices:
            found = memo[key] = (devices, [d for d in devices if d.power is None])
        return found[1]

    def names_inrows(self) -> bool:
        """Whether any rack names an in-row cooler (v1.4); a failed layout's racks are the
        layout's (asked once of a plain analysis: see ``_rack_sums``)."""
        before, _made = self._derived_from()
        if before is not None:
            return before.names_inrows()
        if self._inrows is None or type(self) is not Analysis:
            self._inrows = any(facts.rack.inrows for facts in self.racks)
        return self._inrows

    def _totals_made(self, before: Analysis, made: frozenset[int]) -> None:
        """``_totals_all`` from ``before``'s (the same racks, feeds and devices in the same
        order, so the same names and places): the racks whose facts are made anew take
        theirs from the facts they replace, and ``types_used`` their devices."""
        types = self.types_used = defaultdict(list, before.types_used)
        slots = before._type_slots()
        copied: set[str] = set()
        for index in sorted(made):
            rack, old = self.racks[index], before.racks[index]
            rack.ref, rack.place = old.ref, old.place
            for feed, old_feed in zip(rack.feeds, old.feeds, strict=True):
                feed.ref = old_feed.ref
            for dev, was in zip(rack.devices, old.devices, strict=True):
                if dev is was:
                    continue
                dev.ref, dev.place = was.ref, rack.place
                if dev.type is not None:
                    model = dev.device.model
                    if model not in copied:
                        copied.add(model)
                        types[model] = list(types[model])
                    types[model][slots[was.order]] = dev

    def rack_indexes(self, racks: Iterable[str]) -> list[int]:
        """The indexes of the racks of these ids, ascending (indexed once)."""
        found = self._rack_index().by_rack
        return sorted(i for rack in racks for i in found.get(rack, ()))

    def racks_holding(self, devices: Iterable[str]) -> set[str]:
        """The ids of the racks that hold a device of one of these ids (indexed once)."""
        found = self._rack_index().holding
        return {rack for device in devices for rack in found.get(device, ())}

    def _type_slots(self) -> dict[int, int]:
        """Each typed device's place in its model's ``types_used`` list, by its order."""
        if self._slots is None:
            self._slots = {
                dev.order: slot
                for found in self.types_used.values()
                for slot, dev in enumerate(found)
            }
        return self._slots

    def _totals_all(self) -> None:
        places = rack_places(self.layout)
        # Duplicate ids (PLC005) get the next nth, in file order, as in the source map.
        numbering = Numbering()
        ref = numbering.ref
        self.types_used = defaultdict(list)
        for rack in self.racks:
            rack.ref = ref("rack", rack.rack.id)
            rack.place = places[id(rack.rack)]
            for feed in rack.feeds:
                feed.ref = ref("feed", feed.feed.id)
            for dev in rack.devices:
                dev.ref = ref("device", dev.id)
                dev.place = rack.place
                if dev.type is not None:
                    self.types_used[dev.device.model].append(dev)

    def _once(self, attribute: str, compute: Callable[[], _T]) -> _T:
        value = getattr(self, attribute)
        if value is None:
            with self._lock:
                value = getattr(self, attribute)
                if value is None:
                    value = compute()
                    setattr(self, attribute, value)
        return value

    # -- facts computed on first use -----------------------------------------------------

    def _link_table(self) -> tuple[list[LinkFacts], Edges]:
        """Every cable's facts and the compute fabric's edges: a failed layout's from its
        :class:`KeptLinks` (the facts already read the same objects), else resolved."""

        def build() -> tuple[list[LinkFacts], Edges]:
            kept = self._kept_links()
            if kept is not None:
                links = kept.every()
                return links, edges_of(links)
            like = self._like
            derived = (
                derive_links(
                    like.analysis.links,
                    like.kept,
                    self.layout.links,
                    self.device_by_id,
                    self.geometry,
                    self.pathway_graph,
                )
                if like is not None and like.kept is not None
                else None
            )
            links, edges = derived or resolve_links(
                self.layout.links, self.device_by_id, self.geometry, self.pathway_graph
            )
            if self.layout.trunks:  # the loader holds every link's via to a trunk
                from rackdesigner.analysis.channels import attach_channels

                attach_channels(links, self.layout, self.device_by_id)
            return links, edges

        return self._once("_links", build)

    def links_at(self, indexes: Sequence[int]) -> list[LinkFacts]:
        """The facts of the cables at these indexes, as :attr:`links` has them (a failed
        layout's made alone: :meth:`_kept_links`)."""
        links = self.links
        return [links[index] for index in indexes]

    def _kept_links(self) -> KeptLinks | None:
        """(what-if) A failed layout's cables' facts made from the layout's as each is
        read (:mod:`.kept_links`), where ``like`` says which cables it keeps, every one
        of them resolved cleanly there and no trunk runs them; None where not."""
        if self._kept is not None:
            return self._kept or None
        like = self._like
        self._kept = False
        if like is None or like.kept is None or self._alike is None or self.layout.trunks:
            return None
        kept, before = like.kept, like.analysis
        if not kept_ok(kept, before.unclean_links()):
            return None
        old = before.links[0].refs if before.links else None
        shared: frozenset[str] | None = frozenset() if old is not None and not old.shared else None
        refs = LinkRefs(self.layout.links, shared)
        links, old_links, geometry = self.layout.links, before.links, self.geometry
        by_id, router = self.device_by_id, self.pathway_graph

        def make(index: int) -> LinkFacts:
            # The cable is the layout's (its facts' link), the failed layout's list a view.
            old = old_links[kept[index]]
            facts = derive_link(old, index, old.link, by_id, geometry, refs, router)
            if facts is None:  # not as before (no failed layout's is): resolve them all
                return resolve_links(links, by_id, geometry, router)[0][index]
            return facts

        self._kept = KeptLinks(len(kept), make)
        return self._kept

    def unclean_links(self) -> list[int]:
        """The indexes of the cables with an end that did not resolve cleanly (a problem:
        a port's second cable, an unknown device or port), ascending."""
        return self._once(
            "_unclean",
            lambda: [
                index
                for index, facts in enumerate(self.links)
                if facts.a.problem is not None or facts.b.problem is not None
            ],
        )

    @property
    def pathway_graph(self) -> PathwayGraph | None:
        """(v1.4) The layout's pathways as a graph in metres (routes between racks follow
        it), or None where the layout declares no pathway."""

        def build() -> tuple[PathwayGraph | None]:
            if not self.layout.pathways:
                return (None,)
            before = self._alike
            if (
                before is not None
                and self.layout.pathways is before.layout.pathways
                and self.layout.site is before.layout.site
            ):
                # (what-if) A failed layout holds its layout's very racks, pathways and
                # site: the same graph, its routes found once for both (a hall's routes
                # are most of a check's time).
                return (before.pathway_graph,)
            from rackdesigner.analysis.pathways import PathwayGraph

            return (PathwayGraph(self.layout, self.geometry),)

        return self._once("_pathways", build)[0]

    @property
    def plant(self) -> CablePlant:
        """(v1.4) The cable plant: every link's route and parts, each pathway's fill, the
        channels' losses, the transceivers and physical cables (analysis/plant.py)."""
        from rackdesigner.analysis.plant import CablePlant

        return self._once("_plant", lambda: CablePlant(self))

    @property
    def links(self) -> list[LinkFacts]:
        """Every cable's facts, in the layout's order (a failed layout's made as each is
        read, where it can: :mod:`.kept_links`)."""
        if self._links is None:
            kept = self._kept_links()
            if kept is not None:
                return kept  # type: ignore[return-value]  # a list's reads, made lazily
        return self._link_table()[0]

    @property
    def compute_edges(self) -> dict[tuple[str, str], dict[str, Any]]:
        """The compute fabric's cabled device pairs (a, b) with a < b, each
        {"links": [LinkFacts], "count": cables, "bandwidth": bit/s}."""
        return self._link_table()[1]

    @property
    def fabrics(self) -> list[Fabric]:
        from rackdesigner.analysis.fabric_graph import build_fabrics

        def build() -> list[Fabric]:
            like = self._like
            derived = like.fabrics(self) if like is not None and like.fabrics else None
            if derived is not None:
                return derived
            return build_fabrics(self.links, self.compute_edges, self.device_by_id)

        return self._once("_fabrics", build)

    @property
    def storage(self) -> StorageFacts:
        """The storage tiers and the storage fabric (analysis/storage.py), built on first
        use: only the storage rules, the report and the exports read them. A failed
        layout's failed devices (what-if) serve and reach nothing."""
        from rackdesigner.analysis.storage import storage_facts

        def build() -> StorageFacts:
            like = self._like
            derived = like.storage(self) if like is not None and like.storage else None
            return derived or storage_facts(self, self.failed.devices)

        return self._once("_storage", build)

    @property
    def storage_built(self) -> StorageFacts | None:
        """The storage facts where built already, else None: for a rule that may reuse what
        they gathered but should not build them for that alone."""
        return self._storage

    @property
    def cdu_loads(self) -> list[CduLoad]:
        """Each CDU that racks name (a device of kind "cdu"), with the heat it must carry."""
        return self._once("_cdu_loads", self._make_cdu_loads)

    def _make_cdu_loads(self) -> list[CduLoad]:
        """``cdu_loads``; a failed layout's derived from ``_alike``'s where every device id
        is unique: only the groups of the racks whose facts are made anew are recomputed
        (:func:`.racks.cdu_loads_after`), the others are the layout's, the same objects. A
        group kept has no failed CDU: the racks naming a failed or remade CDU are made
        anew (``_make_racks``)."""
        before, made = self._alike, self.made_racks
        lost = self.failed.devices
        if before is None or made is None or len(before.device_by_id) != len(before.devices):
            return cdu_loads(self.racks, lost)
        figures = before._figures_by_rack()

        def group_of(index: int) -> CduLoad | None:
            found = figures.get(index)
            return found[0].load if found else None

        touched = {index: cdu_named(before.racks[index]) for index in made}
        loads, _, added = cdu_loads_after(before.cdu_loads, self.racks, touched, group_of)
        for load in added if lost else ():
            load.lost = frozenset(c.id for c in load.cdus if c.id in lost)
        return loads

    @property
    def power_chain(self) -> PowerChain:
        """(v1.4) The power chain behind the feeds (:mod:`.power_chain`): its elements'
        ratings and loads, computed on first use and again after the facts change (a live
        analysis makes a new ``cdu_loads`` on every refresh, as for ``site_figures``)."""
        from rackdesigner.analysis.power_chain import PowerChain

        loads = self.cdu_loads if self.layout.power_elements else None
        cached = self._power_chain
        if cached is not None and cached[0] is loads and cached[1] is self.racks:
            return cached[2]
        with self._lock:
            models = catalog_module.power_models() if self.layout.power_elements else {}
            chain = PowerChain.of(self.layout, self.racks, models, self.thresholds["power_factor"])
            self._power_chain = (loads, self.racks, chain)  # type: ignore[assignment]
        return chain

    @property
    def loops(self) -> Loops:
        """(v1.4) The layout's water loops by id and by the devices they list
        (:func:`.loops.loops_by_id`), worked out once for the layout's list of loops: the
        rules split in parts (COOL003, COOL009) read them for each rack and CDU group of
        a what-if or an edit, and a hall's loop lists every CDU. A failed layout that
        holds its layout's very loops reads that layout's analysis's."""
        from rackdesigner.analysis.loops import loops_by_id

        listed = self.layout.cooling_loops
        cached = self._loops
        if cached is None or cached[0] is not listed:
            before = self._like.analysis if self._like is not None else None
            found = (
                before.loops
                if before is not None and before.layout.cooling_loops is listed
                else loops_by_id(self.layout)
            )
            cached = self._loops = (listed, found)
        return cached[1]

    # -- helpers for rules ---------------------------------------------------------------

    def liquid_fraction(self, dev: DeviceFacts) -> float:
        """Share of a device's heat that cold plates remove in a liquid-cooled rack."""
        return liquid_fraction(dev)

    def type_site(self, key: str) -> tuple[str, Ref]:
        """Who a finding about a device type is about: its [catalog] table in the layout,
        else the first device of that type."""
        if key in self.layout.catalog:
            return f"catalog entry {key}", Ref("catalog", key)
        devices = self.types_used.get(key)
        if devices:
            return f"device {devices[0].id}", devices[0].ref
        return f"catalog entry {key}", Ref("catalog", key)

    def enclosing(self, ref: Ref) -> Ref | None:
        """The entity that holds ``ref``, where a finding goes when ``ref`` has no line of its
        own (a device added in memory is reported at its rack): a device's or feed's rack;
        a fabric's anchor device; a link's ``a`` device."""
        kind = ref.kind
        if kind == "device":
            first = self.device_by_id.get(ref.id)
            if first is not None and first.ref == ref:
                return self.racks[first.rack_index].ref
            for dev in self.devices:  # a duplicate id (PLC005): rare
                if dev.ref == ref:
                    return self.racks[dev.rack_index].ref
            return None
        if kind == "feed":
            for rack in self.racks:
                if any(feed.ref == ref for feed in rack.feeds):
                    return rack.ref
            return None
        if kind in ("fabric", "link"):
            return Ref("device", ref.id.partition(":")[0].partition(" ")[0])
        return None  # a power element has a line of its own

    def cooling_verdict(self, rack: RackFacts) -> str:
        """In a word or three, whether the rack's heat has somewhere to go."""
        return cooling_verdict(rack, self.thresholds, self._loads_of(rack))

    def _loads_of(self, rack: RackFacts) -> list[_LoadFigures]:
        """The CDU groups that carry ``rack``'s heat, in the groups' order. Indexed once
        per ``cdu_loads``: the header, the report and the drawings ask for every rack of a
        hall, and reading all hundred groups for each of 3,000 racks took seconds."""
        return self._figures_by_rack().get(rack.index, [])

    def _figures_by_rack(self) -> dict[int, list[_LoadFigures]]:
        """Each rack index's CDU groups' figures (``_LoadFigures``), for ``cdu_loads``."""
        loads = self.cdu_loads
        cached = self._loads_by_rack
        if cached is None or cached[0] is not loads:
            by_rack: dict[int, list[_LoadFigures]] = {}
            for load in loads:
                figures = _LoadFigures(load)
                for index in load.indexes:
                    by_rack.setdefault(index, []).append(figures)
            cached = self._loads_by_rack = (loads, by_rack)
        return cached[1]

    def site_figures(self) -> SiteFigures:
        """Usable power (W the racks' feeds can carry), heat (W) and the cooling verdict
        of every rack in a few words ("ok", "3 racks: no CDU"), as the designer's header
        shows them. Kept until the facts change (every invalidation makes a new
        ``cdu_loads``); a live analysis keeps them per rack instead."""
        loads = self.cdu_loads
        cached = self._site_figures
        if cached is not None and cached[0] is loads and cached[1] is self.racks:
            return cached[2]
        figures = site_figures_of(self.racks, [self.cooling_verdict(r) for r in self.racks])
        self._site_figures = (loads, self.racks, figures)
        return figures

    @property
    def is_training(self) -> bool:
        return self.workload is not None and self.workload.is_training
