"""An analysis kept current by edits: per rack, per link, and a fabric graph updated by edge.

:class:`LiveAnalysis` is an :class:`~rackdesigner.analysis.Analysis` that, told which
racks and links an edit touched, recomputes only their facts with the analysis's own pure
functions: the touched racks' devices, load, heat, feeds and phases (and those of racks
whose CDU or rear door they hold); the links of those devices and the links sharing a port
with them; the compute fabric's edges between the devices those links join, and the
networkx graph, edge by edge. Resolving every link again after a device edit takes about
a second on 100,000 GPUs; this is what keeps an edit within tens of milliseconds. The
result is the analysis a fresh one would give: ``tests/edit/test_live_refresh.py`` checks
its facts after random edits, the session's stateful test its findings.
"""

from __future__ import annotations

import copy
from bisect import bisect_left, insort
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis import (
    Analysis,
    DeviceFacts,
    LinkFacts,
    RackFacts,
    _LoadFigures,
    cooling_summary,
)
from rackdesigner.analysis.devices import device_facts
from rackdesigner.analysis.facts import CduLoad, End, FeedFacts, LinkRefs
from rackdesigner.analysis.geometry import RackPlace, rack_places
from rackdesigner.analysis.links import resolve_links
from rackdesigner.analysis.racks import cdu_loads_after, cdu_named, rack_facts
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import RACK_UNIT_M, Layout, Link, PortGroup, Rack
from rackdesigner.model.refs import Ref

if TYPE_CHECKING:
    import networkx as nx

    from rackdesigner.analysis.fabric_graph import Fabric

# The full analysis suggests a near device id for the first 20 unknown ones only (difflib
# over thousands of ids is slow); past that, which end gets one depends on every link.
_SUGGESTED_ENDS = 20


@dataclass(slots=True)
class Refreshed:
    """What a refresh recomputed: the racks (by ``id(rack)``) and links (by ``id(link)``)
    whose rules must re-run, and whether the compute fabric changed."""

    racks: dict[int, RackFacts] = field(default_factory=dict)
    removed_racks: set[int] = field(default_factory=set)
    links: dict[int, LinkFacts] = field(default_factory=dict)
    # The link entities ("link a -> b") whose findings are out of date, before and after.
    entities: set[str] = field(default_factory=set)
    # Devices named afresh (a duplicate id's nth changed): their cables' findings too.
    renamed: set[str] = field(default_factory=set)
    fabric: bool = False


@dataclass(slots=True)
class _Columns:
    """What the site totals sum, one entry per rack by index. An edit replaces the
    touched racks' entries and the totals are summed again over the lists, in C and in the
    racks' order: microseconds for 3,000 racks where walking their facts took a
    millisecond, and equal bit for bit to the full analysis's sums (a running total
    updated by difference would drift from them in the last digits)."""

    load: list[float]
    gpus: list[int]
    unknown: set[int]  # racks whose load is a lower bound

    @classmethod
    def of(cls, racks: list[RackFacts]) -> _Columns:
        return cls(
            [r.load for r in racks],
            [r.gpus for r in racks],
            {r.index for r in racks if r.load_unknown},
        )

    def set(self, facts: RackFacts) -> None:
        index = facts.index
        self.load[index] = facts.load
        self.gpus[index] = facts.gpus
        if facts.load_unknown:
            self.unknown.add(index)
        else:
            self.unknown.discard(index)


@dataclass(slots=True)
class _Site:
    """The header's site figures kept per rack (:meth:`LiveAnalysis.site_figures`): each
    rack's usable power and cooling verdict, for the ``cdu_loads`` they were made with."""

    loads: list[CduLoad]
    usable: list[float | None]
    verdicts: list[str]
    bad: set[int]  # indexes of the racks whose verdict is not "ok"


class _Places(Mapping[int, RackPlace]):
    """A view of the kept rack facts' places, by ``id(rack)``."""

    __slots__ = ("_facts",)

    def __init__(self, facts: dict[int, RackFacts]):
        self._facts = facts

    def __getitem__(self, key: int) -> RackPlace:
        return self._facts[key].place

    def __iter__(self) -> Iterator[int]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)


def _names(value: str | list[str] | None) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, str):
        return {value}
    return {str(name) for name in value}


def _name_racks(racks: Iterable[RackFacts]) -> None:
    """References and places of racks recomputed, where no id is shared (every ``nth``
    is 0): the rack's, its feeds' and its devices'."""
    for facts in racks:
        facts.ref = Ref("rack", facts.rack.id)
        for feed in facts.feeds:
            feed.ref = Ref("feed", feed.feed.id)
        for dev in facts.devices:
            dev.ref = Ref("device", dev.id)
            dev.place = facts.place


@dataclass(slots=True)
class _Dropped:
    """What forgetting links' facts leaves to redo: the a ends their names read, each
    link's place, the ports and fabric edges they held, and whether an end was renamed."""

    a_ends: set[str] = field(default_factory=set)
    places: dict[int, int] = field(default_factory=dict)
    ports: set[str] = field(default_factory=set)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    renamed: bool = False


class LiveAnalysis(Analysis):
    """An analysis that :meth:`refresh` keeps equal to a fresh one after each edit."""

    def __init__(self, layout: Layout, index: LayoutIndex, *, file: str = ""):
        super().__init__(layout, file=file)
        self._was_shared = index.has_shared_ids()
        self._rack_facts: dict[int, RackFacts] = {id(f.rack): f for f in self.racks}
        self._graph: nx.Graph | None = None
        self._site: _Site | None = None
        self._columns = _Columns.of(self.racks)
        self._sums(())
        # Which racks name each device as their CDU or rear door: an edit to a device's
        # rack recomputes theirs too, found here rather than by a walk over every rack.
        self._naming: dict[str, dict[int, Rack]] = defaultdict(dict)
        self._names_of: dict[int, set[str]] = {}
        for rack in self.layout.racks:
            self._name(id(rack), rack)
        # The links' index (_index_links).
        self._link_refs = LinkRefs(layout.links)
        self._link_facts: dict[int, LinkFacts] = {}
        # port -> the links using it, in file order (the first one keeps it: CAB005)
        self._users: dict[str, list[LinkFacts]] = defaultdict(list)
        # the compute fabric's edge each link is part of, and each edge's links
        self._pair_of: dict[int, tuple[str, str]] = {}  # id(LinkFacts) -> pair
        self._members: dict[tuple[str, str], dict[int, LinkFacts]] = defaultdict(dict)
        self._roles: dict[tuple[int, str | None], bool] = {}
        self._unknown_ends = 0
        # id(link) -> the links with an end on an unknown device: their "did you mean" hint
        # names the nearest of all device ids (at most _SUGGESTED_ENDS here, else all links
        # are resolved again).
        self._unknown_links: dict[int, Link] = {}
        self._index_links()

    def _name(self, key: int, rack: Rack | None) -> None:
        """Record what ``rack`` (``id(rack)`` is ``key``) names now; None: it is gone."""
        names = _names(rack.cdu) if rack is not None else set()
        if rack is not None and rack.door is not None:
            names.add(rack.door)
        old = self._names_of.pop(key, set())
        naming = self._naming
        for name in old - names:
            racks = naming[name]
            racks.pop(key, None)
            if not racks:
                del naming[name]
        if rack is not None:  # a rack that is gone names nothing
            for name in names - old:
                naming[name][key] = rack
        if names:
            self._names_of[key] = names

    def _index_links(self) -> None:
        """Index every link afresh (see ``__init__`` for what each table holds)."""
        links = self.links  # resolved once, all together, by the analysis itself
        refs = links[0].refs if links else None
        self._link_refs = refs if refs is not None else LinkRefs(self.layout.links)
        self._link_facts = {id(lf.link): lf for lf in links}
        self._users = defaultdict(list)
        self._pair_of = {}
        self._members = defaultdict(dict)
        self._roles = {}
        self._unknown_ends = 0
        self._unknown_links = {}
        for lf in links:
            self._claim(lf)
        for pair, edge in self.compute_edges.items():
            for lf in edge["links"]:
                self._pair_of[id(lf)] = pair
                self._members[pair][id(lf)] = lf

    # -- the fabric -------------------------------------------------------------------------

    @property
    def fabrics(self) -> list[Fabric]:
        from rackdesigner.analysis.fabric_graph import build_fabrics

        return self._once(
            "_fabrics",
            lambda: build_fabrics(self.links, self.compute_edges, self.device_by_id, self.graph()),
        )

    def graph(self) -> nx.Graph:
        """The fabric graph, built once and then updated edge by edge."""
        if self._graph is None:
            from rackdesigner.analysis.fabric_graph import graph_of

            self._graph = graph_of(self.compute_edges)
        return self._graph

    def release_graph(self) -> None:
        """Let go of the fabric graph a piece at a time (a worker's snapshot, when its job
        is done). Dropped whole, its hundreds of thousands of dicts are freed in one call
        that holds the interpreter for 20–50 ms on 100,000 GPUs, and a key pressed then
        waits; networkx's own removals are Python loops that give it up in turns."""
        graph, self._graph = self._graph, None
        if graph is not None:
            graph.remove_edges_from(list(graph.edges))
            graph.remove_nodes_from(list(graph))

    def snapshot(self) -> LiveAnalysis:
        """A copy whose containers are its own, for a worker thread to read while edits go
        on here (facts objects are shared: an edit replaces them rather than changing them,
        and a job that overlapped an edit is discarded anyway)."""
        other = copy.copy(self)
        other.racks = list(self.racks)
        other.devices = list(self.devices)
        other.device_by_id = dict(self.device_by_id)
        other.types_used = defaultdict(list, {k: list(v) for k, v in self.types_used.items()})
        links, edges = self._link_table()
        other._links = (list(links), dict(edges))
        other._cdu_loads = None
        other._site = None
        other._columns = _Columns(list(self._columns.load), list(self._columns.gpus), set())
        other._graph = None  # built from the copied edges, in the worker
        other._fabrics = None
        other._storage = None
        other._lock = type(self._lock)()
        return other

    def adopt_fabrics(self, fabrics: list[Fabric]) -> None:
        self._fabrics = fabrics

    def invalidate_fabric(self) -> None:
        self._fabrics = None
        self._storage = None

    @property
    def places(self) -> Mapping[int, RackPlace]:
        """Each rack's place by ``id(rack)``, as ``rack_places`` gives it, read from the
        kept facts: the inspector measures a device's cables on every edit, and a fresh
        ``rack_places`` over 3,418 racks was 6 ms of each."""
        return _Places(self._rack_facts)

    @property
    def link_facts(self) -> dict[int, LinkFacts]:
        """The facts of each link, by ``id(link)``."""
        return self._link_facts

    # -- refresh ----------------------------------------------------------------------------

    def refresh(
        self, racks: Iterable[Rack], links: Iterable[Link], index: LayoutIndex
    ) -> Refreshed:
        """Recompute the facts of these racks and links (and of what depends on them)."""
        with self._lock:
            return self._refresh(racks, links, index)

    def _refresh(
        self, racks: Iterable[Rack], links: Iterable[Link], index: LayoutIndex
    ) -> Refreshed:
        done = Refreshed()
        layout = self.layout
        present = {id(rack) for rack in layout.racks}
        touched = {id(rack): rack for rack in racks}
        names = self._forget_and_name(touched, present, done)
        if names:
            touched.update(self._naming_racks(names, touched))
        if touched or done.removed_racks:
            self._refresh_racks(touched, done, index)
            if layout.pathways:  # (v1.4) racks moved: their exits and routes with them
                self._pathways = None
        self._plant = None  # (v1.4) the cable plant is read whole, after any edit
        todo = self._links_to_refresh(links, names, done, index)
        if todo:
            self._refresh_links(todo, index, done)
        if done.racks or done.removed_racks or done.links:
            self._storage = None  # built again from the new facts when a rule reads it
        return done

    def _forget_and_name(
        self, touched: dict[int, Rack], present: set[int], done: Refreshed
    ) -> set[str]:
        """Drop the facts of racks no longer in the layout (into ``done``), and note the
        cdu and door names of the racks the edit touched or removed (an edit changes only
        theirs). Returns the ids of the devices in the touched racks, before and after:
        racks whose cdu or door names one of them read its facts."""
        names: set[str] = set()
        for key, rack in touched.items():
            old = self._rack_facts.get(key)
            if old is not None:
                names.update(d.id for d in old.devices)
            if key in present:
                names.update(d.id for d in rack.devices)
        for key in list(self._rack_facts):
            if key not in present:
                del self._rack_facts[key]
                done.removed_racks.add(key)
        for key in done.removed_racks:
            self._name(key, None)
        for key, rack in touched.items():
            if key in present:
                self._name(key, rack)
        return names

    def _naming_racks(self, names: set[str], touched: dict[int, Rack]) -> dict[int, Rack]:
        """The racks not touched whose cdu or door names one of ``names``, in the layout's
        order (as a walk over the racks would find them)."""
        found: dict[int, Rack] = {}
        for name in names:
            for key, rack in self._naming.get(name, {}).items():
                if key not in touched:
                    found[key] = rack
        facts = self._rack_facts
        ordered = sorted(found, key=lambda key: facts[key].index if key in facts else -1)
        return {key: found[key] for key in ordered}

    def _links_to_refresh(
        self, links: Iterable[Link], names: set[str], done: Refreshed, index: LayoutIndex
    ) -> dict[int, Link]:
        """The links the edit named, and every link of a device whose facts are new (or
        renamed); after a device came, went or was renamed, every link whose end named
        no device too (that id may be the nearest now)."""
        todo: dict[int, Link] = {id(link): link for link in links}
        for fresh in done.racks.values():
            names.update(d.id for d in fresh.devices)
        names |= done.renamed
        for device_id in names:
            for link in index.links_of(device_id):
                todo[id(link)] = link
        if (done.racks or done.removed_racks) and self._unknown_links:
            for key, link in self._unknown_links.items():
                todo.setdefault(key, link)
        return todo

    def _refresh_racks(self, touched: dict[int, Rack], done: Refreshed, index: LayoutIndex) -> None:
        if not done.removed_racks and self._in_place(touched, done, index):
            return
        layout = self.layout
        places = rack_places(layout)
        device_lists = []
        new: list[tuple[int, Rack]] = []
        for number, rack in enumerate(layout.racks):
            facts = self._rack_facts.get(id(rack))
            if facts is None or id(rack) in touched:
                device_lists.append(
                    [
                        device_facts(d, rack, number, self.catalog, self.thresholds, self._ports)
                        for d in rack.devices
                    ]
                )
                new.append((number, rack))
            else:
                if facts.index != number:
                    facts.index = number
                    for dev in facts.devices:
                        dev.rack_index = number
                device_lists.append(facts.devices)
        self._index_devices(device_lists)
        lookup = self.device_by_id.get
        racks = [self._rack_facts.get(id(rack)) for rack in layout.racks]
        for number, rack in new:
            facts = rack_facts(
                rack, number, places[id(rack)], device_lists[number], self.thresholds, lookup
            )
            racks[number] = facts
            self._rack_facts[id(rack)] = facts
            done.racks[id(rack)] = facts
        self.racks = racks  # type: ignore[assignment]
        self._cdu_loads = None
        self._site = None
        self._rename(done, index)

    def _in_place(self, touched: dict[int, Rack], done: Refreshed, index: LayoutIndex) -> bool:
        """The common edit: the same racks, each touched one holding as many devices as
        before, every id unique. Then only the touched racks' facts are replaced, at their
        places in the lists, and nothing else is walked but the device lists of the models
        involved. False (and nothing changed) when the edit is not of that kind."""
        numbered = self._same_shape(touched, index)
        if numbered is None:
            return False
        named = {number: cdu_named(old) for number, old, _ in numbered}
        by_id = self.device_by_id
        fresh, replaced, same_types = self._replace_devices(numbered)
        # Every touched rack's devices are indexed before any rack's facts are made: a rack
        # reads the CDU or door it names, which may be in another touched rack (a CDU
        # renamed, and the rack that names it following, in one edit).
        for devices in fresh:
            for dev in devices:
                by_id.setdefault(dev.id, dev)
        for (number, old, rack), devices in zip(numbered, fresh, strict=True):
            place = RackPlace(old.place.row_index, rack.slot, rack.height_u * RACK_UNIT_M)
            facts = rack_facts(rack, number, place, devices, self.thresholds, by_id.get)
            self.racks[number] = facts
            self._rack_facts[id(rack)] = facts
            done.racks[id(rack)] = facts
        _name_racks(done.racks.values())
        if same_types:
            # Each model's devices are in device order and a device replaced in place keeps
            # its order: find it by bisection, not by a walk over the 12,500 nodes.
            for dev in replaced.values():
                if dev.type is not None:
                    used = self.types_used[dev.device.model]
                    used[bisect_left(used, dev.order, key=_by_order)] = dev
        else:
            self._types()
        self._sums(done.racks.values())
        self._cdu_loads_after(named)
        return True

    def _same_shape(
        self, touched: dict[int, Rack], index: LayoutIndex
    ) -> list[tuple[int, RackFacts, Rack]] | None:
        """Each touched rack with its place and old facts, where the edit left the racks
        and their device counts as they were and every id unique; else None."""
        layout = self.layout
        if (
            self._was_shared
            or index.has_shared_ids()
            or len(self.racks) != len(layout.racks)
            or any(id(rack) not in self._rack_facts for rack in touched.values())
        ):
            return None
        numbered: list[tuple[int, RackFacts, Rack]] = []
        for rack in touched.values():
            old = self._rack_facts[id(rack)]
            if (
                old.index >= len(layout.racks)
                or layout.racks[old.index] is not rack
                or len(old.devices) != len(rack.devices)
            ):
                return None
            numbered.append((old.index, old, rack))
        return numbered

    def _replace_devices(
        self, numbered: list[tuple[int, RackFacts, Rack]]
    ) -> tuple[list[list[DeviceFacts]], dict[int, DeviceFacts], bool]:
        """New facts for the touched racks' devices, each at its old place in the device
        list (its id unindexed): the new lists, the new facts by the old ones' id, and
        whether every device kept its model and type."""
        by_id = self.device_by_id
        replaced: dict[int, DeviceFacts] = {}
        same_types = True
        fresh: list[list[DeviceFacts]] = []
        for number, old, rack in numbered:
            devices = [
                device_facts(d, rack, number, self.catalog, self.thresholds, self._ports)
                for d in rack.devices
            ]
            for before, dev in zip(old.devices, devices, strict=True):
                dev.order = before.order
                self.devices[dev.order] = dev
                if by_id.get(before.id) is before:
                    del by_id[before.id]
                replaced[id(before)] = dev
                same_types &= before.device is dev.device and before.type is dev.type
            fresh.append(devices)
        return fresh, replaced, same_types

    def _cdu_loads_after(self, named: dict[int, tuple[str, ...]]) -> None:
        """The CDU groups after an in-place refresh of the racks at ``named``'s indexes
        (what each named before): only their groups are recomputed, and the site figures
        of the racks in those groups."""
        loads = self._cdu_loads
        if loads is None:
            self._site = None
            return  # not asked for since the last full computation: it is done on demand
        by_rack = self._figures_by_rack()
        new, dropped, added = cdu_loads_after(
            loads, self.racks, named, lambda index: _group(by_rack, index)
        )
        figures = dict(by_rack)
        for load in dropped:
            for number in load.indexes:
                figures.pop(number, None)
        for load in added:
            made = _LoadFigures(load)
            for number in load.indexes:
                figures[number] = [made]
        self._cdu_loads = new
        self._loads_by_rack = (new, figures)
        site = self._site
        if site is not None and site.loads is loads:
            site.loads = new
            changed = set(named)
            for load in (*dropped, *added):
                changed.update(load.indexes)
            for number in changed:
                self._verdict(site, self.racks[number])
        else:
            self._site = None

    # -- site figures -------------------------------------------------------------------------

    def site_figures(self) -> tuple[float, float, str]:
        """The analysis's site figures (usable power, heat, cooling verdict), kept per rack:
        after an in-place edit only the racks it touched and those of their CDU groups have
        their verdicts found again (a verdict is a few comparisons; 3,000 of them, with the
        CDU groups regrouped, were 35 ms of each edit on 100,000 GPUs)."""
        loads = self.cdu_loads
        site = self._site
        if site is None or site.loads is not loads or len(site.verdicts) != len(self.racks):
            site = _Site(loads, [], [], set())
            for facts in self.racks:
                site.usable.append(facts.capacity)
                site.verdicts.append("")
                self._verdict(site, facts)
            self._site = site
        verdicts, bad = site.verdicts, site.bad
        usable = sum(filter(None, site.usable))
        heat = sum(self._columns.load)  # a rack's heat is its load
        return usable, heat, cooling_summary(verdicts, len(bad), min(bad) if bad else None)

    def _verdict(self, site: _Site, facts: RackFacts) -> None:
        index = facts.index
        site.usable[index] = facts.capacity
        verdict = site.verdicts[index] = self.cooling_verdict(facts)
        if verdict == "ok":
            site.bad.discard(index)
        else:
            site.bad.add(index)

    def _types(self) -> None:
        used: dict[str, list[DeviceFacts]] = defaultdict(list)
        for dev in self.devices:
            if dev.type is not None:
                used[dev.device.model].append(dev)
        self.types_used = used

    def _sums(self, changed: Iterable[RackFacts] | None = None) -> None:
        """The site totals, after the ``changed`` racks' facts were replaced in place
        (None: any rack's, or racks added, removed or reordered)."""
        if changed is None:
            columns = self._columns = _Columns.of(self.racks)
        else:
            columns = self._columns
            for facts in changed:
                columns.set(facts)
        self.site_load = sum(columns.load)
        self.site_load_unknown = bool(columns.unknown)
        self.total_gpus = sum(columns.gpus)

    def _rename(self, done: Refreshed, index: LayoutIndex) -> None:
        """References, places and totals. Entities are named afresh everywhere only where
        ids are shared (PLC005), now or before, since only then does an entity's ``nth``
        depend on the others."""
        shared = index.has_shared_ids()
        if shared or self._was_shared:
            self._was_shared = shared
            before = {id(entity): entity.ref for facts in self.racks for entity in _named(facts)}
            self._totals()  # the analysis's own pass over everything
            self._sums()
            # A new nth renames an entity: its rack's findings (and the fabric's, which
            # name devices) must be found again.
            for facts in self.racks:
                if any(
                    before.get(id(entity)) not in (None, entity.ref) for entity in _named(facts)
                ):
                    done.racks.setdefault(id(facts.rack), facts)
                    done.renamed.update(dev.id for dev in facts.devices)
                    done.fabric = True
            return
        _name_racks(done.racks.values())
        self._types()
        self._sums()

    def _refresh_links(self, todo: dict[int, Link], index: LayoutIndex, done: Refreshed) -> None:
        facts_of = self._link_facts
        links, _ = self._link_table()
        kept = {key: link for key, link in todo.items() if _in_layout(link, index)}
        membership = any((key in facts_of) != (key in kept) for key in todo)
        positions: dict[int, int] = {}
        if membership:
            # A cable added or removed: positions after it move, and the list follows the
            # layout's order.
            positions = {id(link): number for number, link in enumerate(self.layout.links)}
        gone = self._drop_links(todo, done)
        if membership:
            for lf in facts_of.values():
                lf.index = positions[id(lf.link)]
        for key, link in kept.items():
            # Without cables added or removed, a link keeps its place.
            lf = self._resolve(link, positions[key] if membership else gone.places[key])
            facts_of[key] = lf
            gone.ports.update(self._claim(lf))
            done.links[key] = lf
        if membership:
            links[:] = [facts_of[id(link)] for link in self.layout.links]
        else:
            for lf in done.links.values():
                links[lf.index] = lf
        if membership or gone.renamed:
            # A link's reference depends on the others' a ends: name them again on demand.
            self._link_refs = LinkRefs(self.layout.links)
            for lf in links:
                lf.refs = self._link_refs
        affected = self._affected(done, gone.ports, gone.a_ends, index)
        for lf in affected.values():
            self._derive_problems(lf)
        for lf in affected.values():
            gone.pairs.update(self._leave_edge(lf))
            new = self._classify(lf)
            if new is not None:
                self._pair_of[id(lf)] = new
                self._members[new][id(lf)] = lf
                gone.pairs.add(new)
            done.links.setdefault(id(lf.link), lf)
            done.entities.add(lf.entity)
        done.fabric |= self._rebuild_edges(gone.pairs)
        if self._unknown_ends > _SUGGESTED_ENDS:
            self._relink_all(done)

    def _drop_links(self, todo: dict[int, Link], done: Refreshed) -> _Dropped:
        """Forget the facts of the links to refresh: their ports, edges and places, noted
        with their entities in ``done``."""
        gone = _Dropped(a_ends={link.a for link in todo.values()})
        for key, link in todo.items():
            old = self._link_facts.pop(key, None)
            if old is None:
                continue
            gone.a_ends.add(old.a.text)
            gone.places[key] = old.index
            gone.ports.update(self._unclaim(old))
            gone.pairs.update(self._leave_edge(old))
            done.entities.add(f"link {old.a.text} -> {old.b.text}")
            gone.renamed |= old.a.text != link.a or old.b.text != link.b
        return gone

    def _affected(
        self, done: Refreshed, ports: set[str], a_ends: set[str], index: LayoutIndex
    ) -> dict[int, LinkFacts]:
        """The links whose problems are derived again: those refreshed, every user of a
        touched port (who keeps a port is decided in file order), and the links that share
        an a end with one (they are named "a -> b": their names change together)."""
        affected: dict[int, LinkFacts] = dict(done.links)
        for port in ports:
            for lf in self._users.get(port, ()):
                affected[id(lf)] = lf
        for text in a_ends:
            for link in index.links_from(text):
                named = self._link_facts.get(id(link))
                if named is not None:
                    affected[id(named)] = named
        return affected

    def _leave_edge(self, lf: LinkFacts) -> tuple[tuple[str, str], ...]:
        pair = self._pair_of.pop(id(lf), None)
        if pair is None:
            return ()
        members = self._members.get(pair)
        if members is not None:
            members.pop(id(lf), None)
        return (pair,)

    def _relink_all(self, done: Refreshed) -> None:
        """Resolve every link again (many unknown devices: whose end gets a suggestion
        depends on all of them)."""
        self._links = None
        self._fabrics = None
        self._storage = None
        self._graph = None
        self._index_links()
        done.links = {id(lf.link): lf for lf in self.links}
        done.entities.update(lf.entity for lf in self.links)
        done.fabric = True

    # -- one link ---------------------------------------------------------------------------

    def _resolve(self, link: Link, number: int) -> LinkFacts:
        """The link's ends resolved as the analysis resolves them; ports kept by earlier
        links are decided afterwards (:meth:`_derive_problems`)."""
        (lf,), _ = resolve_links([link], self.device_by_id, self.geometry, self.pathway_graph)
        if link.via and self.layout.trunks:
            from rackdesigner.analysis.channels import attach_channels

            attach_channels([lf], self.layout, self.device_by_id)
        lf.index = number
        lf.refs = self._link_refs
        return lf

    def _claim(self, lf: LinkFacts) -> set[str]:
        """Register the ports this link's resolved ends use; return them."""
        ports: set[str] = set()
        for end in (lf.a, lf.b):
            if end.key and end.key not in ports:
                insort(self._users[end.key], lf, key=_by_index)
                ports.add(end.key)
            if _unknown(end):
                self._unknown_ends += 1
                self._unknown_links[id(lf.link)] = lf.link
        return ports

    def _unclaim(self, lf: LinkFacts) -> set[str]:
        ports: set[str] = set()
        for end in (lf.a, lf.b):
            if end.key and end.key not in ports:
                users = self._users.get(end.key)
                if users:
                    users[:] = [u for u in users if u is not lf]
                    if not users:
                        del self._users[end.key]
                ports.add(end.key)
            if _unknown(end):
                self._unknown_ends -= 1
                self._unknown_links.pop(id(lf.link), None)
        return ports

    def _derive_problems(self, lf: LinkFacts) -> None:
        """An end's port is used by an earlier link, or both ends are one port (CAB005), as
        the full analysis decides it: the first link in file order keeps the port."""
        a, b = lf.a, lf.b
        if a.key:
            self._taken(a, lf)
        if b.key:
            if b.key == a.key:
                b.clash = None
                b.problem = f"both ends are port {a.key}: a cable needs two ports"
            else:
                self._taken(b, lf)

    def _taken(self, end: End, lf: LinkFacts) -> None:
        users = self._users.get(end.key)
        first = users[0] if users else lf
        if first is lf:
            end.clash, end.problem = None, None
        else:
            end.clash = first.index
            end.problem = f"port {end.text} is already used by link {first.link.name}"

    def _classify(self, lf: LinkFacts) -> tuple[str, str] | None:
        """Whether the link is part of the compute fabric; the device pair it joins."""
        a, b = lf.a, lf.b
        ga, gb = a.group, b.group
        lf.compute = False
        if ga is None or gb is None:
            return None
        da, db = a.device, b.device
        assert da is not None and db is not None
        lf.compute = (
            a.problem is None
            and b.problem is None
            and self._is_compute(ga, da.kind)
            and self._is_compute(gb, db.kind)
        )
        if not lf.compute or da is db:
            return None
        return (da.id, db.id) if da.id < db.id else (db.id, da.id)

    def _is_compute(self, group: PortGroup, kind: str | None) -> bool:
        key = (id(group), kind)
        known = self._roles.get(key)
        if known is None:
            known = self._roles[key] = group.effective_role(kind) == "compute"
        return known

    def _rebuild_edges(self, pairs: set[tuple[str, str]]) -> bool:
        """Recompute these fabric edges from their links, in file order (the bandwidth
        summed in the order a full analysis sums it); True if the fabric changed."""
        if not pairs:
            return False
        _, edges = self._link_table()
        changed = False
        graph = self._graph
        for pair in pairs:
            found = sorted(self._members.get(pair, {}).values(), key=_by_index)
            old = edges.get(pair)
            if not found:
                self._members.pop(pair, None)
                if old is not None:
                    del edges[pair]
                    changed = True
                    if graph is not None and graph.has_edge(*pair):
                        graph.remove_edge(*pair)
                        for node in pair:
                            if graph.degree(node) == 0:
                                graph.remove_node(node)
                continue
            bandwidth = found[0].speed or 0.0
            for lf in found[1:]:
                bandwidth += lf.speed or 0.0
            edge = {"links": found, "count": len(found), "bandwidth": bandwidth}
            # New facts for the same cables (a device moved in its rack) leave the fabric as
            # it was: only other cables or other speeds change it.
            if (
                old is None
                or old["bandwidth"] != bandwidth
                or [id(lf.link) for lf in old["links"]] != [id(lf.link) for lf in found]
            ):
                changed = True
            edges[pair] = edge
            if graph is not None:
                if graph.has_edge(*pair):
                    data = graph.edges[pair]
                    data.clear()
                    data.update(edge)
                else:
                    graph.add_edge(*pair, **edge)
        if changed:
            self._fabrics = None
        return changed


def _named(facts: RackFacts) -> Iterator[RackFacts | FeedFacts | DeviceFacts]:
    """A rack and the feeds and devices in it: what findings name by reference."""
    yield facts
    yield from facts.feeds
    yield from facts.devices


def _in_layout(link: Link, index: LayoutIndex) -> bool:
    return any(candidate is link for candidate in index.links_on_port(link.a))


def _unknown(end: End) -> bool:
    problem = end.problem
    return end.device is None and problem is not None and problem.startswith("unknown device")


def _by_index(lf: LinkFacts) -> int:
    return lf.index


def _by_order(dev: DeviceFacts) -> int:
    return dev.order


def _group(by_rack: dict[int, list[_LoadFigures]], index: int) -> CduLoad | None:
    figures = by_rack.get(index)
    return figures[0].load if figures else None
